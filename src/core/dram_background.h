/*
 * The DRAM traffic a GPU shows while no kernel asks DRAM for anything: the
 * control of validate's DRAM noise floor (docs/model-evidence.md §2.1).
 *
 * On an H200 the counters of a long launch hold DRAM bytes no access of
 * the kernel explains: whole 256 KiB units written, about one per 14 ms,
 * and 7-8 KB read per ms, in a 41 ms launch that reads nothing. The floor
 * under which a DRAM value is not judged grows with the launch by what a
 * kernel of known duration that keeps L2 busy with no DRAM access of its
 * own (a block on every SM reading 32 KiB that L2 holds until the clock
 * passes) shows under the same profiler, in the same run: its largest rate
 * over the controls, times the record's launch time. For DRAM reads the
 * floor takes the larger of that and the reads of units outside the GPCs
 * in the record's own range (L2's read misses by who asked): after the
 * flush that opens every range those units read their lines from DRAM
 * again, in bursts one control cannot hold (docs/model-evidence.md §2.1).
 */
#ifndef CML_CORE_DRAM_BACKGROUND_H
#define CML_CORE_DRAM_BACKGROUND_H

#include <stddef.h>

/* Control launches one run measures, at most. */
#define CML_DRAM_BACKGROUND_MAX 8
/* The longest control launch a file may name, ms (a minute). */
#define CML_DRAM_BACKGROUND_MAX_MS 60000.0

typedef struct cml_dram_background {
    size_t n; /* 0: not measured (a file without it, no DRAM counters) */
    double ms[CML_DRAM_BACKGROUND_MAX];          /* each control launch's length */
    double read_bytes[CML_DRAM_BACKGROUND_MAX];  /* dram__bytes_read.sum over it */
    double write_bytes[CML_DRAM_BACKGROUND_MAX]; /* dram__bytes_write.sum over it */
} cml_dram_background;

/* The fixed part of the DRAM floor, a launch of any length: one 256 KiB
 * unit of the background's writes, which a window may catch whole however
 * short it is (docs/model-evidence.md §2.1; CML_NOISE_FLOOR_DRAM_BYTES). */
#define CML_DRAM_BACKGROUND_FIXED_BYTES 262144.0

/* The background's rate, read (write 0) or written (write 1): the largest,
 * over the controls, of the bytes beyond the fixed part per ms (so that
 * fixed + rate * ms holds every control at its own length, a short one that
 * caught a whole unit included); 0 when none was measured. */
double cml_dram_background_rate(const cml_dram_background *b, int write);

/* What the background adds to the fixed part over a launch of `ms` (the
 * rate times ms; 0 for a launch of no known length, ms <= 0 or not
 * finite). */
double cml_dram_background_bytes(const cml_dram_background *b, int write, double ms);

/* Whether every control is a launch of 0 < ms <= CML_DRAM_BACKGROUND_MAX_MS
 * with finite byte counts >= 0 (a file's values, checked before use):
 * NULL, or the first bad value's name into `what` (e.g. "ms[2]"). */
const char *cml_dram_background_check(const cml_dram_background *b, char *what, size_t len);

#endif
