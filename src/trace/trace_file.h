/*
 * The trace file (docs/trace-format.md): what `cumemlab trace` records of a
 * program's kernels, every warp-level global, shared and local memory
 * instruction with its active mask and lane addresses.
 *
 * The writer is plain C with no CUDA and nothing else of the project: the
 * injection library (src/trace/inject) links it into the traced program.
 * The reader treats a file as hostile: every length, count, index and value
 * is checked before it is used, and the first thing wrong is named with the
 * byte offset and the chunk it is in. A file that parses is consistent
 * throughout, so what walks it afterwards (cml_tf_next) cannot fail.
 */
#ifndef CML_TRACE_FILE_H
#define CML_TRACE_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CML_TF_VERSION 1u
#define CML_TF_LANES 32u
/* The longest string a file may hold (names, paths, the command). */
#define CML_TF_MAX_STRING 4096u

typedef enum cml_tf_space { CML_TF_GLOBAL = 0, CML_TF_SHARED, CML_TF_LOCAL, CML_TF_SPACES } cml_tf_space;
typedef enum cml_tf_op { CML_TF_LOAD = 0, CML_TF_STORE, CML_TF_ATOMIC, CML_TF_OPS } cml_tf_op;

/* One warp-level memory instruction. */
typedef struct cml_tf_ins {
    uint32_t func;     /* the function its pc is in (a FUNC chunk's id)       */
    uint32_t pc;       /* byte offset of the instruction in that function      */
    uint8_t space;     /* cml_tf_space                                         */
    uint8_t op;        /* cml_tf_op                                            */
    uint8_t size;      /* bytes per lane: 1, 2, 4, 8 or 16                     */
    uint32_t active;   /* lanes taking part (never 0)                          */
    uint64_t block;    /* the block's linear index (x fastest)                 */
    uint32_t warp;     /* the warp's index in its block                        */
    uint64_t addr[CML_TF_LANES]; /* global: the address; shared and local: the
                                    offset in the window (as the API reports
                                    them); 0 for inactive lanes                */
} cml_tf_ins;

/* What was recorded, and why (the HEAD chunk). */
typedef struct cml_tf_header {
    const char *device;   /* the GPU's name                                     */
    uint32_t sm;          /* compute capability, major * 10 + minor             */
    uint32_t sms;         /* its SMs (0: not known)                             */
    uint64_t l2_bytes;    /* its L2 (0: not known)                              */
    const char *kernels;  /* the --kernel filter ("" : every kernel)            */
    uint64_t launch;      /* the launch of each chosen kernel recorded (0: first)*/
    uint64_t budget;      /* bytes of device buffer per launch                  */
    const char *command;  /* the program and its arguments                      */
} cml_tf_header;

/* A function PCs are relative to (the FUNC chunk). */
typedef struct cml_tf_func {
    uint32_t id;           /* 0, 1, 2, ... in file order                       */
    const char *name;      /* as the module names it (mangled)                  */
    const char *demangled; /* "" when not known                                  */
    uint64_t module;       /* the module it is in (an id of the recording)      */
    const char *cubin;     /* where the module's cubin was saved ("" : not)     */
} cml_tf_func;

/* One recorded launch (the KERN chunk, without its records). */
typedef struct cml_tf_kernel {
    uint32_t func;           /* the kernel's own function                       */
    uint64_t launch;         /* its launch index among that kernel's launches   */
    uint32_t grid[3], block[3];
    uint64_t smem;           /* shared memory per block, static and dynamic     */
    uint64_t warps_total;    /* warps the launch ran                            */
    uint64_t stride;         /* warps recorded: those whose linear index in the
                                grid is a multiple of stride (1: every warp)    */
    uint64_t warps_recorded; /* warps with records                              */
    uint64_t warps_lost;     /* warps of the sample left out because the buffer
                                filled while they ran                           */
    uint64_t nins;           /* records                                         */
    /* Reader only: where the records are in the file's bytes. */
    const uint8_t *data;
    size_t len;
} cml_tf_kernel;

/*
 * The hardware counters of one launch (the CNTR chunk): CUPTI's range
 * profiler with kernel replay, in a second run of the program by the
 * counters library (src/trace/inject/counters_inject.c), then copied into
 * the trace by cml_tf_splice_counters. Matched to a KERN chunk by the
 * kernel's name and launch index.
 */
#define CML_TF_MAX_METRICS 64u
typedef struct cml_tf_counters {
    const char *kernel;    /* the kernel's mangled name, as its FUNC chunk's  */
    uint64_t launch;       /* its launch index among that kernel's launches    */
    uint32_t passes;       /* replay passes the profiler took (0: none ran)    */
    const char *error;     /* "": measured; else why not, one line             */
    size_t n;              /* metrics, at most CML_TF_MAX_METRICS              */
    const char **metrics;  /* their names (ncu's)                              */
    double *values;        /* their values; NaN: not measured                  */
} cml_tf_counters;

/*
 * The per-instruction counters of one launch (the PCNT chunk): CUPTI's SASS
 * metrics (the launch's code patched to count at each instruction), in a
 * third run of the program, copied into the trace as CNTR chunks are. Each
 * value row is one instruction of the kernel's own code (its pc, a byte
 * offset in the function, as a KERN chunk's records have them).
 */
#define CML_TF_MAX_SASS_PCS (1u << 22)
typedef struct cml_tf_pc_counters {
    const char *kernel;    /* the kernel's mangled name                        */
    uint64_t launch;       /* its launch index                                 */
    const char *error;     /* "": measured; else why not, one line             */
    size_t nmetrics;       /* at most CML_TF_MAX_METRICS                       */
    const char **metrics;  /* their names (CUPTI's SASS metric names)          */
    size_t npcs;           /* instructions with values, at most CML_TF_MAX_SASS_PCS */
    uint32_t *pcs;         /* ascending                                        */
    uint64_t *values;      /* npcs x nmetrics, one row per pc                  */
} cml_tf_pc_counters;

/* ---- writing ---------------------------------------------------------- */

typedef struct cml_tf_writer cml_tf_writer;

/*
 * Create `path` and write the file header and the HEAD chunk. The file is
 * written in place, not under a temporary name: a program that dies while
 * it is traced leaves the kernels written so far in a file the reader
 * accepts as incomplete. NULL on failure, with a line in err.
 */
cml_tf_writer *cml_tf_writer_open(const char *path, const cml_tf_header *h, char *err,
                                  size_t errlen);
/* A function; ids are 0, 1, 2, ... in the order written. 0, or -1 on a write error or a
 * string longer than CML_TF_MAX_STRING. */
int cml_tf_write_func(cml_tf_writer *w, const cml_tf_func *f);
/* A launch and its n records, in the order the file wants them: by block,
 * then warp, each warp's in the order it issued them. The chunk is flushed
 * to the file. 0, or -1 (write error, a record out of order or invalid). */
int cml_tf_write_kernel(cml_tf_writer *w, const cml_tf_kernel *k, const cml_tf_ins *ins,
                        size_t n);
/* One launch's counters (a CNTR chunk). 0, or -1 (write error, more than
 * CML_TF_MAX_METRICS metrics, a string too long). */
int cml_tf_write_counters(cml_tf_writer *w, const cml_tf_counters *c);
/* One launch's per-instruction counters (a PCNT chunk). 0, or -1 (write
 * error, a count over its limit, pcs not ascending). */
int cml_tf_write_pc_counters(cml_tf_writer *w, const cml_tf_pc_counters *s);
/* The END chunk, then close. 0, or -1 if anything failed since open. */
int cml_tf_writer_close(cml_tf_writer *w);

/* ---- reading ---------------------------------------------------------- */

typedef struct cml_trace {
    uint32_t version;
    char *device;
    uint32_t sm;
    uint32_t sms;
    uint64_t l2_bytes;
    char *kernels;
    uint64_t launch;
    uint64_t budget;
    char *command;
    int complete;           /* 1: the END chunk was there (0: the program or
                               the library stopped before closing the file) */
    size_t truncated;       /* bytes of a last chunk the file ends inside
                               (left out; 0: none)                          */
    cml_tf_func *funcs;     /* funcs[i].id == i */
    size_t nfuncs, cap_funcs;
    cml_tf_kernel *kernel;  /* in file order */
    size_t nkernels, cap_kernels;
    cml_tf_counters *counters; /* CNTR chunks, in file order */
    size_t ncounters, cap_counters;
    cml_tf_pc_counters *pcnt;      /* PCNT chunks, in file order */
    size_t npcnt, cap_pcnt;
    size_t end_at;          /* where the END chunk begins (0: no END chunk) */
    size_t whole;           /* bytes up to the end of the last whole chunk */
    uint8_t *bytes;         /* the file (the kernels' data point into it) */
    size_t nbytes;
} cml_trace;

/*
 * Parse a whole trace held in memory (the reader takes ownership of
 * `bytes`, a malloc'd buffer, even on failure). 0, or -1 with one line in
 * err: "offset 1234 (KERN chunk 3, record 17): lane 5's address ...".
 */
int cml_tf_parse(uint8_t *bytes, size_t n, cml_trace *t, char *err, size_t errlen);
/* Read and parse the file at path (- : standard input). */
int cml_tf_read(const char *path, cml_trace *t, char *err, size_t errlen);
void cml_tf_free(cml_trace *t);

/* The counters measured for launch k (matched by its function's name and
 * its launch index), or NULL. */
const cml_tf_counters *cml_tf_counters_of(const cml_trace *t, const cml_tf_kernel *k);

/* The first of the n ascending pcs that is not below pc (n: none). */
static inline size_t cml_tf_pc_lower_bound(const uint32_t *pcs, size_t n, uint32_t pc)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pcs[mid] < pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The per-instruction counters of launch k, or NULL; and the row of
 * instruction `pc` in them (SIZE_MAX: none). */
const cml_tf_pc_counters *cml_tf_pc_counters_of(const cml_trace *t, const cml_tf_kernel *k);
size_t cml_tf_pc_row(const cml_tf_pc_counters *s, uint32_t pc);

/*
 * Copy the CNTR and PCNT chunks of the file at `counters_path` (a trace the counters
 * library wrote: HEAD, CNTR chunks, END) into the trace at `trace_path`,
 * before its END chunk (or after its last whole chunk when the program
 * stopped before closing it). The trace is rewritten under a temporary name
 * and renamed over the old one, so a failure leaves it as it was. 0, or -1
 * with one line in err.
 */
int cml_tf_splice_counters(const char *trace_path, const char *counters_path, char *err,
                           size_t errlen);

/* The function of id `id`, or NULL. */
const cml_tf_func *cml_tf_func_by_id(const cml_trace *t, uint32_t id);

/* Walking a parsed kernel's records. */
typedef struct cml_tf_cursor {
    const cml_tf_kernel *k;
    size_t pos;
    uint64_t done;
} cml_tf_cursor;

void cml_tf_cursor_init(cml_tf_cursor *c, const cml_tf_kernel *k);
/* The next record into *out: 1, or 0 at the end. */
int cml_tf_next(cml_tf_cursor *c, cml_tf_ins *out);

/* "global", "shared", "local"; "load", "store", "atomic". */
const char *cml_tf_space_name(unsigned space);
const char *cml_tf_op_name(unsigned op);

#endif
