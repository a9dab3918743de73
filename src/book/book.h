/*
 * The book's programs: the example programs of chapters 4 and 5 of
 * "Professional CUDA C Programming" (Cheng, Grossman, McKercher), run as
 * the book runs them. Each program is a row of the run engine
 * (lab/experiment.h) whose options are the program's positional
 * arguments plus `launch`, the kernel launches its main() makes, in its
 * order; its kernels (src/book/NAME.cu) are the book's kernels, with the
 * book's names, bodies, launch shapes, sizes and pointer offsets. Every
 * launch becomes one record: timed, verified against a host reference of
 * that kernel (poison where it writes nothing), counted by the hardware
 * counters, and set beside a C mirror of the kernel under the modern and
 * the Fermi rules.
 *
 * The command line (`cumemlab readSegment 11 512`) reads the positional
 * arguments the way the book's main() does (argv[1], argv[2], ... in
 * order, the book's defaults for the missing ones), refusing what the
 * book's atoi() would have silently misread, and prints the program's own
 * lines before the lab's records (docs/textbook.md).
 */
#ifndef CML_BOOK_H
#define CML_BOOK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/record.h"
#include "lab/experiment.h"

#define CML_BOOK_MAX_ARGS 5

typedef struct cml_book_program cml_book_program;

/* What the program's own lines are printed from: its records (in launch
 * order) and the device they ran on (NULL: the model alone). */
typedef struct cml_book_output {
    const cml_book_program *prog;
    const cml_results *results;
    size_t first, count;          /* the program's records in results */
    const int64_t *args;          /* the positional values, argv order */
    const cml_device_facts *dev;  /* NULL: no GPU */
} cml_book_output;

struct cml_book_program {
    const char *name;         /* the command: "readSegment" */
    const char *file;         /* the book's source: "chapter04/readSegment.cu" */
    const char *alias;        /* another name it answers to ("readOffset"), or NULL */
    const char *args_usage;   /* "[offset] [blocksize]" ("" when it takes none) */
    const char *summary;      /* one line for the list */
    /* the row's options set by argv[1], argv[2], ... (NULL-terminated) */
    const char *positional[CML_BOOK_MAX_ARGS + 1];
    const cml_experiment *row;
    /* A check across arguments (blockx * blocky <= 1024, say): 0, or 1
     * with a one-line reason in err. NULL: none. */
    int (*check_args)(const int64_t *args, char *err, size_t errlen);
    /* The program's printf()s: every line it prints, its times replaced by
     * the lab's median (or "n/a" on the model alone). */
    void (*print)(FILE *out, const cml_book_output *o);
};

size_t cml_book_count(void);
const cml_book_program *cml_book_at(size_t i);
/* By name or alias (exact, case-sensitive as the book's file names). */
const cml_book_program *cml_book_find(const char *name);

/*
 * Read the positional arguments as the program's main() does: values
 * argv[1..nargs] into args (the book's default, from the option's default,
 * for each one not given), each a whole decimal integer inside its
 * option's range, then the program's check_args. On a bad one: CML_EINVAL
 * and one line in err naming the argument, its position and what is
 * allowed. The settings text "name=value ..." for the row goes to settings.
 */
cml_status cml_book_parse_args(const cml_book_program *p, const char *const *argv, int nargs,
                               int64_t *args, char *settings, size_t settings_len, char *err,
                               size_t errlen);

/* The option definition of positional argument k (NULL past the last). */
const cml_param_def *cml_book_arg_def(const cml_book_program *p, int k);

/* ---- what the programs' print functions share --------------------------- */

/* The record of launch `launch` (its choice name), NULL if it did not run. */
const cml_record *cml_book_record(const cml_book_output *o, const char *launch);
/* The launch's elapsed time in seconds as the book prints it ("%f"), or
 * "n/a" when nothing was measured. */
void cml_book_elapsed(const cml_record *rec, char *buf, size_t len);
/* The device's name, or a note that there is none. */
const char *cml_book_device_name(const cml_book_output *o);
/* The value of parameter `name` of rec (0 when absent). */
int64_t cml_book_param(const cml_record *rec, const char *name);

/* ---- what the programs' records share ----------------------------------- */

/*
 * The model of a 2-D launch whose blocks all make the same traffic (each
 * one's addresses the first one's shifted by whole 128-byte lines, the
 * same shared words): block (0, 0) traced under both rule sets and counted
 * grid.x * grid.y times, after four more blocks (the corners and the
 * middle) are traced and found identical; a difference is a CML_EINVAL bug
 * report on the record, never a silent error. Sets rec->grid and
 * rec->block like cml_exp_trace.
 */
cml_status cml_book_trace_uniform_2d(cml_record *rec, cml_dim3 grid, cml_dim3 block,
                                     cml_thread_fn fn, const void *args);

/*
 * The book's own figure beside the model's Fermi column: extra `name` with
 * the book's value, and the finding's sentence about it appended by the
 * caller. Kept in one place so every program words it alike.
 */
void cml_book_quote(cml_record *rec, const char *name, double book_value, const char *unit);

/*
 * Host verification, as the book's checkResult() but of every element:
 * download `words` 32-bit words from device (or managed) memory at dptr and
 * compare them with want[]: exact bits, or for tol > 0 floats within tol
 * where want is a number (the poison 0xFFFFFFFF must still match exactly).
 * The count of wrong words and the first go to d_counters (device memory
 * of two unsigned long long), the way a device checker reports them, so
 * that cml_exp_verify reads them.
 */
cml_status cml_book_compare(struct cml_gpu *g, const void *dptr, const uint32_t *want,
                            size_t words, double tol, unsigned long long *d_counters);

/*
 * The run-engine row of a book program's kernels: chapter CHAPTER's file
 * KEY, its options, and the PREFIX_settings / PREFIX_variant /
 * PREFIX_measure of its .c file. Book rows are not in the registry: the
 * textbook command runs them.
 */
#define CML_BOOK_ROW(ROW, CHAPTER, KEY, TITLE, SUMMARY, OPTIONS, PREFIX)                         \
    const cml_experiment ROW = {                                                                \
        .key = KEY,                                                                             \
        .number = CHAPTER,                                                                      \
        .title = TITLE,                                                                         \
        .summary = SUMMARY,                                                                     \
        .doc = "docs/textbook.md",                                                              \
        .options = OPTIONS,                                                                     \
        .noptions = CML_COUNT(OPTIONS),                                                         \
        .settings_size = sizeof(PREFIX##_settings),                                             \
        .tour = "",                                                                             \
        .variant = PREFIX##_variant,                                                            \
        .measure = PREFIX##_measure,                                                            \
    }

/* The poison pattern of an output word (cml_gpu_poison writes 0xFF bytes). */
#define CML_BOOK_POISON 0xFFFFFFFFu

/* Bits of a float and back, for host references. */
uint32_t cml_book_bits(float f);
float cml_book_float(uint32_t u);

#endif
