/*
 * The GPU harness of a build without CUDA (cmake -DCUMEMLAB_CUDA=OFF, or no
 * nvcc when cumemlab was configured). It stands in for the harness's files
 * that call the CUDA runtime (check.c, gpu.c, host_memory.c, kernel_info.c,
 * pitch.c: CMakeLists.txt leaves out every .c file of src/gpu that includes
 * a CUDA header) and defines each of their entry points:
 *
 *   - cml_gpu_count() finds no device and says why (NO_CUDA_WHY), so the
 *     command line, the engine and the tests run the model alone;
 *   - cml_gpu_open() fails with CML_ENOGPU and the same reason, so no
 *     cml_gpu (nor a cml_xfer, which needs one) ever exists in this build;
 *   - everything that takes a device fails with CML_ENOGPU, or does nothing
 *     (close, free: NULL and empty handles are always accepted), leaving
 *     its outputs empty;
 *   - the pure host helpers (names of memory kinds, the monotonic clock)
 *     work as in host_memory.c.
 *
 * The kernels' launchers (.cu files) and the run-time modules (module.c)
 * are not here: they are weak references in this build (gpu/launcher.h),
 * reached only through an open device.
 * The counters (src/counters/counters.c) build as their own stub, which
 * answers "unavailable" to every request.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime in strict C11 */

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gpu/gpu_internal.h"
#include "gpu/host_memory.h"
#include "gpu/kernel_info.h"
#include "gpu/pitch.h"

#if !defined(CML_NO_CUDA)
#error "gpu_none.c is the harness of a build without CUDA (CML_NO_CUDA)"
#endif

/* The reason; whoever reports it adds what happens next ("the model alone
 * runs", "run needs a GPU"). */
#define NO_CUDA_WHY "this cumemlab was built without CUDA (-DCUMEMLAB_CUDA=OFF or no nvcc)"

static char last_error[320];

static void say(char *buf, size_t len, const char *msg)
{
    if (buf && len)
        snprintf(buf, len, "%s", msg);
}

/* ---- gpu.h ------------------------------------------------------------ */

int cml_gpu_count(char *why, size_t whylen)
{
    say(why, whylen, NO_CUDA_WHY);
    return 0;
}

cml_status cml_gpu_open(int index, cml_gpu **out, char *err, size_t errlen)
{
    (void)index;
    if (!out) {
        say(err, errlen, "cml_gpu_open: no output pointer");
        return CML_EINVAL;
    }
    *out = NULL;
    say(err, errlen, NO_CUDA_WHY);
    return CML_ENOGPU;
}

void cml_gpu_close(cml_gpu *g)
{
    (void)g;
}

const cml_device_facts *cml_gpu_facts(const cml_gpu *g)
{
    (void)g;
    return NULL;
}

const char *cml_gpu_error(const cml_gpu *g)
{
    (void)g;
    return last_error;
}

cml_status cml_gpu_alloc(cml_gpu *g, cml_dbuf *b, size_t bytes)
{
    (void)g;
    (void)bytes;
    if (b)
        memset(b, 0, sizeof *b);
    return CML_ENOGPU;
}

void cml_gpu_free(cml_gpu *g, cml_dbuf *b)
{
    (void)g;
    if (b)
        memset(b, 0, sizeof *b);
}

cml_status cml_gpu_mem_info(cml_gpu *g, size_t *free_bytes, size_t *total_bytes)
{
    (void)g;
    if (free_bytes)
        *free_bytes = 0;
    if (total_bytes)
        *total_bytes = 0;
    return CML_ENOGPU;
}

cml_status cml_gpu_upload(cml_gpu *g, cml_dbuf *dst, const void *src, size_t bytes)
{
    (void)g;
    (void)dst;
    (void)src;
    (void)bytes;
    return CML_ENOGPU;
}

cml_status cml_gpu_download(cml_gpu *g, void *dst, const cml_dbuf *src, size_t bytes)
{
    (void)g;
    (void)dst;
    (void)src;
    (void)bytes;
    return CML_ENOGPU;
}

void cml_gpu_set_buffer_hook(cml_gpu *g, cml_buffer_hook hook, void *user)
{
    (void)g;
    (void)hook;
    (void)user;
}

uint64_t cml_gpu_next_alloc(const cml_gpu *g)
{
    (void)g;
    return 0; /* as gpu.c for a NULL device */
}

cml_status cml_gpu_fill_f32(cml_gpu *g, cml_dbuf *b, size_t count, uint64_t seed)
{
    (void)g;
    (void)b;
    (void)count;
    (void)seed;
    return CML_ENOGPU;
}

cml_status cml_gpu_poison(cml_gpu *g, cml_dbuf *b)
{
    (void)g;
    (void)b;
    return CML_ENOGPU;
}

double cml_gpu_timed_seconds(const cml_gpu *g)
{
    (void)g;
    return 0.0;
}

double cml_gpu_phase_seconds(const cml_gpu *g, cml_gpu_phase phase)
{
    (void)g;
    (void)phase;
    return 0.0;
}

void cml_gpu_phase_add(cml_gpu *g, cml_gpu_phase phase, double seconds)
{
    (void)g;
    (void)phase;
    (void)seconds;
}

double cml_gpu_clock(void)
{
    return 0.0;
}

cml_status cml_gpu_time(cml_gpu *g, cml_launch_fn launch, void *ctx, unsigned warmup,
                        unsigned reps, cml_timing *out)
{
    (void)g;
    (void)launch;
    (void)ctx;
    (void)warmup;
    (void)reps;
    if (out)
        memset(out, 0, sizeof *out);
    return CML_ENOGPU;
}

void cml_gpu_set_warm_before(cml_gpu *g, int on)
{
    (void)g;
    (void)on;
}

void cml_gpu_set_noise_limit(cml_gpu *g, double target_cv, unsigned max_factor)
{
    (void)g;
    (void)target_cv;
    (void)max_factor;
}

cml_status cml_gpu_occupancy(cml_gpu *g, const void *kernel, unsigned block, size_t smem,
                             double *fraction)
{
    (void)g;
    (void)kernel;
    (void)block;
    (void)smem;
    if (fraction)
        *fraction = 0.0;
    return CML_ENOGPU;
}

cml_status cml_gpu_check(int cuda_error, const char *expr, const char *file, int line)
{
    if (cuda_error == 0)
        return CML_OK;
    snprintf(last_error, sizeof last_error, "%s failed at %s:%d: error %d; %s",
             expr ? expr : "?", file ? file : "?", line, cuda_error, NO_CUDA_WHY);
    return CML_ECUDA;
}

/* ---- gpu_internal.h ----------------------------------------------------- */

const char *cml_gpu_last_error(void)
{
    return last_error;
}

void cml_gpu_clear_last_error(void)
{
    last_error[0] = '\0';
}

void cml_gpu_set_last_error_v(const char *fmt, va_list ap)
{
    vsnprintf(last_error, sizeof last_error, fmt, ap);
}

uint64_t cml_gpu_take_alloc_number(cml_gpu *g)
{
    (void)g;
    return 0;
}

int cml_gpu_buffer_event(cml_gpu *g, uint64_t seq, cml_buffer_event event)
{
    (void)g;
    (void)seq;
    (void)event;
    return CML_BUFFER_FREE_NOW;
}

void cml_gpu_release_kept(cml_gpu *g)
{
    (void)g;
}

size_t cml_gpu_kept_bytes(const cml_gpu *g)
{
    (void)g;
    return 0;
}

/* ---- host_memory.h ------------------------------------------------------ */

cml_status cml_mem_alloc(cml_gpu *g, cml_mem *m, cml_mem_kind kind, size_t bytes)
{
    (void)g;
    (void)bytes;
    if (m) {
        memset(m, 0, sizeof *m);
        m->kind = kind;
    }
    return CML_ENOGPU;
}

void cml_mem_free(cml_gpu *g, cml_mem *m)
{
    (void)g;
    if (m)
        memset(m, 0, sizeof *m);
}

cml_status cml_mem_device_pointer(cml_gpu *g, const cml_mem *m, void **dptr)
{
    (void)g;
    (void)m;
    if (dptr)
        *dptr = NULL;
    return CML_ENOGPU;
}

cml_status cml_gpu_memory_info(cml_gpu *g, size_t *free_b, size_t *total_b)
{
    (void)g;
    if (free_b)
        *free_b = 0;
    if (total_b)
        *total_b = 0;
    return CML_ENOGPU;
}

cml_status cml_mem_alloc_cost(cml_gpu *g, cml_mem_kind kind, size_t bytes, unsigned reps,
                              double *alloc_ms, double *free_ms)
{
    (void)g;
    (void)kind;
    (void)bytes;
    (void)reps;
    (void)alloc_ms;
    (void)free_ms;
    return CML_ENOGPU;
}

cml_status cml_gpu_pcie_link(cml_gpu *g, double *gts, int *width)
{
    (void)g;
    if (gts)
        *gts = 0.0;
    if (width)
        *width = 0;
    return CML_ENOGPU;
}

cml_status cml_xfer_open(cml_gpu *g, cml_xfer **out)
{
    (void)g;
    if (out)
        *out = NULL;
    return CML_ENOGPU;
}

void cml_xfer_close(cml_xfer *x)
{
    (void)x;
}

cml_gpu *cml_xfer_gpu(const cml_xfer *x)
{
    (void)x;
    return NULL;
}

cml_status cml_xfer_copy(cml_xfer *x, void *dst, const void *src, size_t bytes, cml_dir dir)
{
    (void)x;
    (void)dst;
    (void)src;
    (void)bytes;
    (void)dir;
    return CML_ENOGPU;
}

cml_status cml_xfer_time_copy(cml_xfer *x, void *dst, const void *src, size_t bytes, cml_dir dir,
                              cml_copy_api api, unsigned warmup, unsigned reps, cml_timing *out)
{
    (void)x;
    (void)dst;
    (void)src;
    (void)bytes;
    (void)dir;
    (void)api;
    (void)warmup;
    (void)reps;
    if (out)
        memset(out, 0, sizeof *out);
    return CML_ENOGPU;
}

cml_status cml_xfer_time_both(cml_xfer *x, void *d_dst, const void *h_src, void *h_dst,
                              const void *d_src, size_t bytes, unsigned warmup, unsigned reps,
                              cml_timing *out)
{
    (void)x;
    (void)d_dst;
    (void)h_src;
    (void)h_dst;
    (void)d_src;
    (void)bytes;
    (void)warmup;
    (void)reps;
    if (out)
        memset(out, 0, sizeof *out);
    return CML_ENOGPU;
}

cml_status cml_xfer_start(cml_xfer *x)
{
    (void)x;
    return CML_ENOGPU;
}

cml_status cml_xfer_stop(cml_xfer *x, double *ms)
{
    (void)x;
    if (ms)
        *ms = 0.0;
    return CML_ENOGPU;
}

cml_status cml_xfer_launch(cml_xfer *x, cml_launch_fn launch, void *ctx)
{
    (void)x;
    (void)launch;
    (void)ctx;
    return CML_ENOGPU;
}

cml_status cml_xfer_prefetch(cml_xfer *x, const void *p, size_t bytes)
{
    (void)x;
    (void)p;
    (void)bytes;
    return CML_ENOGPU;
}

cml_status cml_xfer_memset(cml_xfer *x, void *p, int value, size_t bytes)
{
    (void)x;
    (void)p;
    (void)value;
    (void)bytes;
    return CML_ENOGPU;
}

cml_status cml_xfer_sync(cml_xfer *x)
{
    (void)x;
    return CML_ENOGPU;
}

/* ---- kernel_info.h, pitch.h ---------------------------------------------- */

cml_status cml_gpu_kernel_info(cml_gpu *g, const void *kernel, cml_kernel_info *out)
{
    (void)g;
    (void)kernel;
    if (out)
        memset(out, 0, sizeof *out);
    return CML_ENOGPU;
}

cml_status cml_gpu_one_block_per_sm(cml_gpu *g, const void *kernel, unsigned block, size_t smem,
                                    size_t *dyn)
{
    (void)g;
    (void)kernel;
    (void)block;
    (void)smem;
    if (dyn)
        *dyn = 0;
    return CML_ENOGPU;
}

cml_status cml_gpu_alloc_pitch(cml_gpu *g, cml_dbuf *b, size_t row_bytes, size_t height,
                               size_t *pitch_bytes)
{
    (void)g;
    (void)row_bytes;
    (void)height;
    if (b)
        memset(b, 0, sizeof *b);
    if (pitch_bytes)
        *pitch_bytes = 0;
    return CML_ENOGPU;
}

cml_status cml_gpu_pitch_for(cml_gpu *g, size_t row_bytes, size_t *pitch_bytes)
{
    (void)g;
    (void)row_bytes;
    if (pitch_bytes)
        *pitch_bytes = 0;
    return CML_ENOGPU;
}

/* ---- topology.c ----------------------------------------------------------- */

cml_status cml_gpu_link_between(int a, int b, cml_gpu_link *out)
{
    (void)a;
    (void)b;
    if (out) {
        out->peer_access = 0;
        out->performance_rank = -1;
        out->native_atomics = 0;
    }
    return CML_ENOGPU;
}

cml_status cml_gpu_enable_peer(int a, int b)
{
    (void)a;
    (void)b;
    return CML_ENOGPU;
}
