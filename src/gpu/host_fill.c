/* Host passes over copy buffers on up to 8 threads (host_fill.h). */
#define _POSIX_C_SOURCE 200809L /* pthreads and sysconf in strict C11 */

#include "gpu/host_fill.h"

#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "core/random.h"

enum { HP_FILL = 0, HP_POISON, HP_COMPARE };

typedef struct hp_job {
    int op;
    unsigned char *a;       /* fill / poison target, or the first compared buffer */
    const unsigned char *b; /* the second compared buffer */
    size_t lo, hi;          /* byte range [lo, hi), lo a multiple of 4 */
    size_t total;           /* bytes of the whole buffer (fill: the partial last float) */
    uint64_t seed;
    size_t first_bad;       /* compare: first differing byte, or SIZE_MAX */
} hp_job;

static void hp_fill(hp_job *j)
{
    float *f = (float *)(void *)j->a;
    const size_t whole = j->total / 4;
    for (size_t i = j->lo / 4; i < j->hi / 4 && i < whole; i++)
        f[i] = cml_random_f32(j->seed, i);
    if (j->hi == j->total && j->total % 4) {
        float last = cml_random_f32(j->seed, whole);
        memcpy(j->a + 4 * whole, &last, j->total % 4);
    }
}

static void *hp_run(void *arg)
{
    hp_job *j = arg;
    switch (j->op) {
    case HP_FILL: hp_fill(j); break;
    case HP_POISON: memset(j->a + j->lo, 0xFF, j->hi - j->lo); break;
    default:
        j->first_bad = SIZE_MAX;
        if (memcmp(j->a + j->lo, j->b + j->lo, j->hi - j->lo) != 0) {
            size_t i = j->lo;
            while (i < j->hi && j->a[i] == j->b[i])
                i++;
            j->first_bad = i;
        }
        break;
    }
    return NULL;
}

/* A pass's part (cml_host_parallel over 4-byte words, so that no part
 * splits a float): each part's own job and first differing byte. */
typedef struct hp_pass {
    hp_job job[CML_HOST_MAX_PARTS];
    hp_job proto;
} hp_pass;

static void hp_part(void *user, size_t part, size_t lo, size_t hi)
{
    hp_pass *p = user;
    hp_job *j = &p->job[part];
    *j = p->proto;
    j->lo = 4 * lo < j->total ? 4 * lo : j->total;
    j->hi = 4 * hi < j->total ? 4 * hi : j->total;
    hp_run(j);
}

/* One pass over `bytes`, one part per 32 MiB at most on the host's cores.
 * Returns the first differing byte of a compare, SIZE_MAX if none. */
static size_t host_pass(int op, void *a, const void *b, size_t bytes, uint64_t seed)
{
    hp_pass p;
    memset(&p, 0, sizeof p);
    p.proto.op = op;
    p.proto.a = a;
    p.proto.b = b;
    p.proto.total = bytes;
    p.proto.seed = seed;
    p.proto.first_bad = SIZE_MAX;
    const size_t words = (bytes + 3) / 4;
    size_t parts = cml_host_parallel(words, (size_t)1 << 23, hp_part, &p);
    size_t bad = SIZE_MAX;
    for (size_t k = 0; k < parts; k++)
        if (p.job[k].first_bad < bad)
            bad = p.job[k].first_bad;
    return bad;
}

void cml_host_fill_random(void *p, size_t bytes, uint64_t seed)
{
    (void)host_pass(HP_FILL, p, NULL, bytes, seed);
}

void cml_host_poison(void *p, size_t bytes)
{
    (void)host_pass(HP_POISON, p, NULL, bytes, 0);
}

int cml_host_same(const void *a, const void *b, size_t bytes, size_t *first_bad)
{
    size_t bad = host_pass(HP_COMPARE, (void *)a, b, bytes, 0);
    if (bad == SIZE_MAX)
        return 1;
    *first_bad = bad;
    return 0;
}

typedef struct par_job {
    void (*fn)(void *user, size_t part, size_t lo, size_t hi);
    void *user;
    size_t part, lo, hi;
} par_job;

static void *par_run(void *arg)
{
    par_job *j = arg;
    j->fn(j->user, j->part, j->lo, j->hi);
    return NULL;
}

size_t cml_host_parallel(size_t n, size_t min_per_part,
                         void (*fn)(void *user, size_t part, size_t lo, size_t hi), void *user)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t parts = min_per_part ? n / min_per_part : n;
    if (parts > CML_HOST_MAX_PARTS)
        parts = CML_HOST_MAX_PARTS;
    if (cpus > 0 && parts > (size_t)cpus)
        parts = (size_t)cpus;
    if (parts == 0)
        parts = 1;
    par_job jobs[CML_HOST_MAX_PARTS];
    pthread_t th[CML_HOST_MAX_PARTS];
    int started[CML_HOST_MAX_PARTS] = {0};
    const size_t chunk = n / parts + (n % parts != 0);
    for (size_t k = 0; k < parts; k++) {
        par_job *j = &jobs[k];
        j->fn = fn;
        j->user = user;
        j->part = k;
        j->lo = k * chunk < n ? k * chunk : n;
        j->hi = (k + 1) * chunk < n ? (k + 1) * chunk : n;
        if (k > 0)
            started[k] = pthread_create(&th[k], NULL, par_run, j) == 0;
    }
    par_run(&jobs[0]);
    for (size_t k = 1; k < parts; k++) {
        if (started[k])
            pthread_join(th[k], NULL);
        else
            par_run(&jobs[k]);
    }
    return parts;
}
