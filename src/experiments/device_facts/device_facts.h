/* Experiment 15: the memory model of this GPU, as records (also used by
 * the CLI's `cumemlab device`). */
#ifndef CML_EXP_DEVICE_FACTS_H
#define CML_EXP_DEVICE_FACTS_H

#include "core/record.h"
#include "lab/experiment.h"

/*
 * Append the facts of f as records of experiment "device-facts", one per
 * group (compute, on-chip memory, device memory, host and software; a record
 * holds at most 8 numbers), and copy f into out->device (has_device = 1).
 * The measured peak is out->peak_gbs when it is known (> 0). Cache line and
 * sector sizes are the architecture's (CML_LINE_BYTES, CML_SECTOR_BYTES),
 * not measured. CML_ENOMEM if a record cannot be added.
 */
cml_status cml_device_facts_record(const cml_device_facts *f, cml_results *out);

/*
 * The same records for one GPU of several (cumemlab device --all): each
 * variant begins "gpu=N " and carries the parameter gpu = N, and the
 * device memory record holds the peak of each class measured on it
 * (`peaks`, core/peak_class.h) beside the largest. out->device is left
 * as it is (the run's first GPU names the run).
 */
cml_status cml_device_facts_record_gpu(const cml_device_facts *f, const cml_peak_refs *peaks,
                                       cml_results *out);

extern const cml_experiment cml_exp_device_facts;

#endif
