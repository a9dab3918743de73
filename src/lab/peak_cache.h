/*
 * The measured peak by class of one GPU, kept between runs.
 *
 * Measuring the four references (core/peak_class.h) takes seconds at every
 * start, and under a profiler it adds dozens of kernels to the profile. A
 * GPU's references do not change while its hardware, driver and clocks do
 * not: the lab keeps them in a small text file per GPU, keyed by the GPU's
 * UUID, its name, the driver and runtime versions, its SM and memory clocks
 * and the version of the peak search, and reuses them while every part of
 * the key is the same. `--peak measure` measures again and replaces them.
 *
 * The folder: $CUMEMLAB_CACHE_DIR, else $XDG_CACHE_HOME/cumemlab, else
 * $HOME/.cache/cumemlab; the file: peak-<uuid>.txt. The file is untrusted
 * input: anything in it that is not a well-formed entry for this GPU is
 * ignored (the peak is measured), never trusted.
 */
#ifndef CML_PEAK_CACHE_H
#define CML_PEAK_CACHE_H

#include <stddef.h>

#include "core/peak_class.h"
#include "core/record.h"
#include "cumemlab/model.h"

/* The lab's use of the cache (cml_lab_settings.peak_cache). */
typedef enum cml_peak_cache_mode {
    CML_PEAK_CACHE_OFF = 0, /* measure, keep nothing (tests, library callers) */
    CML_PEAK_CACHE_USE,     /* reuse a matching entry, else measure and keep */
    CML_PEAK_CACHE_REFRESH  /* measure, and replace the entry (--peak measure) */
} cml_peak_cache_mode;

/* The cache file of GPU `d` into path; CML_EUNSUPPORTED (why says so) when
 * no folder is known or d has no UUID. */
cml_status cml_peak_cache_path(const cml_device_facts *d, char *path, size_t len, char *why,
                               size_t whylen);

/*
 * The references kept for `d` into *refs, and when they were measured
 * ("2026-11-27 14:30 UTC") into when. CML_OK when the entry is there and
 * its key matches d in every part; otherwise CML_EINVAL and a reason in why
 * ("no entry yet", "the driver changed", "line 3: malformed").
 */
cml_status cml_peak_cache_load(const cml_device_facts *d, cml_peak_refs *refs, char *when,
                               size_t whenlen, char *why, size_t whylen);

/* Keep `refs` for `d` (written to a temporary name, then renamed), the
 * folder made if needed. A status and why on failure. */
cml_status cml_peak_cache_store(const cml_device_facts *d, const cml_peak_refs *refs, char *why,
                                size_t whylen);

#endif
