/*
 * Peak bandwidth by class: what "% of peak" is measured against.
 *
 * DRAM does not reach one speed for every mix of reads and writes: a
 * read-only stream never turns the bus around, a write-only stream neither,
 * and a copy pays a read/write turnaround every time the controller switches
 * direction. So the lab keeps one reference per class, each the best figure
 * measured for that class (experiment 16, peak-bandwidth, or the lab's quick
 * search), and a record's share of peak is taken against the class of its own
 * mix of bytes read and written (docs/experiments/peak-bandwidth.md, "Peak
 * classes"):
 *
 *   bytes written = 0                 read   (the best read-only kernel)
 *   bytes read = 0                    write  (the best write-only kernel or memset)
 *   read share r/(r+w) <= 7/12        copy   (1:1, the best copy kernel or cudaMemcpy)
 *   read share > 7/12                 triad  (2:1, the best add or triad kernel)
 *
 * 7/12 is the midpoint between the copy's 1/2 and the triad's 2/3: a mixed
 * record goes to the nearer of the two mixed classes, never to a pure one,
 * since it pays the turnarounds the pure classes do not. A record that moves
 * no bytes has no class. Pure C, no CUDA.
 */
#ifndef CML_PEAK_CLASS_H
#define CML_PEAK_CLASS_H

#include <stdint.h>

typedef enum cml_peak_class {
    CML_PEAK_CLASS_READ = 0,
    CML_PEAK_CLASS_WRITE,
    CML_PEAK_CLASS_COPY,
    CML_PEAK_CLASS_TRIAD,
    CML_PEAK_CLASS_COUNT,
    /* Not a class of bytes: the one reference the user gave (--peak),
     * used for every record. */
    CML_PEAK_CLASS_GIVEN = CML_PEAK_CLASS_COUNT,
    /* Not DRAM traffic at all: a record whose working set (the bytes its
     * kernel touches) fits in L2, or in L1 and is served there, is
     * measuring that cache. It gets no reference and no share of peak,
     * and says where its bytes live instead. */
    CML_PEAK_CLASS_L2_RESIDENT,
    CML_PEAK_CLASS_L1_RESIDENT
} cml_peak_class;

/* A record without a reference (no bytes, nothing measured, or a figure
 * that is not a DRAM bandwidth). */
#define CML_PEAK_CLASS_NONE (-1)

/* The references of one run. gbs[c] <= 0: class c not measured. */
typedef struct cml_peak_refs {
    double gbs[CML_PEAK_CLASS_COUNT];
    char source[CML_PEAK_CLASS_COUNT][96]; /* the variant that set it, "" if none */
    int given;                             /* 1: every class is the user's --peak */
} cml_peak_refs;

/* The class of a mix (the rule above); CML_PEAK_CLASS_NONE for 0 and 0. */
int cml_peak_class_of(uint64_t bytes_read, uint64_t bytes_written);

/* "read", "write", "copy", "triad", "given", "l2-resident", "l1-resident";
 * "-" for anything else. And back: the class of a name, CML_PEAK_CLASS_NONE
 * if it is none of those. The label is what a person reads: the name, or
 * "L2-resident" / "L1-resident". */
const char *cml_peak_class_name(int cls);
int cml_peak_class_parse(const char *name);
const char *cml_peak_class_label(int cls);

/* 1 for CML_PEAK_CLASS_L2_RESIDENT and _L1_RESIDENT. */
int cml_peak_class_resident(int cls);

/*
 * Where a working set of `footprint` bytes (0: not known) lives while a
 * kernel runs again and again over it: CML_PEAK_CLASS_L1_RESIDENT when it
 * fits one SM's `l1_bytes` and `l1_served` (its loads hit in L1, nothing
 * is written through to L2), else CML_PEAK_CLASS_L2_RESIDENT when it fits
 * `l2_bytes`, else CML_PEAK_CLASS_NONE (DRAM, or not known).
 */
int cml_peak_residency(uint64_t footprint, uint64_t l1_bytes, int l1_served, uint64_t l2_bytes);

/*
 * The reference for a record of class `cls`: with `given`, the given value
 * (class CML_PEAK_CLASS_GIVEN); else the class's own reference, or when that
 * class was not measured the other mixed class (copy <-> triad), else none.
 * A pure class never borrows: a read-only kernel against a copy's figure
 * would read above 100% for no reason of its own. Returns the bandwidth
 * (0 when there is none) and sets *used to the class it came from
 * (CML_PEAK_CLASS_NONE when none).
 */
double cml_peak_refs_lookup(const cml_peak_refs *p, int cls, int *used);

/* The largest reference (0 when none): the run's single "peak" figure. */
double cml_peak_refs_max(const cml_peak_refs *p);

/* Every class set to `gbs`, marked given (the user's --peak). */
void cml_peak_refs_given(cml_peak_refs *p, double gbs);

/* Take `gbs` for class `cls` if it beats what is there; 1 when it did. */
int cml_peak_refs_offer(cml_peak_refs *p, int cls, double gbs, const char *source);

#endif
