/*
 * What both of cumemlab trace's injection libraries do the same way: the
 * recording one (inject.c, the Compute Sanitizer API) and the counters one
 * (counters_inject.c, CUPTI). Both live inside someone else's program, so
 * they speak only on stderr, each line starting "cumemlab trace:", and take
 * their settings from the environment cumemlab trace sets (docs/trace.md).
 */
#ifndef CML_INJECT_COMMON_H
#define CML_INJECT_COMMON_H

#include <cuda.h>
#include <stdint.h>

#include "trace/trace_file.h"

/* One line on stderr: "cumemlab trace: WHAT: DETAIL". */
void cml_inj_say(const char *what, const char *detail);

/* CML_TRACE_VERBOSE=1: each step said on stderr (unbuffered, so the last
 * line says where a program that hangs or dies stopped). */
extern int cml_inj_verbose;
void cml_inj_step(const char *what, const char *detail);

/* An unsigned decimal environment variable; dflt when unset or not one. */
uint64_t cml_inj_env_u64(const char *name, uint64_t dflt);

/* The demangled name, when the program has the C++ runtime's demangler
 * (a C++ program does); NULL otherwise (free it). */
char *cml_inj_demangle(const char *name);

/* The kernel filter, CML_TRACE_KERNEL (an extended regular expression;
 * unset or empty: every kernel). 0, or -1 when it does not compile (said). */
int cml_inj_filter_init(void);
/* 1 if the kernel of this mangled (and demangled, may be NULL) name is one
 * to record. */
int cml_inj_chosen(const char *name, const char *demangled);

/* Open a trace file at `out` whose header names the device of ctx (NULL:
 * not known) and the settings given; NULL on failure (said). */
cml_tf_writer *cml_inj_open_writer(const char *out, CUcontext ctx, uint64_t launch,
                                   uint64_t budget, const char *command);

/*
 * The library's InitializeInjection (what the CUDA driver calls when it
 * loads it through CUDA_INJECTION64_PATH) and a constructor (what a load
 * through LD_PRELOAD runs), both calling setup() once: whichever comes
 * first sets up, the other returns what it did.
 */
#define CML_INJ_ENTRY(setup)                                   \
    __attribute__((visibility("default"))) int InitializeInjection(void); \
    int InitializeInjection(void)                              \
    {                                                          \
        static int done_, result_;                             \
        if (!done_) {                                          \
            done_ = 1;                                         \
            result_ = setup();                                 \
        }                                                      \
        return result_;                                        \
    }                                                          \
    __attribute__((constructor)) static void at_load(void)     \
    {                                                          \
        (void)InitializeInjection();                           \
    }

#endif
