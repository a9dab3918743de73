/*
 * What both injection libraries share (inject_common.h).
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "trace/inject/inject_common.h"

#include <dlfcn.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cml_inj_verbose;

void cml_inj_say(const char *what, const char *detail)
{
    fprintf(stderr, "cumemlab trace: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
}

void cml_inj_step(const char *what, const char *detail)
{
    if (cml_inj_verbose)
        fprintf(stderr, "cumemlab trace: [step] %s%s%s\n", what, detail ? ": " : "",
                detail ? detail : "");
}

uint64_t cml_inj_env_u64(const char *name, uint64_t dflt)
{
    const char *v = getenv(name);
    char *end = NULL;
    unsigned long long x = v && *v ? strtoull(v, &end, 10) : 0;
    return v && *v && end && !*end ? (uint64_t)x : dflt;
}

char *cml_inj_demangle(const char *name)
{
    typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);
    demangle_fn fn;
    void *sym = dlsym(RTLD_DEFAULT, "__cxa_demangle");
    if (!sym)
        return NULL;
    memcpy(&fn, &sym, sizeof fn); /* object to function pointer, as POSIX allows */
    int status = 0;
    char *d = fn(name, NULL, NULL, &status);
    return status == 0 ? d : NULL;
}

static regex_t filter_re;
static int have_filter;

int cml_inj_filter_init(void)
{
    const char *filter = getenv("CML_TRACE_KERNEL");
    if (!filter || !*filter)
        return 0;
    if (regcomp(&filter_re, filter, REG_EXTENDED | REG_NOSUB) != 0) {
        cml_inj_say("not a regular expression (nothing is recorded)", filter);
        return -1;
    }
    have_filter = 1;
    return 0;
}

int cml_inj_chosen(const char *name, const char *demangled)
{
    if (!have_filter)
        return 1;
    return regexec(&filter_re, name, 0, NULL, 0) == 0 ||
           (demangled && regexec(&filter_re, demangled, 0, NULL, 0) == 0);
}

cml_tf_writer *cml_inj_open_writer(const char *out, CUcontext ctx, uint64_t launch,
                                   uint64_t budget, const char *command)
{
    char name[256] = "";
    int major = 0, minor = 0, sms = 0, l2 = 0;
    CUdevice dev;
    if (ctx && cuCtxPushCurrent(ctx) == CUDA_SUCCESS) {
        if (cuCtxGetDevice(&dev) == CUDA_SUCCESS) {
            cuDeviceGetName(name, (int)sizeof name, dev);
            cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
            cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
            cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
            cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev);
        }
        CUcontext popped;
        cuCtxPopCurrent(&popped);
    }
    const char *filter = getenv("CML_TRACE_KERNEL");
    cml_tf_header h = {name, (uint32_t)(major * 10 + minor), (uint32_t)sms, (uint64_t)l2,
                       filter ? filter : "", launch, budget, command ? command : ""};
    char err[512];
    cml_tf_writer *w = cml_tf_writer_open(out, &h, err, sizeof err);
    if (!w)
        cml_inj_say("cannot write the trace", err);
    return w;
}
