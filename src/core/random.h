/*
 * Counter-based pseudo-random values shared by host and device code: element
 * i of a buffer filled with `seed` is a pure function of (seed, i), so a
 * verifier can recompute any element without keeping a host copy, and no
 * buffer is ever filled with zeros (some GPUs compress regular data).
 */
#ifndef CML_RANDOM_H
#define CML_RANDOM_H

#include <stdint.h>

#if defined(__CUDACC__)
#define CML_HD __host__ __device__ __forceinline__
#else
#define CML_HD static inline
#endif

/* SplitMix64's finaliser: a bijection on 64-bit values with good mixing. */
CML_HD uint64_t cml_mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* A float in [1, 2) with 23 random mantissa bits: never zero, never
 * denormal, and sums of two stay exact enough to compare bit for bit. */
CML_HD float cml_random_f32(uint64_t seed, uint64_t i)
{
    uint32_t bits = 0x3F800000u | (uint32_t)(cml_mix64(seed ^ (i * 0xD1B54A32D192ED03ull)) >> 41);
    union { uint32_t u; float f; } v;
    v.u = bits;
    return v.f;
}

/* A 32-bit value, for index tables and integer data. */
CML_HD uint32_t cml_random_u32(uint64_t seed, uint64_t i)
{
    return (uint32_t)(cml_mix64(seed ^ (i * 0xD1B54A32D192ED03ull)) >> 32);
}

#endif
