/* Peak bandwidth by class (peak_class.h). */
#include "core/peak_class.h"

#include <stdio.h>
#include <string.h>

static const char *const class_names[] = {"read",  "write",       "copy",       "triad",
                                           "given", "l2-resident", "l1-resident"};
#define LAST_CLASS CML_PEAK_CLASS_L1_RESIDENT

int cml_peak_class_of(uint64_t bytes_read, uint64_t bytes_written)
{
    if (bytes_read == 0 && bytes_written == 0)
        return CML_PEAK_CLASS_NONE;
    if (bytes_written == 0)
        return CML_PEAK_CLASS_READ;
    if (bytes_read == 0)
        return CML_PEAK_CLASS_WRITE;
    /* r / (r + w) <= 7/12  <=>  5 r <= 7 w; in long double, whose 64-bit
     * mantissa holds both products exactly for any byte count below 2^60. */
    long double r = (long double)bytes_read, w = (long double)bytes_written;
    return 5.0L * r <= 7.0L * w ? CML_PEAK_CLASS_COPY : CML_PEAK_CLASS_TRIAD;
}

const char *cml_peak_class_name(int cls)
{
    return cls >= 0 && cls <= LAST_CLASS ? class_names[cls] : "-";
}

int cml_peak_class_parse(const char *name)
{
    for (int c = 0; name && c <= LAST_CLASS; c++)
        if (strcmp(name, class_names[c]) == 0)
            return c;
    return CML_PEAK_CLASS_NONE;
}

const char *cml_peak_class_label(int cls)
{
    return cls == CML_PEAK_CLASS_L2_RESIDENT   ? "L2-resident"
           : cls == CML_PEAK_CLASS_L1_RESIDENT ? "L1-resident"
                                               : cml_peak_class_name(cls);
}

int cml_peak_class_resident(int cls)
{
    return cls == CML_PEAK_CLASS_L2_RESIDENT || cls == CML_PEAK_CLASS_L1_RESIDENT;
}

int cml_peak_residency(uint64_t footprint, uint64_t l1_bytes, int l1_served, uint64_t l2_bytes)
{
    if (footprint == 0)
        return CML_PEAK_CLASS_NONE;
    if (l1_served && l1_bytes && footprint <= l1_bytes)
        return CML_PEAK_CLASS_L1_RESIDENT;
    if (l2_bytes && footprint <= l2_bytes)
        return CML_PEAK_CLASS_L2_RESIDENT;
    return CML_PEAK_CLASS_NONE;
}

double cml_peak_refs_lookup(const cml_peak_refs *p, int cls, int *used)
{
    if (used)
        *used = CML_PEAK_CLASS_NONE;
    if (!p || cls < 0 || cls >= CML_PEAK_CLASS_COUNT)
        return 0.0;
    if (p->given) {
        if (p->gbs[0] <= 0)
            return 0.0;
        if (used)
            *used = CML_PEAK_CLASS_GIVEN;
        return p->gbs[0];
    }
    int c = cls;
    if (p->gbs[c] <= 0 && (cls == CML_PEAK_CLASS_COPY || cls == CML_PEAK_CLASS_TRIAD))
        c = cls == CML_PEAK_CLASS_COPY ? CML_PEAK_CLASS_TRIAD : CML_PEAK_CLASS_COPY;
    if (!(p->gbs[c] > 0))
        return 0.0;
    if (used)
        *used = c;
    return p->gbs[c];
}

double cml_peak_refs_max(const cml_peak_refs *p)
{
    double best = 0.0;
    for (int c = 0; p && c < CML_PEAK_CLASS_COUNT; c++)
        if (p->gbs[c] > best)
            best = p->gbs[c];
    return best;
}

void cml_peak_refs_given(cml_peak_refs *p, double gbs)
{
    memset(p, 0, sizeof *p);
    p->given = 1;
    for (int c = 0; c < CML_PEAK_CLASS_COUNT; c++) {
        p->gbs[c] = gbs;
        snprintf(p->source[c], sizeof p->source[c], "--peak");
    }
}

int cml_peak_refs_offer(cml_peak_refs *p, int cls, double gbs, const char *source)
{
    if (!p || p->given || cls < 0 || cls >= CML_PEAK_CLASS_COUNT || !(gbs > p->gbs[cls]))
        return 0;
    p->gbs[cls] = gbs;
    snprintf(p->source[cls], sizeof p->source[cls], "%s", source ? source : "");
    return 1;
}
