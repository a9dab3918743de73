/*
 * The peer experiment's reading of the link's own counters: the NVLink
 * traffic of one untimed launch of a record's transfer, from NVML's
 * throughput counters of the GPU that starts it (data sent and received,
 * and with the protocol's overhead), beside the bytes the model says leave
 * the SMs for the remote array.
 */
#ifndef CML_PEER_NVLINK_H
#define CML_PEER_NVLINK_H

#include "core/record.h"
#include "cumemlab/status.h"
#include "gpu/nvml_info.h"

typedef struct cml_peer_nvlink {
    cml_nvml_session *nvml; /* opened at the first remote record; NULL: none */
    int tried;
    char why[200];          /* why there are no counters */
} cml_peer_nvlink;

/* One launch of launch(args) on GPU `dev` (uuid), waited for on dev and
 * on `other` (-1: none), between two reads of dev's NVLink counters; the
 * differences go into rec's extras (nvlink_data_tx, nvlink_data_rx,
 * nvlink_raw_tx, nvlink_raw_rx, bytes) and a sentence into its finding,
 * set against `predicted` bytes (the model's, one launch). Returns the
 * launch's status; a GPU without the counters leaves rec as it was, the
 * reason in nv->why (the caller says it once). */
cml_status cml_peer_nvlink_read(cml_peer_nvlink *nv, cml_record *rec, int dev, int other,
                                const char *uuid, cml_status (*launch)(void *), void *args,
                                double predicted, int push);
void cml_peer_nvlink_close(cml_peer_nvlink *nv);

#endif
