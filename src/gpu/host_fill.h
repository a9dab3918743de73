/*
 * Passes over host buffers (transfers, the expression checker): fill with
 * the random floats of a seed, poison, compare, or any loop split in parts. Split over a few threads: at
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

/*
 * fn(user, part, lo, hi) over [0, n), in at most CML_HOST_MAX_PARTS
 * contiguous parts of at least min_per_part items, on as many threads as
 * the host has cores (part 0 on the calling thread; a part whose thread
 * cannot start runs here too). Parts run at the same time: fn writes only
 * what belongs to its part. Returns the number of parts used (>= 1).
 */
#define CML_HOST_MAX_PARTS 16
size_t cml_host_parallel(size_t n, size_t min_per_part,
                         void (*fn)(void *user, size_t part, size_t lo, size_t hi), void *user);

#endif
