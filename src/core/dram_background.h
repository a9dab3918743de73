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
 *
 * DRAM writes take one more part: the lines other units left dirty in L2
 * when a launch begins (written after the flush had passed them), which a
 * kernel streaming through L2 writes back whatever it writes itself. The
 * stream control measures them: the flush kernel again (3x L2 read through
 * .cg, nothing written) in a range of its own right after the flush, as
 * every record's range begins. What it writes beyond the background's rate
 * over its length is those lines (a whole unit it caught is the fixed
 * part's); the largest over the stream controls is added to every
 * record's DRAM write floor (a record can write back at most the lines
 * that were dirty at its start).
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
    /* The stream controls (0: not measured, files before them): each
     * launch's length and its DRAM bytes, as above. */
    size_t stream_n;
    double stream_ms[CML_DRAM_BACKGROUND_MAX];
    double stream_read_bytes[CML_DRAM_BACKGROUND_MAX];
    double stream_write_bytes[CML_DRAM_BACKGROUND_MAX];
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

/* The lines dirty in L2 at a launch's start, in bytes: the largest, over
 * the stream controls, of what one wrote beyond the background's write
 * rate times its length, less one fixed unit where that is at least a unit
 * (a control that caught one of the background's 256 KiB units; the
 * stream controls measured 14-55 KB of dirty lines on an H200, so this
 * takes dirty lines for a unit only where they reach 256 KiB, and then it
 * errs strict);
 * never below 0; 0 when none was measured. */
double cml_dram_background_dirty(const cml_dram_background *b);

/* Whether every control, stream controls included, is a launch of 0 < ms
 * <= CML_DRAM_BACKGROUND_MAX_MS with finite byte counts >= 0 (a file's
 * values, checked before use): NULL, or the first bad value's name into
 * `what` (e.g. "controls[2].ms", "stream_controls[0].write_bytes"). */
const char *cml_dram_background_check(const cml_dram_background *b, char *what, size_t len);

#endif
