/*
 * Small helpers around cml_traffic and the traffic classes: ratios, sums,
 * class names, and the base addresses kernel mirrors give their arrays.
 */
#include "cumemlab/model.h"
#include "model/emitter.h"

/* requested_bytes / efficiency_bytes; 0 when the denominator is 0 (nothing
 * moved, or a space without an efficiency metric such as constant). */
double cml_traffic_efficiency(const cml_traffic *t)
{
    if (t == NULL || t->efficiency_bytes == 0)
        return 0.0;
    return (double)t->requested_bytes / (double)t->efficiency_bytes;
}

/* sectors / requests; 0 when there was no request. */
double cml_traffic_sectors_per_request(const cml_traffic *t)
{
    if (t == NULL || t->requests == 0)
        return 0.0;
    return (double)t->sectors / (double)t->requests;
}

/* acc += t, field by field (unsigned, so wrap-around is defined, and cannot
 * happen with realistic counts). A NULL argument does nothing. */
void cml_traffic_add(cml_traffic *acc, const cml_traffic *t)
{
    if (acc == NULL || t == NULL)
        return;
    acc->instructions += t->instructions;
    acc->requests += t->requests;
    acc->sectors += t->sectors;
    acc->lines += t->lines;
    acc->transactions += t->transactions;
    acc->transaction_bytes += t->transaction_bytes;
    acc->efficiency_bytes += t->efficiency_bytes;
    acc->requested_bytes += t->requested_bytes;
    acc->lane_bytes += t->lane_bytes;
    acc->wavefronts += t->wavefronts;
    acc->ideal_wavefronts += t->ideal_wavefronts;
    acc->bank_conflicts += t->bank_conflicts;
    acc->serialized += t->serialized;
}

/* acc += k * t, field by field (unsigned, wrap-around defined as above). */
void cml_traffic_add_scaled(cml_traffic *acc, const cml_traffic *t, uint64_t k)
{
    if (acc == NULL || t == NULL)
        return;
    acc->instructions += k * t->instructions;
    acc->requests += k * t->requests;
    acc->sectors += k * t->sectors;
    acc->lines += k * t->lines;
    acc->transactions += k * t->transactions;
    acc->transaction_bytes += k * t->transaction_bytes;
    acc->efficiency_bytes += k * t->efficiency_bytes;
    acc->requested_bytes += k * t->requested_bytes;
    acc->lane_bytes += k * t->lane_bytes;
    acc->wavefronts += k * t->wavefronts;
    acc->ideal_wavefronts += k * t->ideal_wavefronts;
    acc->bank_conflicts += k * t->bank_conflicts;
    acc->serialized += k * t->serialized;
}

/* "global_ld", "shared_st", ...; "invalid" for a value out of range. */
const char *cml_class_name(cml_class c)
{
    switch (c) {
    case CML_CLASS_GLOBAL_LD: return "global_ld";
    case CML_CLASS_GLOBAL_ST: return "global_st";
    case CML_CLASS_LOCAL_LD: return "local_ld";
    case CML_CLASS_LOCAL_ST: return "local_st";
    case CML_CLASS_SHARED_LD: return "shared_ld";
    case CML_CLASS_SHARED_ST: return "shared_st";
    case CML_CLASS_CONST_LD: return "const_ld";
    case CML_CLASS_COUNT: break;
    }
    return "invalid";
}

/* The class counting (space, op); CML_CLASS_COUNT for a combination that
 * does not exist (constant stores) or values out of range, so callers can
 * test for it before indexing. */
cml_class cml_class_of(cml_space space, cml_op op)
{
    if ((unsigned)op >= (unsigned)CML_OP_COUNT)
        return CML_CLASS_COUNT;
    const int st = op == CML_OP_STORE;
    switch (space) {
    case CML_SPACE_GLOBAL: return st ? CML_CLASS_GLOBAL_ST : CML_CLASS_GLOBAL_LD;
    case CML_SPACE_LOCAL: return st ? CML_CLASS_LOCAL_ST : CML_CLASS_LOCAL_LD;
    case CML_SPACE_SHARED: return st ? CML_CLASS_SHARED_ST : CML_CLASS_SHARED_LD;
    case CML_SPACE_CONSTANT: return st ? CML_CLASS_COUNT : CML_CLASS_CONST_LD;
    case CML_SPACE_COUNT: break;
    }
    return CML_CLASS_COUNT;
}

/* (k + 1) * 2^40: 1 TiB apart, so arrays of a mirrored kernel never share a
 * sector or line, and aligned far beyond cudaMalloc's 256 B. Distinct for
 * k < 2^24 - 1 (beyond that the unsigned product wraps, defined but useless). */
uint64_t cml_array_base(unsigned k)
{
    return cml_array_base_inline(k);
}

/* a + b, UINT64_MAX where it would wrap (counts read from a file may be
 * anything). */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

uint64_t cml_shared_contention_bound(const cml_kernel_traffic *t, cml_class shared,
                                     unsigned resident_blocks)
{
    if (!t || resident_blocks < 2 ||
        (shared != CML_CLASS_SHARED_LD && shared != CML_CLASS_SHARED_ST))
        return 0;
    const cml_class other =
        shared == CML_CLASS_SHARED_LD ? CML_CLASS_SHARED_ST : CML_CLASS_SHARED_LD;
    const uint64_t loads =
        add_sat(t->cls[CML_CLASS_GLOBAL_LD].sectors, t->cls[CML_CLASS_LOCAL_LD].sectors);
    uint64_t n = add_sat(t->cls[other].wavefronts, add_sat(loads, loads)); /* fill and read */
    n = add_sat(n, t->cls[CML_CLASS_GLOBAL_ST].sectors);
    n = add_sat(n, t->cls[CML_CLASS_LOCAL_ST].sectors);
    return add_sat(n, t->bulk.sectors);
}
