/*
 * The link's own counters for a peer record (peer_nvlink.h). NVML's NVLink
 * throughput fields count every byte a GPU's links carry, whoever asked
 * for it; one launch, waited for, between two reads is the record's
 * traffic as long as nothing else uses the links at that moment (the lab's
 * run is the only work on its GPUs). The counters are in KiB: a launch
 * under a few MiB reads coarsely, so the sentence says how many KiB.
 */
#include "experiments/peer/peer_nvlink.h"

#include <stdio.h>
#include <string.h>

#include "experiments/peer/peer_body.h"

static void add_text(cml_record *rec, const char *text)
{
    if (strlen(rec->finding) + strlen(text) < sizeof rec->finding)
        strcat(rec->finding, text);
}

cml_status cml_peer_nvlink_read(cml_peer_nvlink *nv, cml_record *rec, int dev, int other,
                                const char *uuid, cml_status (*launch)(void *), void *args,
                                double predicted, int push)
{
    if (!nv->tried) {
        nv->tried = 1;
        nv->nvml = cml_nvml_open(nv->why, sizeof nv->why);
    }
    if (!nv->nvml)
        return CML_OK;
    cml_nvml_nvlink_bytes b0, b1;
    if (!cml_nvml_read_nvlink(nv->nvml, uuid, &b0, nv->why, sizeof nv->why)) {
        cml_nvml_close(nv->nvml);
        nv->nvml = NULL;
        return CML_OK;
    }
    cml_status st = cml_peer_use(dev);
    if (st == CML_OK)
        st = launch(args);
    if (st == CML_OK)
        st = cml_peer_sync(dev);
    if (st == CML_OK && other >= 0)
        st = cml_peer_sync(other);
    if (st != CML_OK)
        return st;
    if (!cml_nvml_read_nvlink(nv->nvml, uuid, &b1, nv->why, sizeof nv->why))
        return CML_OK;
    const double tx = b1.data_tx - b0.data_tx, rx = b1.data_rx - b0.data_rx;
    const double rtx = b1.raw_tx - b0.raw_tx, rrx = b1.raw_rx - b0.raw_rx;
    cml_record_add_extra(rec, "nvlink_data_tx", tx, "B");
    cml_record_add_extra(rec, "nvlink_data_rx", rx, "B");
    cml_record_add_extra(rec, "nvlink_raw_tx", rtx, "B");
    cml_record_add_extra(rec, "nvlink_raw_rx", rrx, "B");
    /* a pull's data comes back to dev, a push's leaves it */
    const double data = push ? tx : rx, raw = push ? rtx : rrx;
    char text[320];
    if (predicted > 0)
        snprintf(text, sizeof text,
                 " NVLink counters of GPU %d, one launch: %.0f KiB of data %s (%.3fx the %.0f "
                 "KiB of sectors the model sends over the link), %.0f KiB with the protocol "
                 "(%.3fx the data).",
                 dev, data / 1024, push ? "sent" : "received", data / predicted,
                 predicted / 1024, raw / 1024, data > 0 ? raw / data : 0.0);
    else
        snprintf(text, sizeof text,
                 " NVLink counters of GPU %d, one launch: %.0f KiB of data %s, %.0f KiB with "
                 "the protocol.",
                 dev, data / 1024, push ? "sent" : "received", raw / 1024);
    add_text(rec, text);
    return CML_OK;
}

void cml_peer_nvlink_close(cml_peer_nvlink *nv)
{
    cml_nvml_close(nv->nvml);
    memset(nv, 0, sizeof *nv);
}
