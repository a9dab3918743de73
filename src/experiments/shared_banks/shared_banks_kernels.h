/* extern "C" launchers of shared_banks.cu, callable from C, and the tile
 * arithmetic the kernels, the checker and the host reference share. */
#ifndef CML_SHARED_BANKS_KERNELS_H
#define CML_SHARED_BANKS_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "core/random.h" /* CML_HD */
#include "cumemlab/model.h"
#include "gpu/launcher.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Per thread t of a W x H tile with rows of P words: the word it writes
 * ("row" = tile[t / W][t % W], "col" = tile[t % H][t / H]) and reads. */
CML_HD unsigned cml_banks_cell(unsigned t, unsigned W, unsigned H, unsigned P, int col)
{
    return col ? (t % H) * P + t / H : (t / W) * P + t % W;
}

/* The thread that wrote cell c (the inverse of cml_banks_cell). */
CML_HD unsigned cml_banks_writer(unsigned c, unsigned W, unsigned H, unsigned P, int col)
{
    return col ? (c % P) * H + c / P : (c / P) * W + c % P;
}

/*
 * The value thread t of block b leaves in out[] after `iters` rounds of
 * "tile[wr(t)] = v; sync; v = tile[rd(t)] + 1; sync" starting from v = its
 * out[] index b*W*H + t: round k gives thread t the value of thread
 * writer(rd(t)) plus one, so the result is that index chased `iters` times,
 * plus iters.
 */
CML_HD uint32_t cml_banks_tile_value(uint64_t b, unsigned t, unsigned W, unsigned H, unsigned P,
                                     int write_col, int read_col, unsigned iters)
{
    unsigned x = t;
    for (unsigned k = 0; k < iters; k++)
        x = cml_banks_writer(cml_banks_cell(x, W, H, P, read_col), W, H, P, write_col);
    return (uint32_t)(b * W * H + x + iters);
}

typedef struct cml_banks_launch_args {
    unsigned *out;     /* tile: blocks*W*H words; stride: blocks*block*elem/4 words */
    uint64_t blocks;
    unsigned iters;
    int stride_kind;   /* 0: tile, 1: stride */
    /* tile */
    unsigned W, H, P;
    int write_col, read_col;
    int dynamic;       /* 0: static shared memory (W, H in {32x32, 32x16, 16x32}, P - W <= 2) */
    /* stride */
    unsigned elem;     /* 4, 8 or 16 */
    unsigned stride;   /* elements */
    unsigned block;    /* threads, a multiple of 32 (cml_banks_stride_block) */
    /* dynamic shared memory to launch with: 0, the kernel's own
     * (cml_banks_smem); more: cml_gpu_one_block_per_sm's figure */
    size_t smem;
} cml_banks_launch_args;

/* Threads per block of a stride kernel: up to 8 warps, as many as keep the
 * block's shared memory (block * stride * elem bytes) within 48 KiB. */
static inline unsigned cml_banks_stride_block(unsigned elem, unsigned stride)
{
    const unsigned per_warp = 32u * stride * elem;
    unsigned warps = per_warp ? 49152u / per_warp : 0;
    if (warps < 1)
        warps = 1;
    if (warps > 8)
        warps = 8;
    return 32u * warps;
}

/* Words of out[] a launch writes. */
static inline uint64_t cml_banks_out_words(const cml_banks_launch_args *a)
{
    return a->stride_kind ? a->blocks * a->block * (a->elem / 4u)
                          : a->blocks * (uint64_t)a->W * a->H;
}

/* 1 if a static kernel exists for this tile (else use dynamic). */
CML_LAUNCHER int cml_banks_has_static(unsigned W, unsigned H, unsigned P);
/* Launch one kernel (asynchronously); the launch status is checked.
 * CML_EINVAL for a shape, pad, element size or stride out of range, or a
 * static tile that was not compiled. */
CML_LAUNCHER cml_status cml_banks_launch(void *args);
/* The __global__ function, for the occupancy calculator (NULL: none). */
CML_LAUNCHER const void *cml_banks_kernel(const cml_banks_launch_args *a);
/* Dynamic shared memory of a launch (bytes). */
CML_LAUNCHER size_t cml_banks_smem(const cml_banks_launch_args *a);
/* Count wrong words of out[0, cap) into d_counters[0] (zeroed by the
 * caller), the lowest wrong index into d_counters[1] (all ones): tile word
 * g must be cml_banks_tile_value of its block and thread, stride word w
 * must be w + iters, every word past cml_banks_out_words the poison. */
CML_LAUNCHER cml_status cml_banks_check(const cml_banks_launch_args *a, uint64_t cap,
                                        unsigned long long *d_counters);

#ifdef __cplusplus
}
#endif
#endif
