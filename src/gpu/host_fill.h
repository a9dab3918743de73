/*
 * Passes over host buffers for the transfers experiment: fill with the
 * random floats of a seed, poison, compare. Split over a few threads: at
 * 1 GiB one pass of one thread takes ~0.15 s on an H100's host, and the
 * default copy sweep makes about fifty of them. Pure host code (no CUDA);
 * the result never depends on the split.
 */
#ifndef CML_HOST_FILL_H
#define CML_HOST_FILL_H

#include <stddef.h>
#include <stdint.h>

/* Element i of p is cml_random_f32(seed, i); a partial last float gets its
 * first bytes. */
void cml_host_fill_random(void *p, size_t bytes, uint64_t seed);

/* Every byte 0xFF (a NaN in every float), before a copy writes p. */
void cml_host_poison(void *p, size_t bytes);

/* 1 when a and b hold the same `bytes` (memcmp per part); else 0 and the
 * first differing byte in *first_bad. */
int cml_host_same(const void *a, const void *b, size_t bytes, size_t *first_bad);

#endif
