/*
 * The peak kernels' arithmetic (peak.h): the names and bytes of each op,
 * the shapes, the values each kernel must write, and the size labels of
 * variant names. The lab's quick measurement and experiment 16 both read
 * them; the bytes each kernel must move live here and nowhere else.
 */
#include "lab/peak.h"

#include <stdio.h>
#include <string.h>

#include "core/random.h"

static const char *const op_names[] = {"copy", "scale", "add",    "triad",
                                       "sum",  "fill",  "memcpy", "memset"};

#define SHAPE_ROW(ID, NAME, LAYOUT, W, U, CS, QUICK) {NAME, LAYOUT, W, U, CS, QUICK},
static const cml_peak_shape_def shapes[CML_PEAK_SHAPE_COUNT] = {CML_PEAK_SHAPES(SHAPE_ROW)};
#undef SHAPE_ROW

const cml_peak_shape_def *cml_peak_shape_at(int shape)
{
    return shape >= 0 && shape < CML_PEAK_SHAPE_COUNT ? &shapes[shape] : NULL;
}

const char *cml_peak_op_name(cml_peak_op op)
{
    return (op >= 0 && op < CML_PEAK_OP_COUNT) ? op_names[op] : "?";
}

const char *cml_peak_shape_name(cml_peak_shape s)
{
    return (s >= 0 && s < CML_PEAK_SHAPE_COUNT) ? shapes[s].name : "?";
}

int cml_peak_op_class(cml_peak_op op)
{
    return cml_peak_class_of(cml_peak_bytes_read(op, 1), cml_peak_bytes_written(op, 1));
}

/* The bandwidth table (BabelStream's idea): the bytes each kernel must move
 * live here and nowhere else. */
uint64_t cml_peak_bytes_read(cml_peak_op op, uint64_t n)
{
    switch (op) {
    case CML_PEAK_ADD:
    case CML_PEAK_TRIAD: return 8 * n;
    case CML_PEAK_FILL:
    case CML_PEAK_MEMSET: return 0;
    default: return 4 * n;
    }
}

uint64_t cml_peak_bytes_written(cml_peak_op op, uint64_t n)
{
    return op == CML_PEAK_SUM ? 0 : 4 * n;
}

/* Each rounding is its own statement through a volatile, so no compiler
 * setting can fuse the product and the sum into one FMA (the kernels use
 * __fmul_rn and __fadd_rn for the same reason). */
float cml_peak_expected(cml_peak_op op, uint64_t seed_x, uint64_t seed_y, uint64_t i)
{
    if (op == CML_PEAK_FILL)
        return CML_PEAK_FILL_VALUE;
    if (op == CML_PEAK_MEMSET) {
        uint32_t b = 0x01010101u * (uint32_t)CML_PEAK_MEMSET_BYTE;
        float f;
        memcpy(&f, &b, sizeof f);
        return f;
    }
    float x = cml_random_f32(seed_x, i);
    volatile float p;
    switch (op) {
    case CML_PEAK_SCALE:
        p = CML_PEAK_SCALAR * x;
        return p;
    case CML_PEAK_ADD: return x + cml_random_f32(seed_y, i);
    case CML_PEAK_TRIAD:
        p = CML_PEAK_SCALAR * cml_random_f32(seed_y, i);
        return x + p;
    default: return x;
    }
}

uint64_t cml_peak_expected_sum(uint64_t seed_x, uint64_t n)
{
    uint64_t s = 0;
    for (uint64_t i = 0; i < n; i++) {
        float f = cml_random_f32(seed_x, i);
        uint32_t b;
        memcpy(&b, &f, sizeof b);
        s += b;
    }
    return s;
}

void cml_peak_size_label(char *buf, size_t len, uint64_t bytes)
{
    if (bytes && bytes % ((uint64_t)1 << 30) == 0)
        snprintf(buf, len, "%lluG", (unsigned long long)(bytes >> 30));
    else if (bytes && bytes % ((uint64_t)1 << 20) == 0)
        snprintf(buf, len, "%lluM", (unsigned long long)(bytes >> 20));
    else if (bytes && bytes % ((uint64_t)1 << 10) == 0)
        snprintf(buf, len, "%lluk", (unsigned long long)(bytes >> 10));
    else
        snprintf(buf, len, "%llu", (unsigned long long)bytes);
}
