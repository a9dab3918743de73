/* The book's programs, one per source file of the book (book.c lists
 * them). Each is defined beside its kernels' mirror in src/book/NAME.c. */
#ifndef CML_BOOK_PROGRAMS_H
#define CML_BOOK_PROGRAMS_H

/* Declared, not defined, here (book/book.h defines the type), so that this
 * list, which book.c includes, does not include book.c's own header back. */
struct cml_book_program;

/* chapter 4 */
extern const struct cml_book_program cml_book_read_segment;         /* readSegment.cu */
extern const struct cml_book_program cml_book_read_segment_unroll;  /* readSegmentUnroll.cu */
extern const struct cml_book_program cml_book_write_segment;        /* writeSegment.cu */
extern const struct cml_book_program cml_book_simple_math_aos;      /* simpleMathAoS.cu */
extern const struct cml_book_program cml_book_simple_math_soa;      /* simpleMathSoA.cu */
extern const struct cml_book_program cml_book_transpose;            /* transpose.cu */
extern const struct cml_book_program cml_book_sum_array_zerocpy;    /* sumArrayZerocpy.cu */
extern const struct cml_book_program cml_book_sum_matrix_managed;   /* sumMatrixGPUManaged.cu */
extern const struct cml_book_program cml_book_sum_matrix_manual;    /* sumMatrixGPUManual.cu */
/* chapter 5 */
extern const struct cml_book_program cml_book_check_smem_square;    /* checkSmemSquare.cu */
extern const struct cml_book_program cml_book_check_smem_rectangle; /* checkSmemRectangle.cu */
extern const struct cml_book_program cml_book_constant_stencil;     /* constantStencil.cu */
extern const struct cml_book_program cml_book_constant_read_only;   /* constantReadOnly.cu */
extern const struct cml_book_program cml_book_reduce_integer_shfl;  /* reduceIntegerShfl.cu */
extern const struct cml_book_program cml_book_simple_shfl;          /* simpleShfl.cu */

#endif
