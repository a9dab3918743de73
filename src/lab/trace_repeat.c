/*
 * The exact shortcut of repeating grids (trace_repeat.h): the kinds of
 * block along each axis, one representative of each kind traced through
 * cml_trace_warps with the number of blocks of its kind as its weight, and
 * a few more blocks traced to check the caller's claim.
 *
 * Why a period and not "every block alike": a block of 33 threads moves
 * its addresses by 132 bytes per array from one block to the next, so
 * consecutive blocks sit differently on the 128-byte lines, but 32 blocks
 * later (32 * 132 = 33 lines) they sit the same way again: the period is
 * 32 blocks, and a grid of a million such blocks is 32 blocks of work.
 */
#include "lab/trace_repeat.h"

#include <stdlib.h>
#include <string.h>

#include "lab/trace.h"

/* At most this many warps are traced for the kinds (per rule set); a grid
 * with more kinds is walked whole (no faster, and exact). */
#define MAX_KIND_WARPS ((uint64_t)1 << 22)
/* Blocks of a repeating run compared with their representative, per axis. */
#define AXIS_SAMPLES 6u

cml_exp_axis cml_exp_axis_ends(uint64_t n, uint64_t head, uint64_t period, uint64_t tail)
{
    cml_exp_axis a;
    memset(&a, 0, sizeof a);
    if (head >= n || tail >= n - head) {
        cml_exp_axis_add(&a, n, n);
        return a;
    }
    if (head)
        cml_exp_axis_add(&a, head, head);
    cml_exp_axis_add(&a, n - head - tail, period);
    if (tail)
        cml_exp_axis_add(&a, tail, tail);
    return a;
}

cml_status cml_exp_axis_add(cml_exp_axis *a, uint64_t count, uint64_t period)
{
    if (a->nruns >= CML_EXP_MAX_RUNS || count == 0 || period == 0)
        return CML_EINVAL;
    a->run[a->nruns].count = count;
    a->run[a->nruns].period = period;
    a->nruns++;
    return CML_OK;
}

uint64_t cml_exp_line_period(uint64_t shift_bytes)
{
    uint64_t a = shift_bytes % CML_LINE_BYTES, b = CML_LINE_BYTES;
    while (a) { /* gcd(shift, 128) */
        uint64_t r = b % a;
        b = a;
        a = r;
    }
    return CML_LINE_BYTES / b;
}

/* The kinds of one axis: coordinate of each representative and the number
 * of blocks of its kind; and blocks of repeating runs with their
 * representatives, to check the claim. */
typedef struct axis_kinds {
    uint64_t *coord, *weight;
    size_t n;
    uint64_t sample[AXIS_SAMPLES], sample_rep[AXIS_SAMPLES];
    unsigned nsamples;
} axis_kinds;

static void add_sample(axis_kinds *k, uint64_t c, uint64_t start, uint64_t period)
{
    const uint64_t rep = start + (c - start) % period;
    if (rep == c || k->nsamples >= AXIS_SAMPLES)
        return;
    for (unsigned s = 0; s < k->nsamples; s++)
        if (k->sample[s] == c)
            return;
    k->sample[k->nsamples] = c;
    k->sample_rep[k->nsamples] = rep;
    k->nsamples++;
}

/* CML_EINVAL when the runs do not add up to n blocks. */
static cml_status axis_kinds_of(const cml_exp_axis *a, uint64_t n, axis_kinds *k)
{
    memset(k, 0, sizeof *k);
    uint64_t total = 0, kinds = 0;
    for (unsigned r = 0; r < a->nruns; r++) {
        const cml_exp_run *run = &a->run[r];
        if (run->count == 0 || run->period == 0 || run->count > n - total)
            return CML_EINVAL;
        total += run->count;
        kinds += run->period < run->count ? run->period : run->count;
    }
    if (total != n)
        return CML_EINVAL;
    if (kinds == 0)
        return CML_OK; /* an empty grid: the whole walk refuses it */
    k->coord = malloc(kinds * sizeof *k->coord);
    k->weight = malloc(kinds * sizeof *k->weight);
    if (!k->coord || !k->weight)
        return CML_ENOMEM;
    uint64_t start = 0;
    for (unsigned r = 0; r < a->nruns; r++) {
        const uint64_t count = a->run[r].count, p = a->run[r].period;
        const uint64_t reps = p < count ? p : count;
        for (uint64_t j = 0; j < reps; j++) {
            k->coord[k->n] = start + j;
            k->weight[k->n] = p >= count ? 1u : count / p + (j < count % p ? 1u : 0u);
            k->n++;
        }
        if (p < count) {
            /* the run's last block, its middle, the first of its second period */
            add_sample(k, start + count - 1u, start, p);
            add_sample(k, start + count / 2u, start, p);
            add_sample(k, start + p, start, p);
        }
        start += count;
    }
    return CML_OK;
}

static void axis_kinds_free(axis_kinds *k)
{
    free(k->coord);
    free(k->weight);
}

/* The warps of block (x, y, z) of grid, appended to list (weight w each). */
static void add_block(cml_dim3 grid, uint64_t wpb, uint64_t x, uint64_t y, uint64_t z,
                      uint64_t w, uint64_t *warps, uint64_t *weights, size_t *n)
{
    const uint64_t linear = (z * grid.y + y) * grid.x + x;
    for (uint64_t k = 0; k < wpb; k++) {
        warps[*n] = linear * wpb + k;
        if (weights)
            weights[*n] = w;
        (*n)++;
    }
}

/* One block's traffic under `rules`, into *out (zeroed first). */
static cml_status block_traffic(cml_rules rules, cml_dim3 grid, cml_dim3 block, uint64_t wpb,
                                const uint64_t at[3], cml_thread_fn fn, const void *args,
                                uint64_t *scratch, cml_kernel_traffic *out)
{
    size_t n = 0;
    add_block(grid, wpb, at[0], at[1], at[2], 1, scratch, NULL, &n);
    memset(out, 0, sizeof *out);
    return cml_trace_warps(rules, grid, block, scratch, NULL, n, fn, args, out);
}

/*
 * The claim, checked: each axis's sampled blocks (the others at their first
 * kind) against their representatives, under `rules`. CML_EINVAL with the
 * record failed and a note naming the two blocks when they differ.
 */
static cml_status check_claim(cml_record *rec, cml_rules rules, cml_dim3 grid, cml_dim3 block,
                              uint64_t wpb, const axis_kinds k[3], cml_thread_fn fn,
                              const void *args, uint64_t *scratch, uint64_t *traced)
{
    for (unsigned ax = 0; ax < 3; ax++) {
        for (unsigned s = 0; s < k[ax].nsamples; s++) {
            uint64_t at[3], rep[3];
            for (unsigned d = 0; d < 3; d++)
                at[d] = rep[d] = k[d].coord[0];
            at[ax] = k[ax].sample[s];
            rep[ax] = k[ax].sample_rep[s];
            cml_kernel_traffic a, b;
            cml_status st = block_traffic(rules, grid, block, wpb, at, fn, args, scratch, &a);
            if (st == CML_OK)
                st = block_traffic(rules, grid, block, wpb, rep, fn, args, scratch, &b);
            if (st != CML_OK) {
                rec->state = CML_REC_FAILED;
                cml_record_note(rec, "model: %s", cml_status_str(st));
                return st;
            }
            *traced += 2;
            if (memcmp(&a, &b, sizeof a) != 0) {
                rec->state = CML_REC_FAILED;
                cml_record_note(rec, "model: block (%llu,%llu,%llu) differs from block "
                                "(%llu,%llu,%llu): this experiment's repeating-block claim is "
                                "wrong (a bug)",
                                (unsigned long long)at[0], (unsigned long long)at[1],
                                (unsigned long long)at[2], (unsigned long long)rep[0],
                                (unsigned long long)rep[1], (unsigned long long)rep[2]);
                return CML_EINVAL;
            }
        }
    }
    return CML_OK;
}

/* Every kind's warps with its weight, both rule sets into rec->model. */
static cml_status trace_kinds(cml_record *rec, cml_dim3 grid, cml_dim3 block, uint64_t wpb,
                              const axis_kinds k[3], cml_thread_fn fn, const void *args,
                              uint64_t *traced)
{
    const size_t nkinds = k[0].n * k[1].n * k[2].n;
    uint64_t *warps = malloc(nkinds * wpb * sizeof *warps);
    uint64_t *weights = malloc(nkinds * wpb * sizeof *weights);
    uint64_t *scratch = malloc(wpb * sizeof *scratch); /* one block's warps, for the check */
    cml_status st = warps && weights && scratch ? CML_OK : CML_ENOMEM;
    size_t n = 0;
    for (size_t z = 0; st == CML_OK && z < k[2].n; z++)
        for (size_t y = 0; y < k[1].n; y++)
            for (size_t x = 0; x < k[0].n; x++)
                add_block(grid, wpb, k[0].coord[x], k[1].coord[y], k[2].coord[z],
                          k[0].weight[x] * k[1].weight[y] * k[2].weight[z], warps, weights, &n);
    for (int r = 0; st == CML_OK && r < CML_RULES_COUNT; r++) {
        memset(&rec->model[r], 0, sizeof rec->model[r]);
        st = cml_trace_warps((cml_rules)r, grid, block, warps, weights, n, fn, args,
                             &rec->model[r]);
        if (st != CML_OK) {
            rec->state = CML_REC_FAILED;
            cml_record_note(rec, "model: %s", cml_status_str(st));
            break;
        }
        *traced = nkinds;
        st = check_claim(rec, (cml_rules)r, grid, block, wpb, k, fn, args, scratch, traced);
    }
    free(warps);
    free(weights);
    free(scratch);
    return st;
}

cml_status cml_exp_trace_axes(cml_record *rec, cml_dim3 grid, cml_dim3 block,
                              const cml_exp_axis axes[3], cml_thread_fn fn, const void *args,
                              uint64_t *traced)
{
    const uint64_t dims[3] = {grid.x, grid.y, grid.z};
    const uint64_t nblocks = dims[0] * dims[1] * dims[2];
    const uint64_t threads = (uint64_t)block.x * block.y * block.z;
    const uint64_t wpb = (threads + CML_WARP_SIZE - 1u) / CML_WARP_SIZE;
    axis_kinds k[3];
    memset(k, 0, sizeof k);
    cml_status st = CML_OK;
    for (unsigned d = 0; d < 3 && st == CML_OK; d++)
        st = axis_kinds_of(&axes[d], dims[d], &k[d]);
    uint64_t kinds = 0, count = 0;
    if (st == CML_OK) {
        kinds = (uint64_t)k[0].n * k[1].n * k[2].n;
        /* A grid of few more blocks than kinds, or one of too many kinds:
         * the whole walk (exact, and no slower). */
        if (kinds + 8u >= nblocks || kinds > MAX_KIND_WARPS / wpb) {
            st = cml_exp_trace(rec, grid, block, fn, args);
            count = nblocks;
        } else {
            st = trace_kinds(rec, grid, block, wpb, k, fn, args, &count);
            if (st == CML_OK) {
                rec->has_model = 1;
                rec->grid = nblocks;
                rec->block = threads;
                st = cml_exp_levels(rec, grid, block, fn, args);
            }
        }
    } else {
        rec->state = CML_REC_FAILED;
        cml_record_note(rec, "model: %s (the runs of a repeating grid do not add up to it: a "
                        "bug)", cml_status_str(st));
    }
    for (unsigned d = 0; d < 3; d++)
        axis_kinds_free(&k[d]);
    if (traced)
        *traced = count;
    return st;
}

cml_status cml_exp_trace_1d_period(cml_record *rec, uint64_t nblocks, unsigned block,
                                   uint64_t head, uint64_t tail, uint64_t period,
                                   cml_thread_fn fn, const void *args)
{
    if (nblocks > UINT32_MAX) {
        rec->state = CML_REC_FAILED;
        cml_record_note(rec, "model: %llu blocks exceed a 1-D grid", (unsigned long long)nblocks);
        return CML_EINVAL;
    }
    const cml_exp_axis axes[3] = {cml_exp_axis_ends(nblocks, head, period, tail),
                                  cml_exp_axis_ends(1, 0, 1, 0), cml_exp_axis_ends(1, 0, 1, 0)};
    return cml_exp_trace_axes(rec, cml_dim1(nblocks), cml_dim1(block), axes, fn, args, NULL);
}

cml_status cml_exp_trace_1d(cml_record *rec, uint64_t nblocks, unsigned block, uint64_t head,
                            uint64_t tail, cml_thread_fn fn, const void *args)
{
    return cml_exp_trace_1d_period(rec, nblocks, block, head, tail, 1, fn, args);
}
