/*
 * PCs to SASS: the instruction text of a cubin's functions, as the CUDA
 * toolkit's disassembler prints it (`nvdisasm -c CUBIN`: each function's
 * section, then one line per instruction: its offset in hexadecimal inside
 * comment marks, then the instruction, "STG.E desc[UR4][R6.64], R9 ;").
 * The disassembler is found where the build found one, or on the PATH,
 * or where CML_NVDISASM says; without one there is no SASS, and nothing
 * else changes.
 */
#ifndef CML_TRACE_SASS_H
#define CML_TRACE_SASS_H

#include <stddef.h>
#include <stdint.h>

typedef struct cml_tf_sass_ins {
    uint32_t func;   /* index into cml_tf_sass.funcs */
    uint32_t pc;     /* byte offset in the function */
    char *text;      /* "STG.E desc[UR4][R6.64], R9" (no ';') */
} cml_tf_sass_ins;

typedef struct cml_tf_sass {
    char **funcs;
    size_t nfuncs;
    cml_tf_sass_ins *ins;  /* in the order printed: by function, then pc */
    size_t nins;
} cml_tf_sass;

/* Parse nvdisasm's output (text of n bytes, not NUL-terminated). 0, or -1
 * when out of memory; lines it does not recognise are passed by. */
int cml_tf_sass_parse(const char *text, size_t n, cml_tf_sass *out);

/* The disassembler: CML_NVDISASM, else the one the build found, else
 * nvdisasm on the PATH (checked to be executable). 0 with its path in
 * buf, or -1: none. */
int cml_tf_nvdisasm(char *buf, size_t len);

/* Run `nvdisasm -c cubin` (no shell: the path is passed as it is) and
 * parse its output. 0, or -1 with one line in err. */
int cml_tf_sass_read(const char *nvdisasm, const char *cubin, cml_tf_sass *out, char *err,
                     size_t errlen);

void cml_tf_sass_free(cml_tf_sass *s);

/* The text of function func's instruction at pc, or NULL. */
const char *cml_tf_sass_find(const cml_tf_sass *s, const char *func, uint32_t pc);

#endif
