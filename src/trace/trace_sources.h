/*
 * The source lines of a trace's functions (docs/trace.md): the line table
 * (trace_lines.h) of each module whose cubin was saved with the trace.
 */
#ifndef CML_TRACE_SOURCES_H
#define CML_TRACE_SOURCES_H

#include <stddef.h>

#include "cumemlab/status.h"
#include "trace/trace_file.h"
#include "trace/trace_lines.h"
#include "trace/trace_sass.h"

/*
 * The source lines of a trace's functions: the line table of each module
 * whose cubin was saved with the trace (FUNC chunks name it), and its SASS
 * where a disassembler is found. A cubin is
 * looked for where the trace names it, then in FILE.trace.cubins/ beside
 * the trace (a trace moved with its cubins). One that cannot be read is
 * left out (its functions have no lines) and counted.
 */
typedef struct cml_tf_sources {
    cml_tf_lines *tables;
    cml_tf_sass *sass;   /* [ntables]: each cubin's SASS, when a disassembler
                            was found (trace_sass.h); empty otherwise     */
    size_t ntables;
    int disassembled;    /* 1: a disassembler was found and run           */
    long *of_func;       /* [nfuncs]: the table of each function, -1 none */
    size_t nfuncs;
    size_t unreadable;   /* cubins named but not read */
    char first_error[300];
} cml_tf_sources;

cml_status cml_tf_sources_load(const cml_trace *t, const char *trace_path, cml_tf_sources *s);
void cml_tf_sources_free(cml_tf_sources *s);
/* The row of function func's pc ("file", line) or NULL. */
const cml_tf_line *cml_tf_sources_find(const cml_tf_sources *s, const cml_trace *t,
                                       uint32_t func, uint32_t pc, const char **file);
/* The SASS text of function func's instruction at pc, or NULL. */
const char *cml_tf_sources_sass(const cml_tf_sources *s, const cml_trace *t, uint32_t func,
                                uint32_t pc);

#endif
