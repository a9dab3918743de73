/*
 * The hierarchy experiment's model (docs/experiments/hierarchy.md): the
 * capacity rule that says which level serves a working set, the level the
 * hardware counters show, the launch geometry, and the mirrors: the
 * kernels' bodies (hierarchy_body.h) on the model's arrays. Pure C: no GPU
 * needed.
 */
#include <math.h>
#include <string.h>

#include "experiments/hierarchy/hierarchy_body.h"
#include "lab/common.h"

#define KIB 1024ull
#define MIB (1024ull * 1024ull)

static const char *const level_names[CML_HIER_LEVEL_COUNT] = {"L1",   "L1/L2", "L2",
                                                             "L2/DRAM", "DRAM", "DRAM+TLB"};
static const double level_codes[CML_HIER_LEVEL_COUNT] = {1.0, 1.5, 2.0, 2.5, 3.0, 4.0};

const char *cml_hier_level_name(cml_hier_level level)
{
    return (unsigned)level < CML_HIER_LEVEL_COUNT ? level_names[level] : "?";
}

double cml_hier_level_code(cml_hier_level level)
{
    return (unsigned)level < CML_HIER_LEVEL_COUNT ? level_codes[level] : NAN;
}

/* The capacities of `dev` (NULL: an H100 SXM's: 228 KiB, 50 MiB, 132 SMs):
 * L1 per SM = the largest shared-memory carve-out per SM (the unified
 * L1/shared array less the part no carve-out can take; see the doc). */
void cml_hier_caps_of(const cml_device_facts *dev, uint64_t tlb_reach, cml_hier_caps *out)
{
    memset(out, 0, sizeof *out);
    out->tlb_reach = tlb_reach;
    if (dev && dev->shared_per_sm && dev->l2_bytes && dev->sm_count > 0) {
        out->l1_bytes = dev->shared_per_sm;
        out->l2_bytes = dev->l2_bytes;
        out->sms = (unsigned)dev->sm_count;
        out->from_device = 1;
        return;
    }
    /* An H100 SXM: 228 KiB carve-out per SM, 50 MiB of L2, 132 SMs. */
    out->l1_bytes = 228 * KIB;
    out->l2_bytes = 50 * MIB;
    out->sms = 132;
}

/*
 * L1 serves only loads through ca or nc (cg skips it; stores are written
 * through to L2, so write and copy are at best L2); the L1 test compares the
 * whole working set with one SM's L1, because every SM walks all of it.
 */
cml_hier_level cml_hier_predict(const cml_hier_caps *caps, int op, int path, int random,
                                uint64_t ws)
{
    const double w = (double)ws, l1 = (double)caps->l1_bytes, l2 = (double)caps->l2_bytes;
    const int l1_loads = (op == CML_HIER_READ || op == CML_HIER_CHASE) && path != CML_HIER_CG;
    if (l1_loads && w <= CML_HIER_L1_LOW * l1)
        return CML_HIER_L1;
    if (l1_loads && w <= CML_HIER_L1_HIGH * l1)
        return CML_HIER_L1_L2;
    if (w <= CML_HIER_L2_LOW * l2)
        return CML_HIER_L2;
    if (w <= CML_HIER_L2_HIGH * l2)
        return CML_HIER_L2_DRAM;
    if (op == CML_HIER_CHASE && random && caps->tlb_reach && ws > caps->tlb_reach)
        return CML_HIER_DRAM_TLB;
    return CML_HIER_DRAM;
}

void cml_hier_measure_counts(const cml_hier_counts *c, cml_hier_measured *m)
{
    m->l1_hit = c->ld_sectors > 0 ? c->ld_hit_sectors / c->ld_sectors : NAN;
    if (c->l2_read_sectors > 0) {
        double h = 1.0 - c->dram_read / (CML_SECTOR_BYTES * c->l2_read_sectors);
        m->l2_hit = h < 0 ? 0 : h > 1 ? 1 : h;
    } else {
        m->l2_hit = NAN;
    }
    double asked = CML_SECTOR_BYTES * (c->ld_sectors + c->st_sectors);
    m->dram_per_byte = asked > 0 ? (c->dram_read + c->dram_write) / asked : NAN;
}

/* L1 when at least 80% of the load sectors hit in L1 (the edge from 20%);
 * else L2 when DRAM moved at most 0.2 bytes per byte asked for (the edge up
 * to 0.6); else DRAM. Stores never hit in L1, so a copy is at best L2. */
cml_hier_level cml_hier_level_measured(const cml_hier_measured *m, int op)
{
    if (op == CML_HIER_READ || op == CML_HIER_CHASE) {
        if (!isfinite(m->l1_hit))
            return CML_HIER_LEVEL_COUNT;
        if (m->l1_hit >= 0.8)
            return CML_HIER_L1;
        if (m->l1_hit >= 0.2)
            return CML_HIER_L1_L2;
    }
    if (!isfinite(m->dram_per_byte))
        return CML_HIER_LEVEL_COUNT;
    if (m->dram_per_byte <= 0.2)
        return CML_HIER_L2;
    if (m->dram_per_byte <= 0.6)
        return CML_HIER_L2_DRAM;
    return CML_HIER_DRAM;
}

/* The same level, or one of an edge's two sides, or DRAM for DRAM+TLB
 * (counters do not see translation misses). */
int cml_hier_levels_agree(cml_hier_level predicted, cml_hier_level measured)
{
    if (measured >= CML_HIER_LEVEL_COUNT)
        return 0;
    if (predicted == measured)
        return 1;
    switch (predicted) {
    case CML_HIER_L1_L2: return measured == CML_HIER_L1 || measured == CML_HIER_L2;
    case CML_HIER_L2_DRAM: return measured == CML_HIER_L2 || measured == CML_HIER_DRAM;
    case CML_HIER_DRAM_TLB: return measured == CML_HIER_DRAM;
    default: return 0;
    }
}

/* `target` bytes walked per array per launch at least (the working set at
 * least once, by every block together). `walk` CML_HIER_PARTITION: the
 * level is the L2/DRAM edge or beyond, so the grid reads the array
 * partitioned (each pass every byte once) where it holds a word per thread
 * at least; else every block walks all of it (CML_HIER_WHOLE too).
 * CML_HIER_SLICE: min(grid, rows / 16) parts, a block each, every block
 * of a write or copy on a part of its own (the grid cut to the parts). The
 * per-block walk needs 16 rows at least (a step's 16 loads on 16 distinct
 * rows): smaller arrays get rows = 0. */
/*
 * The sliced read (cml_hier_chunk_word): N = rows / 16 pieces of 16 KiB
 * (rows a multiple of 16, else none), chunks of K pieces, K the largest
 * divisor of N up to gpu-l2-cache's 32 (its data sets, multiples of 512
 * KiB, get its very chunks), parts = N / K of them. A block reads R
 * chunks, its own and those after it, R the fewest that make at least 32 pieces (about
 * gpu-l2-cache's 512 KiB a block, so a small set's block still reads long
 * enough to outlast its start) and a whole number of 16-load steps (K x R
 * a multiple of 4). The grid: as many blocks as make `target` bytes, a
 * multiple of the chunks (every chunk read as often).
 */
static void chunk_plan(uint64_t rows, uint64_t target, cml_hier_plan *out)
{
    const uint64_t pieces = rows / CML_HIER_STEP;
    if (rows % CML_HIER_STEP != 0 || pieces == 0) {
        out->rows = 0;
        return;
    }
    uint64_t k = pieces < CML_HIER_CHUNK_PIECES ? pieces : CML_HIER_CHUNK_PIECES;
    while (pieces % k != 0)
        k--;
    const uint64_t steps_of = CML_HIER_CHUNK_BLOCK / CML_HIER_BLOCK; /* pieces a 16-load step */
    uint64_t r = cml_div_up(CML_HIER_CHUNK_PIECES, k);
    while (k * r % steps_of != 0)
        r++;
    out->parts = pieces / k;
    out->chunk = k;
    out->per_block = k * r * CML_HIER_STEP;
    const uint64_t round = out->parts * out->per_block * CML_HIER_ROW_BYTES;
    uint64_t rounds = cml_div_up(target, round);
    if (rounds == 0)
        rounds = 1;
    if (rounds * out->parts > 0x7FFFFFFFu)
        rounds = 0x7FFFFFFFu / out->parts;
    out->grid = (uint32_t)(rounds * out->parts);
    out->launch_bytes = (uint64_t)out->grid * out->per_block * CML_HIER_ROW_BYTES;
}

void cml_hier_plan_bw(uint64_t ws, int op, unsigned sms, unsigned threads_per_sm,
                      uint64_t target, int walk, cml_hier_plan *out)
{
    memset(out, 0, sizeof *out);
    const uint64_t arrays = op == CML_HIER_COPY ? 2 : 1;
    const uint64_t per_sm = threads_per_sm >= CML_HIER_BLOCK ? threads_per_sm / CML_HIER_BLOCK : 1;
    out->sms = sms ? sms : 1;
    out->grid = (uint32_t)(out->sms * per_sm);
    if (ws % (arrays * CML_HIER_ROW_BYTES) != 0 || ws < arrays * CML_HIER_ROW_BYTES)
        return;
    const uint64_t rows_ws = ws / arrays / CML_HIER_ROW_BYTES;
    out->stream = walk == CML_HIER_PARTITION && rows_ws >= out->grid;
    /* Smaller arrays would repeat a row inside a step: loads of one address
     * that the compiler may merge, so fewer bytes move than are counted. */
    if (!out->stream && rows_ws < CML_HIER_STEP)
        return;
    out->rows = rows_ws;
    if (walk == CML_HIER_SLICE && op == CML_HIER_READ) {
        chunk_plan(rows_ws, target, out);
        return;
    }
    if (walk == CML_HIER_SLICE) {
        /* The most equal parts of a step at least, no more than blocks. */
        uint64_t most = rows_ws / CML_HIER_STEP < out->grid ? rows_ws / CML_HIER_STEP : out->grid;
        while (rows_ws % most != 0)
            most--;
        out->parts = most;
        if (op != CML_HIER_READ)
            out->grid = (uint32_t)out->parts;
    }
    /* Every row at least once (partitioned: rows/grid rows' worth of words
     * per thread; sliced: the largest part; else the blocks' first rows are
     * up to a step apart more than rows/grid), and `target` bytes per array. */
    uint64_t need = out->parts ? cml_div_up(out->rows, out->parts)
                               : cml_div_up(out->rows, out->grid) +
                                     (out->stream ? 0 : CML_HIER_STEP);
    uint64_t want = cml_div_up(target, (uint64_t)out->grid * CML_HIER_ROW_BYTES);
    uint64_t rows = need > want ? need : want;
    out->per_block = cml_div_up(rows, CML_HIER_STEP) * CML_HIER_STEP;
    out->launch_bytes = arrays * (uint64_t)out->grid * out->per_block * CML_HIER_ROW_BYTES;
}

void cml_hier_perm_make(cml_hier_perm *q, uint64_t m, int random, uint64_t seed)
{
    memset(q, 0, sizeof *q);
    q->m = m;
    q->identity = !random;
    unsigned k = 1;
    while (k < 63 && ((uint64_t)1 << k) < m)
        k++;
    q->bits = k;
    q->mask = ((uint64_t)1 << k) - 1;
    q->shift = k / 2 + 1;
    q->mul1 = cml_mix64(seed) | 1u;
    q->mul2 = cml_mix64(seed + 1) | 1u;
    q->add = cml_mix64(seed + 2) & q->mask;
    /* Inverses modulo 2^64 by Newton's iteration: each step doubles the
     * correct low bits, from 3 (an odd a is its own inverse modulo 8). */
    uint64_t a = q->mul1, b = q->mul2, x = a, y = b;
    for (int i = 0; i < 5; i++) {
        x *= 2 - a * x;
        y *= 2 - b * y;
    }
    q->inv1 = x;
    q->inv2 = y;
}

#define SEED_PERM 0x41E7000000000002ull

void cml_hier_chase_perm(cml_hier_perm *q, uint64_t ws, uint64_t hop, int random)
{
    cml_hier_perm_make(q, hop ? ws / hop : 0, random, SEED_PERM ^ ws ^ (hop << 40));
}

uint64_t cml_hier_chase_start(const cml_hier_perm *q, uint32_t b, uint32_t warps)
{
    return cml_hier_perm_apply(q, warps ? (uint64_t)b * q->m / warps : 0);
}

/* y = x ^ (x >> s) on k bits, undone. */
static uint64_t unxorshift(uint64_t y, unsigned s, unsigned k)
{
    uint64_t x = y;
    for (unsigned done = s; done < k; done += s)
        x = y ^ (x >> s);
    return x;
}

/* cml_hier_perm_round, undone. */
static uint64_t perm_unround(const cml_hier_perm *q, uint64_t y)
{
    y = unxorshift(y, q->shift, q->bits);
    y = (y * q->inv2) & q->mask;
    y = (y - q->add) & q->mask;
    y = unxorshift(y, q->shift, q->bits);
    return (y * q->inv1) & q->mask;
}

uint64_t cml_hier_perm_invert(const cml_hier_perm *q, uint64_t s)
{
    if (q->identity)
        return s;
    uint64_t x = perm_unround(q, s);
    while (x >= q->m)
        x = perm_unround(q, x);
    return x;
}

/* ---- mirrors -------------------------------------------------------------- */

/*
 * The bandwidth kernel's accesses. A thread's walk is longer than a mirror
 * may emit, so the mirror's grid has one block per (block, step) of the real
 * one: virtual block v is real block v / steps walking step v % steps, its
 * 16 rows through the kernel's own walk (cml_hier_walk, cml_hier_stream).
 * The model counts per warp instruction, so this regrouping gives the
 * kernel's counts; every virtual block moves 128 contiguous, aligned bytes
 * per warp instruction, which makes them all alike (the claim
 * cml_exp_trace_1d checks). The read's sums are the kernel's whole body on
 * the real grid with no rows to walk.
 */
typedef struct bw_mirror {
    const cml_hier_plan *p;
    uint64_t steps; /* per block */
    int op, path;
    int sums;       /* the second part: the read kernel's per-thread sums */
} bw_mirror;

static void bw_thread(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const bw_mirror *a = vargs;
    const cml_hier_plan *p = a->p;
    const cml_ctx c = CML_MIRROR_CTX(t, e);
    const uint32_t *A = CML_ARRAY(const uint32_t, 0);
    uint32_t *C = CML_ARRAY(uint32_t, 1);
    const int small = p->parts ? 0 : (int)cml_hier_small_rows(p->rows);
    if (a->sums) {
        cml_hier_bw_body(c, a->op, a->path, small, p->stream, p->parts, 0, 0, 1, A, C,
                         CML_ARRAY(uint32_t, 2), p->rows, 0, p->grid, 0);
        return;
    }
    const uint64_t b = t->bid.x / a->steps, j = t->bid.x % a->steps * CML_HIER_STEP;
    if (p->chunk)
        cml_hier_chunks(c, a->path, A, p->parts, p->chunk, b, j, CML_HIER_STEP, t->tid.x, 0);
    else if (p->parts)
        cml_hier_slice(c, a->op, a->path, A, C, p->rows, p->parts, b, j, CML_HIER_STEP,
                       t->tid.x, 0, 0);
    else if (p->stream)
        cml_hier_stream(c, a->op, a->path, A, C, p->rows, p->grid,
                        cml_hier_stream_word(b, t->tid.x, p->grid, p->rows, j), CML_HIER_STEP,
                        0, 0);
    else
        cml_hier_walk(c, a->op, a->path, small, A, C, 0, p->rows,
                      cml_hier_row(b, p->grid, p->rows, j), CML_HIER_STEP, t->tid.x, 0, 0);
}

/* rec->model += what `part` adds (traced into rec, then the sum restored). */
static cml_status trace_add(cml_record *rec, uint64_t nblocks, unsigned block, cml_thread_fn fn,
                            const void *args)
{
    cml_kernel_traffic before[CML_RULES_COUNT];
    int had = rec->has_model;
    memcpy(before, rec->model, sizeof before);
    /* The cache levels the trace leaves are replaced by the closed form
     * (hierarchy_levels.c): the kernels walk the working set again and
     * again, far past the blocks the cache simulator samples. */
    cml_status st = cml_exp_trace_1d(rec, nblocks, block, 0, 0, fn, args);
    if (st != CML_OK || !had)
        return st;
    for (int r = 0; r < CML_RULES_COUNT; r++)
        for (int c = 0; c < CML_CLASS_COUNT; c++)
            cml_traffic_add(&rec->model[r].cls[c], &before[r].cls[c]);
    return CML_OK;
}

cml_status cml_hier_trace_bw(cml_record *rec, const cml_hier_plan *p, int op, int path)
{
    if (!p->rows || !p->per_block || op < 0 || op >= CML_HIER_CHASE || path < 0 ||
        path >= CML_HIER_PATH_COUNT)
        return CML_EINVAL;
    if (p->chunk && (op != CML_HIER_READ || !p->parts))
        return CML_EINVAL;
    /* The sliced read's blocks of 1024 make 16 loads a thread per 64 rows;
     * its timed launches store no sums (cml_hier_bw_args.sums). */
    const unsigned block = cml_hier_bw_block(op, p->chunk);
    const uint64_t step_rows = CML_HIER_STEP * block / CML_HIER_BLOCK;
    bw_mirror m = {p, p->per_block / step_rows, op, path, 0};
    rec->has_model = 0;
    cml_status st = trace_add(rec, (uint64_t)p->grid * m.steps, block, bw_thread, &m);
    if (st == CML_OK && op == CML_HIER_READ && !p->chunk) {
        m.sums = 1;
        st = trace_add(rec, p->grid, CML_HIER_BLOCK, bw_thread, &m);
    }
    rec->grid = p->grid;
    rec->block = block;
    return st;
}

/*
 * The chase: a warp a block, every lane on the same pointer. Every warp
 * makes the same instructions, each on one address (one request and one
 * sector whatever the address), from its own place in the cycle, so warp 0
 * is traced and counted `warps` times. Virtual block v of 32 threads makes
 * its hops 16v .. 16v+15 of the first launch, which starts at position 0
 * of the cycle (cml_hier_hops, its loads returning the chain's pointers);
 * the second part is the kernel's whole body with no hops: the cursor load
 * before them and lane 0's stores after them.
 */
typedef struct chase_mirror {
    cml_hier_chain chain;
    int path;
    int ends;
} chase_mirror;

static void chase_thread(const cml_thread *t, const void *vargs, cml_emitter *e)
{
    const chase_mirror *a = vargs;
    const cml_ctx c = CML_MIRROR_CTX(t, e);
    if (a->ends) {
        cml_hier_chase_body(c, a->path, CML_ARRAY(uint64_t, 4), CML_ARRAY(uint64_t, 5), 0,
                            &a->chain, 0);
        return;
    }
    const uint64_t pos = (uint64_t)t->bid.x * CML_HIER_STEP;
    cml_hier_hops(c, a->path, cml_hier_chain_ptr(&a->chain, pos), CML_HIER_STEP, &a->chain,
                  pos);
}

cml_status cml_hier_trace_chase(cml_record *rec, const cml_hier_perm *perm, uint64_t hop,
                                uint64_t hops, int path, uint32_t warps)
{
    if (!perm || perm->m < 2 || hop % 8 != 0 || hops == 0 || hops % CML_HIER_STEP != 0 ||
        path < 0 || path >= CML_HIER_PATH_COUNT || warps == 0 ||
        warps > CML_HIER_CHASE_MAX_WARPS)
        return CML_EINVAL;
    chase_mirror m = {{perm, cml_array_base(3), hop}, path, 0};
    rec->has_model = 0;
    cml_status st = trace_add(rec, hops / CML_HIER_STEP, CML_WARP_SIZE, chase_thread, &m);
    if (st == CML_OK) {
        m.ends = 1;
        st = trace_add(rec, 1, CML_WARP_SIZE, chase_thread, &m);
    }
    if (st != CML_OK)
        return st;
    cml_exp_scale_traffic(rec, warps);
    rec->grid = warps;
    rec->block = CML_WARP_SIZE;
    return CML_OK;
}

/* ---- per-hop latencies ------------------------------------------------------ */

unsigned cml_hier_latency_groups(const uint64_t *bins, unsigned n, double floor, unsigned gap,
                                 cml_hier_group *out, unsigned max)
{
    if (!bins || !out || max == 0 || gap == 0 || !(floor >= 0.0 && floor < 1.0))
        return 0;
    uint64_t total = 0;
    for (unsigned i = 0; i < n; i++)
        total += bins[i];
    if (total == 0)
        return 0;
    const double least = floor * (double)total;
    unsigned count = 0, i = 0;
    while (i < n && count < max) {
        while (i < n && (bins[i] == 0 || (double)bins[i] < least))
            i++;
        if (i == n)
            break;
        /* A group from bin i: on until gap low bins in a row. */
        unsigned last = i, low = 0;
        uint64_t hops = 0;
        for (unsigned j = i; j < n && low < gap; j++) {
            if (bins[j] > 0 && (double)bins[j] >= least) {
                last = j;
                low = 0;
            } else {
                low++;
            }
        }
        for (unsigned j = i; j <= last; j++)
            hops += bins[j];
        uint64_t seen = 0;
        unsigned median = i;
        for (unsigned j = i; j <= last; j++) {
            seen += bins[j];
            if (2 * seen >= hops) {
                median = j;
                break;
            }
        }
        out[count++] = (cml_hier_group){i, last, median, hops};
        i = last + 1;
    }
    return count;
}
