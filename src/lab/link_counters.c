/*
 * The link's counters around one launch (link_counters.h). NVML's NVLink
 * throughput fields count every byte a GPU's links carry, whoever asked for
 * it; one launch, waited for, between two reads is the record's traffic as
 * long as nothing else uses the links then (the lab's run is the only work
 * on its GPUs). The counters are in KiB: a launch of a few MiB reads
 * coarsely, so the sentence gives KiB.
 */
#include "lab/link_counters.h"

#include <stdio.h>
#include <string.h>

int cml_link_counters_before(cml_link_counters *lc, const char *uuid)
{
    if (!lc->tried) {
        lc->tried = 1;
        lc->nvml = cml_nvml_open(lc->why, sizeof lc->why);
    }
    if (!lc->nvml)
        return 0;
    if (!cml_nvml_read_nvlink(lc->nvml, uuid, &lc->before, lc->why, sizeof lc->why)) {
        cml_nvml_close(lc->nvml); /* a GPU without the counters: none for the run */
        lc->nvml = NULL;
        return 0;
    }
    return 1;
}

void cml_link_counters_after(cml_link_counters *lc, const char *uuid, int dev, cml_record *rec,
                             double predicted, int push)
{
    cml_nvml_nvlink_bytes b;
    if (!lc->nvml || !cml_nvml_read_nvlink(lc->nvml, uuid, &b, lc->why, sizeof lc->why))
        return;
    const double tx = b.data_tx - lc->before.data_tx, rx = b.data_rx - lc->before.data_rx;
    const double rtx = b.raw_tx - lc->before.raw_tx, rrx = b.raw_rx - lc->before.raw_rx;
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
    if (strlen(rec->finding) + strlen(text) < sizeof rec->finding)
        strcat(rec->finding, text);
}

void cml_link_counters_close(cml_link_counters *lc)
{
    cml_nvml_close(lc->nvml);
    memset(lc, 0, sizeof *lc);
}
