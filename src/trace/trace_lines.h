/*
 * PCs to source lines: a cubin's own line table. A cubin compiled with
 * -lineinfo (or -G) carries DWARF's .debug_line, whose rows map each
 * function's SASS offsets to file and line; the sequence of each function
 * starts with an address the ELF relocates against that function's symbol
 * (.rela.debug_line, or .rel.debug_line in older architectures' cubins),
 * which is how a row knows its function. No tool is
 * run: the table is read from the ELF, so it works wherever the trace is
 * reported, GPU or not.
 *
 * A cubin is untrusted input (its path comes from a trace file): every
 * offset, size and index is checked against the bytes it points into, and
 * the first fault is one line naming the section and offset.
 */
#ifndef CML_TRACE_LINES_H
#define CML_TRACE_LINES_H

#include <stddef.h>
#include <stdint.h>

/* One row: from `pc` (a byte offset in `func`) up to the next row of the
 * same function, the code is `file`:`line`. */
typedef struct cml_tf_line {
    uint32_t func;   /* index into cml_tf_lines.funcs */
    uint32_t pc;
    uint32_t file;   /* index into cml_tf_lines.files */
    uint32_t line;   /* 0: no line (the end of a sequence) */
    uint32_t order;  /* its place in the program (ties at one pc: the last holds) */
} cml_tf_line;

typedef struct cml_tf_lines {
    char **funcs;        /* function names, as the ELF has them (mangled) */
    size_t nfuncs;
    char **files;        /* file names, with their directory when the table has one */
    size_t nfiles;
    cml_tf_line *rows;   /* sorted by function, then pc */
    size_t nrows;
} cml_tf_lines;

/* Parse a cubin held in memory (not kept). 0, or -1 with one line in err
 * (a cubin without a line table is not an error: no rows). */
int cml_tf_lines_parse(const uint8_t *elf, size_t n, cml_tf_lines *out, char *err, size_t errlen);
/* Read and parse the cubin at path. */
int cml_tf_lines_read(const char *path, cml_tf_lines *out, char *err, size_t errlen);
void cml_tf_lines_free(cml_tf_lines *l);

/* The row that covers `pc` of the function named `func`; NULL when the
 * table has none (no such function, or a pc before its first row or at a
 * sequence's end). */
const cml_tf_line *cml_tf_lines_find(const cml_tf_lines *l, const char *func, uint32_t pc);

#endif
