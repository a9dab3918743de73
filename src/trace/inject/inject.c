/*
 * The injection library of `cumemlab trace` (docs/trace.md): loaded into
 * an unmodified CUDA program by the driver (CUDA_INJECTION64_PATH), it
 * subscribes to the Compute Sanitizer API's callbacks, patches every global,
 * shared and local memory instruction of every module the program loads
 * (the device side is patches.cu), and for the launches chosen gives the
 * patches a device buffer; when such a launch ends it waits for it, drains
 * the buffer and writes the launch to the trace file (trace_file.h).
 *
 * Its settings come from the environment that cumemlab trace sets:
 *   CML_TRACE_OUT      the trace file to write (required; nothing is done
 *                      without it)
 *   CML_TRACE_PATCHES  the patches' fatbin (cumemlab finds it next to this
 *                      library)
 *   CML_TRACE_KERNEL   an extended regular expression; kernels whose
 *                      mangled or demangled name it matches are traced
 *                      (unset or empty: every kernel)
 *   CML_TRACE_LAUNCH   which launch of each chosen kernel (0: the first)
 *   CML_TRACE_BUDGET   device bytes a traced launch's records may use
 *   CML_TRACE_COMMAND  the program's command line, for the file's header
 *   CML_TRACE_CUBINS   1: save each module's cubin in CML_TRACE_OUT.cubins/
 *   CML_TRACE_VERBOSE  1: say each step on stderr (where a traced program
 *                      stops, without a debugger)
 *
 * The program's own output and exit status are untouched: the library
 * writes to stderr only when something of the trace fails, each line
 * starting "cumemlab trace:". Callbacks may come from several host threads:
 * one mutex serialises the library's state (and the API's patching calls,
 * which must not run concurrently). The library's own calls into the API
 * (loading the patches, its buffers' copies) raise callbacks of their own
 * on the same thread while the mutex is held: those are not the program's,
 * and are let through untouched (a thread-local depth), not waited on.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <cuda.h>
#include <pthread.h>
#include <sanitizer.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trace/inject/inject_common.h"
#include "trace/inject/inject_drain.h"
#include "trace/inject/inject_layout.h"
#include "trace/trace_file.h"

/* Records per warp assumed when the stride is chosen before a launch (its
 * instructions are not known until it has run): a launch whose warps need
 * more fills its buffer, and the warps that lost records are left out. */
#define GUESS_PER_WARP 16u

/* The one symbol the library exports (the rest is hidden: it lives inside
 * someone else's program). */
typedef struct module_info {
    CUmodule module;
    uint64_t id;
    char cubin[1024]; /* "" when not saved */
} module_info;

typedef struct func_info {
    char *name;
    CUmodule module;
    uint32_t id;       /* its FUNC chunk */
    uint32_t outside;  /* the FUNC chunk of PCs outside it (called functions);
                          UINT32_MAX: none yet */
    uint64_t launches; /* launches seen */
} func_info;

typedef struct pending {
    Sanitizer_LaunchHandle launch;
    CUcontext ctx;
    Sanitizer_StreamHandle stream;
    cml_inject_ctl host;        /* what the device's control block was given */
    cml_inject_ctl *dev;        /* the control block in device memory */
    size_t lost_words;
    size_t fn;                  /* its function in g.fns (an index: g.fns may grow) */
    uint64_t launch_index;
    uint32_t grid[3], block[3];
    uint64_t smem;
    uint64_t pc, size;          /* the function's first PC and bytes */
} pending;

static struct {
    pthread_mutex_t lock;
    int on;
    int cubins;
    const char *out, *patches, *command;
    uint64_t launch, budget;
    cml_tf_writer *w;
    int failed;
    uint32_t nfuncs_written;
    CUcontext *ctxs;
    size_t nctxs;
    module_info *mods;
    size_t nmods;
    func_info *fns;
    size_t nfns;
    pending *pend;
    size_t npend;
} g = {.lock = PTHREAD_MUTEX_INITIALIZER};

#define say cml_inj_say
#define step cml_inj_step

/* Grow *arr (of *n elements of `size`) by one zeroed element; NULL when
 * out of memory. */
static void *push(void **arr, size_t *n, size_t size)
{
    void *a = realloc(*arr, (*n + 1u) * size);
    if (!a)
        return NULL;
    *arr = a;
    void *e = (char *)a + *n * size;
    memset(e, 0, size);
    (*n)++;
    return e;
}

/* The writer, opened at the first launch (the device is known then). */
static cml_tf_writer *writer(CUcontext ctx)
{
    if (g.w || g.failed)
        return g.w;
    g.w = cml_inj_open_writer(g.out, ctx, g.launch, g.budget, g.command);
    if (!g.w)
        g.failed = 1;
    return g.w;
}

static void close_writer(void)
{
    pthread_mutex_lock(&g.lock);
    if (g.on && !g.w && !g.failed)
        writer(NULL); /* no launch at all: still a trace, of nothing */
    if (g.w && cml_tf_writer_close(g.w) != 0)
        say("the trace could not be written whole", g.out);
    g.w = NULL;
    g.on = 0;
    pthread_mutex_unlock(&g.lock);
}

/* ---- modules --------------------------------------------------------------- */

/* Save a module's cubin beside the trace (OUT.cubins/module-ID.cubin), for
 * mapping PCs to SASS and lines; "" in path when it could not be. */
static void save_cubin(const Sanitizer_ResourceModuleData *m, uint64_t id, char *path,
                       size_t len)
{
    path[0] = '\0';
    if (!g.cubins || !m->pCubin || m->cubinSize == 0)
        return;
    char dir[900];
    snprintf(dir, sizeof dir, "%s.cubins", g.out);
    mkdir(dir, 0777);
    snprintf(path, len, "%s/module-%llu.cubin", dir, (unsigned long long)id);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(m->pCubin, 1, m->cubinSize, f) != m->cubinSize) {
        path[0] = '\0';
    }
    if (f && fclose(f) != 0)
        path[0] = '\0';
}

static void module_loaded(const Sanitizer_ResourceModuleData *m)
{
    size_t c = 0;
    while (c < g.nctxs && g.ctxs[c] != m->context)
        c++;
    if (c == g.nctxs) {
        /* the patches, once per context */
        step("loading the patches", g.patches);
        if (sanitizerAddPatchesFromFile(g.patches, m->context) != SANITIZER_SUCCESS) {
            static int said; /* once, not at every module */
            if (!said++)
                say("cannot load the patches (a fatbin without this GPU's architecture?): "
                    "nothing is recorded",
                    g.patches);
            return;
        }
        CUcontext *slot = push((void **)&g.ctxs, &g.nctxs, sizeof *g.ctxs);
        if (slot)
            *slot = m->context;
    }
    step("patching a module", NULL);
    if (sanitizerPatchInstructions(SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS, m->module,
                                   "cml_trace_global") != SANITIZER_SUCCESS ||
        sanitizerPatchInstructions(SANITIZER_INSTRUCTION_SHARED_MEMORY_ACCESS, m->module,
                                   "cml_trace_shared") != SANITIZER_SUCCESS ||
        sanitizerPatchInstructions(SANITIZER_INSTRUCTION_LOCAL_MEMORY_ACCESS, m->module,
                                   "cml_trace_local") != SANITIZER_SUCCESS ||
        sanitizerPatchModule(m->module) != SANITIZER_SUCCESS) {
        say("cannot patch a module", NULL);
        return;
    }
    module_info *mi = push((void **)&g.mods, &g.nmods, sizeof *g.mods);
    if (!mi)
        return;
    mi->module = m->module;
    mi->id = g.nmods;
    save_cubin(m, mi->id, mi->cubin, sizeof mi->cubin);
    step("module patched", NULL);
}

static const module_info *module_of(CUmodule mod)
{
    for (size_t i = 0; i < g.nmods; i++)
        if (g.mods[i].module == mod)
            return &g.mods[i];
    return NULL;
}

/* ---- launches -------------------------------------------------------------- */

static func_info *function_of(const char *name, CUmodule mod)
{
    for (size_t i = 0; i < g.nfns; i++)
        if (g.fns[i].module == mod && !strcmp(g.fns[i].name, name))
            return &g.fns[i];
    func_info *f = push((void **)&g.fns, &g.nfns, sizeof *g.fns);
    if (!f)
        return NULL;
    f->name = strdup(name);
    f->module = mod;
    f->id = UINT32_MAX; /* no FUNC chunk yet */
    f->outside = UINT32_MAX;
    if (!f->name) {
        g.nfns--;
        return NULL;
    }
    return f;
}

/* A FUNC chunk (the next id); UINT32_MAX when it could not be written. */
static uint32_t write_func(const char *name, const char *demangled, CUmodule mod)
{
    const module_info *mi = module_of(mod);
    cml_tf_func f = {g.nfuncs_written, name, demangled ? demangled : "", mi ? mi->id : 0,
                     mi ? mi->cubin : ""};
    if (!g.w || cml_tf_write_func(g.w, &f) != 0)
        return UINT32_MAX;
    return g.nfuncs_written++;
}

#define chosen cml_inj_chosen

/* The stride: the smallest power of two that lets the sample's warps fit
 * the buffer at GUESS_PER_WARP records each. */
static uint64_t pick_stride(uint64_t warps, uint64_t capacity)
{
    uint64_t s = 1;
    while (s < warps && (warps + s - 1u) / s * GUESS_PER_WARP > capacity)
        s *= 2u;
    return s < warps ? s : warps > 0 ? warps : 1; /* never 0: it divides */
}

static void launch_begin(const Sanitizer_LaunchData *d)
{
    /* every launch's patches see NULL unless it is traced */
    sanitizerSetLaunchCallbackData(d->hLaunch, d->function, d->hStream, NULL);
    func_info *fn = function_of(d->functionName, d->module);
    if (!fn)
        return;
    const uint64_t index = fn->launches++;
    if (index != g.launch)
        return; /* before the names are compared: most launches end here */
    char *dem = cml_inj_demangle(d->functionName);
    if (!chosen(d->functionName, dem) || !writer(d->context)) {
        free(dem);
        return;
    }
    if (fn->id == UINT32_MAX)
        fn->id = write_func(d->functionName, dem, d->module);
    free(dem);
    step("tracing a launch of", d->functionName);
    if (fn->id == UINT32_MAX)
        return;

    pending p;
    memset(&p, 0, sizeof p);
    p.launch = d->hLaunch;
    p.ctx = d->context;
    p.stream = d->hStream;
    p.fn = (size_t)(fn - g.fns);
    p.launch_index = index;
    p.grid[0] = d->gridDim_x;
    p.grid[1] = d->gridDim_y;
    p.grid[2] = d->gridDim_z;
    p.block[0] = d->blockDim_x;
    p.block[1] = d->blockDim_y;
    p.block[2] = d->blockDim_z;
    int smem = 0;
    if (cuFuncGetAttribute(&smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, d->function) ==
        CUDA_SUCCESS)
        p.smem = (uint64_t)smem; /* static only: the dynamic size is not in the launch data */
    if (sanitizerGetFunctionPcAndSize(d->module, d->functionName, &p.pc, &p.size) !=
        SANITIZER_SUCCESS)
        p.pc = p.size = 0;
    const uint64_t threads = (uint64_t)p.block[0] * p.block[1] * p.block[2];
    const uint64_t wpb = (threads + 31u) / 32u;
    const uint64_t warps = (uint64_t)p.grid[0] * p.grid[1] * p.grid[2] * wpb;
    p.host.warps_per_block = wpb;
    p.host.capacity = g.budget / sizeof(cml_inject_rec);
    p.host.stride = pick_stride(warps, p.host.capacity);
    const uint64_t sample = (warps + p.host.stride - 1u) / p.host.stride;
    p.lost_words = (size_t)((sample + 31u) / 32u);
    void *recs = NULL, *lost = NULL, *ctl = NULL;
    if (sanitizerAlloc(d->context, &recs, p.host.capacity * sizeof(cml_inject_rec)) !=
            SANITIZER_SUCCESS ||
        sanitizerAlloc(d->context, &lost, p.lost_words * 4u) != SANITIZER_SUCCESS ||
        sanitizerAlloc(d->context, &ctl, sizeof(cml_inject_ctl)) != SANITIZER_SUCCESS) {
        say("cannot allocate the trace buffer (a smaller --budget?)", fn->name);
        if (recs)
            sanitizerFree(d->context, recs);
        if (lost)
            sanitizerFree(d->context, lost);
        return;
    }
    p.host.recs = recs;
    p.host.lost = lost;
    p.dev = ctl;
    sanitizerMemset(lost, 0, p.lost_words * 4u, d->hStream);
    sanitizerMemcpyHostToDeviceAsync(ctl, &p.host, sizeof p.host, d->hStream);
    sanitizerSetLaunchCallbackData(d->hLaunch, d->function, d->hStream, ctl);
    pending *slot = push((void **)&g.pend, &g.npend, sizeof *g.pend);
    if (slot)
        *slot = p;
}

/* The drained buffer as a KERN chunk (inject_drain.c does the work). */
static void write_launch(pending *p, const cml_inject_rec *recs, size_t n, const unsigned *lost)
{
    func_info *fn = &g.fns[p->fn];
    cml_tf_ins *ins = malloc((n ? n : 1u) * sizeof *ins);
    cml_inject_launch l;
    memset(&l, 0, sizeof l);
    memcpy(l.grid, p->grid, sizeof l.grid);
    memcpy(l.block, p->block, sizeof l.block);
    l.warps_per_block = p->host.warps_per_block;
    l.stride = p->host.stride;
    l.pc = p->pc;
    l.size = p->size;
    l.func = fn->id;
    l.outside = fn->outside;
    cml_tf_kernel k;
    memset(&k, 0, sizeof k);
    size_t outside = 0;
    const size_t m = ins ? cml_inject_drain(&l, recs, n, lost, p->lost_words, ins, &k, &outside)
                         : (size_t)-1;
    if (m == (size_t)-1) {
        say("out of memory draining a launch", fn->name);
        free(ins);
        return;
    }
    if (outside && fn->outside == UINT32_MAX) {
        /* PCs in functions the kernel called: a FUNC of their own, once */
        char name[600];
        snprintf(name, sizeof name, "(called from %s)", fn->name);
        fn->outside = write_func(name, NULL, fn->module);
        for (size_t i = 0; i < m; i++)
            if (ins[i].func == UINT32_MAX)
                ins[i].func = fn->outside == UINT32_MAX ? fn->id : fn->outside;
    }
    k.func = fn->id;
    k.launch = p->launch_index;
    k.smem = p->smem;
    if (cml_tf_write_kernel(g.w, &k, ins, m) != 0)
        say("cannot write a launch to the trace", fn->name);
    free(ins);
}

static void launch_end(const Sanitizer_LaunchData *d)
{
    size_t i = 0;
    while (i < g.npend && g.pend[i].launch != d->hLaunch)
        i++;
    if (i == g.npend)
        return;
    pending p = g.pend[i];
    g.pend[i] = g.pend[--g.npend];
    step("draining a launch of", g.fns[p.fn].name);
    cml_inject_ctl ctl;
    cml_inject_rec *recs = NULL;
    unsigned *lost = calloc(p.lost_words ? p.lost_words : 1u, sizeof *lost);
    if (sanitizerStreamSynchronize(p.stream) != SANITIZER_SUCCESS ||
        sanitizerMemcpyDeviceToHost(&ctl, p.dev, sizeof ctl, p.stream) != SANITIZER_SUCCESS) {
        say("a traced launch failed; nothing of it is recorded", g.fns[p.fn].name);
    } else {
        const uint64_t n = ctl.used < ctl.capacity ? ctl.used : ctl.capacity;
        recs = malloc((n ? n : 1u) * sizeof *recs);
        if (recs && lost &&
            sanitizerMemcpyDeviceToHost(recs, p.host.recs, n * sizeof *recs, p.stream) ==
                SANITIZER_SUCCESS &&
            sanitizerMemcpyDeviceToHost(lost, p.host.lost, p.lost_words * 4u, p.stream) ==
                SANITIZER_SUCCESS)
            write_launch(&p, recs, (size_t)n, lost);
        else
            say("cannot read a launch's records back", g.fns[p.fn].name);
    }
    free(recs);
    free(lost);
    sanitizerFree(p.ctx, p.host.recs);
    sanitizerFree(p.ctx, p.host.lost);
    sanitizerFree(p.ctx, p.dev);
    step("launch written", g.fns[p.fn].name);
}

static void SANITIZERAPI on_callback(void *user, Sanitizer_CallbackDomain domain,
                                     Sanitizer_CallbackId cbid, const void *data)
{
    (void)user;
    /* > 0 inside one of this thread's callbacks: what comes now was raised
     * by the library's own call (the patches' module loading, a buffer's
     * memset or copy), and the mutex is this thread's already */
    static __thread int depth;
    if (cml_inj_verbose)
        fprintf(stderr, "cumemlab trace: [step] callback domain %d id %d%s\n", (int)domain,
                (int)cbid, depth > 0 ? " (the library's own: let through)" : "");
    if (depth > 0)
        return;
    depth++;
    pthread_mutex_lock(&g.lock);
    if (g.on) {
        if (domain == SANITIZER_CB_DOMAIN_RESOURCE && cbid == SANITIZER_CBID_RESOURCE_MODULE_LOADED)
            module_loaded(data);
        else if (domain == SANITIZER_CB_DOMAIN_LAUNCH && cbid == SANITIZER_CBID_LAUNCH_BEGIN)
            launch_begin(data);
        else if (domain == SANITIZER_CB_DOMAIN_LAUNCH && cbid == SANITIZER_CBID_LAUNCH_END)
            launch_end(data);
    }
    pthread_mutex_unlock(&g.lock);
    depth--;
}

/* Called by the CUDA driver when it loads the library, and by the
 * library's own constructor (NVIDIA's samples subscribe from a global
 * initializer): whichever comes first sets up, the other returns what it
 * did. 1 is success, as CUDA's injection samples return: the first GPU run
 * returned 0 from the driver's call (the constructor had set up already),
 * and the driver then unloaded the library mid-run, its callbacks still
 * subscribed: the traced program died at the next callback, having written
 * a trace of a header only (bench/results/h100/2026-11-28-trace/). The
 * library is also linked -z nodelete, so no unload can leave a callback
 * pointing at unmapped code (CML_INJ_ENTRY, at the end, is both). */

/* 1: subscribed; 0: nothing is traced (said), and the driver may unload
 * the library. */
static int setup(void)
{
    cml_inj_verbose = cml_inj_env_u64("CML_TRACE_VERBOSE", 0) == 1;
    step("setting up", NULL);
    g.out = getenv("CML_TRACE_OUT");
    g.patches = getenv("CML_TRACE_PATCHES");
    if (!g.out || !*g.out || !g.patches || !*g.patches) {
        say("CML_TRACE_OUT and CML_TRACE_PATCHES are not set: nothing is traced (run the "
            "program through cumemlab trace)", NULL);
        return 0;
    }
    if (cml_inj_filter_init() != 0)
        return 0;
    g.command = getenv("CML_TRACE_COMMAND") ? getenv("CML_TRACE_COMMAND") : "";
    g.launch = cml_inj_env_u64("CML_TRACE_LAUNCH", 0);
    g.cubins = cml_inj_env_u64("CML_TRACE_CUBINS", 0) == 1;
    g.budget = cml_inj_env_u64("CML_TRACE_BUDGET", (uint64_t)256 << 20);
    Sanitizer_SubscriberHandle handle;
    step("subscribing", NULL);
    if (sanitizerSubscribe(&handle, on_callback, NULL) != SANITIZER_SUCCESS ||
        sanitizerEnableDomain(1, handle, SANITIZER_CB_DOMAIN_RESOURCE) != SANITIZER_SUCCESS ||
        sanitizerEnableDomain(1, handle, SANITIZER_CB_DOMAIN_LAUNCH) != SANITIZER_SUCCESS) {
        say("cannot subscribe to the Compute Sanitizer API's callbacks", NULL);
        return 0;
    }
    g.on = 1;
    atexit(close_writer);
    step("subscribed", NULL);
    return 1;
}

CML_INJ_ENTRY(setup)
