/*
 * A GPU's NVLink traffic around one launch of an experiment's transfer:
 * NVML's throughput counters of the GPU that starts it (data sent and
 * received, and with the protocol's overhead) read before and after, the
 * differences into the record beside the bytes the model sends over the
 * link. The experiment launches and waits in between (the peer experiment:
 * docs/experiments/peer.md, "Counters").
 */
#ifndef CML_LAB_LINK_COUNTERS_H
#define CML_LAB_LINK_COUNTERS_H

#include "core/record.h"
#include "gpu/nvml_info.h"

typedef struct cml_link_counters {
    cml_nvml_session *nvml; /* opened at the first read; NULL: none */
    int tried;
    char why[200];          /* why there are no counters */
    cml_nvml_nvlink_bytes before;
} cml_link_counters;

/* Read the counters of the GPU `uuid` before the launch: 1; 0 when there
 * are none (no NVML, a GPU or driver without them: lc->why says so, and
 * every later call is 0 at once). */
int cml_link_counters_before(cml_link_counters *lc, const char *uuid);

/* Read them again after the launch, waited for, and put the differences
 * into rec: extras nvlink_data_tx, nvlink_data_rx, nvlink_raw_tx,
 * nvlink_raw_rx (bytes) and a sentence in its finding naming GPU `dev`,
 * setting the payload (received for a pull, sent for a push) against
 * `predicted` bytes of sectors (none when 0). */
void cml_link_counters_after(cml_link_counters *lc, const char *uuid, int dev, cml_record *rec,
                             double predicted, int push);

void cml_link_counters_close(cml_link_counters *lc);

#endif
