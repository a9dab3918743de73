/*
 * NVRTC through dlopen (nvrtc.h). The few entry points are declared here
 * with their C signatures from nvrtc.h (stable across CUDA releases), so
 * this file builds without the toolkit's headers, on machines with no CUDA.
 */
#define _POSIX_C_SOURCE 200809L
#include "gpu/nvrtc.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/host_memory.h"

typedef int nvrtc_result; /* nvrtcResult: 0 = NVRTC_SUCCESS */
typedef struct nvrtc_program *nvrtc_program;

typedef struct nvrtc_api {
    nvrtc_result (*version)(int *major, int *minor);
    nvrtc_result (*create)(nvrtc_program *prog, const char *src, const char *name,
                           int num_headers, const char *const *headers,
                           const char *const *include_names);
    nvrtc_result (*compile)(nvrtc_program prog, int num_options, const char *const *options);
    nvrtc_result (*log_size)(nvrtc_program prog, size_t *size);
    nvrtc_result (*log)(nvrtc_program prog, char *log);
    nvrtc_result (*cubin_size)(nvrtc_program prog, size_t *size);
    nvrtc_result (*cubin)(nvrtc_program prog, char *cubin);
    nvrtc_result (*destroy)(nvrtc_program *prog);
    const char *(*error_string)(nvrtc_result r);
} nvrtc_api;

/* One compiled kernel of the cache. */
typedef struct cache_entry {
    char *source;
    int cc;
    char *cubin;
    size_t cubin_bytes;
    char *log;
} cache_entry;

struct cml_nvrtc {
    void *lib;
    nvrtc_api api;
    int version;
    cache_entry *cache;
    size_t ncache, capcache;
};

/* dlsym into a function pointer without the object-to-function cast that
 * ISO C leaves undefined: POSIX guarantees the representation. */
static int load_sym(void *lib, const char *name, void *fnptr, size_t size)
{
    void *p = dlsym(lib, name);
    if (!p)
        return 0;
    memcpy(fnptr, &p, size);
    return 1;
}

cml_status cml_nvrtc_open(cml_nvrtc **out, char *why, size_t whylen)
{
    *out = NULL;
    const char *override = getenv("CML_NVRTC_LIBRARY");
    const char *names[] = {override && *override ? override : NULL, "libnvrtc.so.13",
                           "libnvrtc.so.12", "libnvrtc.so"};
    void *lib = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !lib; i++)
        if (names[i])
            lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(why, whylen,
                 "NVRTC not found: install the CUDA toolkit's nvrtc library "
                 "(libnvrtc.so.13)");
        return CML_EUNSUPPORTED;
    }
    cml_nvrtc *c = calloc(1, sizeof *c);
    if (!c) {
        dlclose(lib);
        snprintf(why, whylen, "out of memory");
        return CML_ENOMEM;
    }
    c->lib = lib;
    nvrtc_api *a = &c->api;
    int ok = load_sym(lib, "nvrtcVersion", &a->version, sizeof a->version) &&
             load_sym(lib, "nvrtcCreateProgram", &a->create, sizeof a->create) &&
             load_sym(lib, "nvrtcCompileProgram", &a->compile, sizeof a->compile) &&
             load_sym(lib, "nvrtcGetProgramLogSize", &a->log_size, sizeof a->log_size) &&
             load_sym(lib, "nvrtcGetProgramLog", &a->log, sizeof a->log) &&
             load_sym(lib, "nvrtcGetCUBINSize", &a->cubin_size, sizeof a->cubin_size) &&
             load_sym(lib, "nvrtcGetCUBIN", &a->cubin, sizeof a->cubin) &&
             load_sym(lib, "nvrtcDestroyProgram", &a->destroy, sizeof a->destroy) &&
             load_sym(lib, "nvrtcGetErrorString", &a->error_string, sizeof a->error_string);
    if (!ok) {
        snprintf(why, whylen, "NVRTC found but incomplete (no %s): a CUDA 11.1 or newer "
                              "nvrtc library is needed",
                 "nvrtcGetCUBIN");
        cml_nvrtc_close(c);
        return CML_EUNSUPPORTED;
    }
    int major = 0, minor = 0;
    if (a->version(&major, &minor) == 0)
        c->version = major * 1000 + minor * 10;
    *out = c;
    return CML_OK;
}

void cml_nvrtc_close(cml_nvrtc *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->ncache; i++) {
        free(c->cache[i].source);
        free(c->cache[i].cubin);
        free(c->cache[i].log);
    }
    free(c->cache);
    if (c->lib)
        dlclose(c->lib);
    free(c);
}

int cml_nvrtc_version(const cml_nvrtc *c)
{
    return c ? c->version : 0;
}

static void fill(const cache_entry *e, cml_nvrtc_result *out)
{
    out->cubin = e->cubin;
    out->cubin_bytes = e->cubin_bytes;
    out->log = e->log;
}

/* The compiler's log, malloc'ed ("" when empty); NULL when out of memory. */
static char *program_log(const nvrtc_api *a, nvrtc_program prog)
{
    size_t n = 0;
    if (a->log_size(prog, &n) != 0)
        n = 0;
    char *log = malloc(n + 1);
    if (!log)
        return NULL;
    log[0] = '\0';
    if (n && a->log(prog, log) != 0)
        log[0] = '\0';
    log[n] = '\0';
    /* NVRTC ends an empty log with a lone newline or NUL: trim trailing space */
    for (size_t k = strlen(log); k && (log[k - 1] == '\n' || log[k - 1] == ' '); k--)
        log[k - 1] = '\0';
    return log;
}

cml_status cml_nvrtc_compile(cml_nvrtc *c, const char *source, int cc_major, int cc_minor,
                             cml_nvrtc_result *out, char *err, size_t errlen)
{
    const double t0 = cml_host_clock_ms();
    const int cc = cc_major * 10 + cc_minor;
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < c->ncache; i++)
        if (c->cache[i].cc == cc && strcmp(c->cache[i].source, source) == 0) {
            fill(&c->cache[i], out);
            out->cached = 1;
            out->compile_ms = cml_host_clock_ms() - t0;
            return CML_OK;
        }
    if (c->ncache == c->capcache) {
        size_t cap = c->capcache ? 2 * c->capcache : 16;
        cache_entry *p = realloc(c->cache, cap * sizeof *p);
        if (!p)
            return CML_ENOMEM;
        c->cache = p;
        c->capcache = cap;
    }
    const nvrtc_api *a = &c->api;
    nvrtc_program prog = NULL;
    nvrtc_result r = a->create(&prog, source, "cumemlab_expr.cu", 0, NULL, NULL);
    if (r != 0) {
        snprintf(err, errlen, "nvrtcCreateProgram: %s", a->error_string(r));
        return r == 1 ? CML_ENOMEM : CML_EINVAL;
    }
    /* A cubin for this architecture: nothing is left to the driver's JIT,
     * so the compile time reported is the whole cost. */
    char arch[32];
    snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d", cc);
    const char *opts[] = {arch, "--std=c++17", "--generate-line-info"};
    r = a->compile(prog, (int)(sizeof opts / sizeof opts[0]), opts);
    char *log = program_log(a, prog);
    if (!log) {
        a->destroy(&prog);
        return CML_ENOMEM;
    }
    if (r != 0) {
        snprintf(err, errlen, "the generated kernel does not compile (%s): %s",
                 a->error_string(r), log);
        free(log);
        a->destroy(&prog);
        return CML_EINVAL;
    }
    size_t n = 0;
    char *cubin = NULL;
    if (a->cubin_size(prog, &n) == 0 && n)
        cubin = malloc(n);
    if (!cubin || a->cubin(prog, cubin) != 0) {
        snprintf(err, errlen, "nvrtcGetCUBIN failed");
        free(cubin);
        free(log);
        a->destroy(&prog);
        return cubin ? CML_EINVAL : CML_ENOMEM;
    }
    a->destroy(&prog);
    char *src = malloc(strlen(source) + 1);
    if (!src) {
        free(cubin);
        free(log);
        return CML_ENOMEM;
    }
    strcpy(src, source);
    cache_entry *e = &c->cache[c->ncache++];
    e->source = src;
    e->cc = cc;
    e->cubin = cubin;
    e->cubin_bytes = n;
    e->log = log;
    fill(e, out);
    out->compile_ms = cml_host_clock_ms() - t0;
    return CML_OK;
}
