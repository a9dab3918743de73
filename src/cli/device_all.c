/*
 * cumemlab device --all: every GPU of the host with its memory facts and
 * its measured peak by class (the records of `device`, one set per GPU,
 * variants "gpu=N ..."), and the path between each ordered pair: what CUDA
 * says (peer access, atomics, the driver's rank of the path: gpu/gpu.h's
 * cml_gpu_link_between) and what NVML says (the NVLinks that join them,
 * else the PCIe path, as nvidia-smi topo -m names it: gpu/nvml_info.h).
 * The text ends with the matrix nvidia-smi topo -m draws.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/session.h"
#include "experiments/device_facts/device_facts.h"
#include "gpu/gpu.h"
#include "gpu/nvml_info.h"
#include "lab/lab.h"

/* An NVLink's rated bandwidth per direction, by the architecture's NVLink
 * generation: 20 GB/s (Pascal, NVLink 1), 25 GB/s (Volta, Ampere and
 * Hopper: NVLink 2, 3 and 4), 50 GB/s (Blackwell, NVLink 5). */
static double nvlink_gbs(const cml_device_facts *f)
{
    if (f->cc_major >= 10)
        return 50.0;
    return f->cc_major >= 7 ? 25.0 : 20.0;
}

/* The matrix cell of a pair: "NV18", or the PCIe path, or "?". */
static void cell(const cml_nvml_link *l, char *buf, size_t len)
{
    if (l->known && l->nvlinks)
        snprintf(buf, len, "NV%u", l->nvlinks);
    else if (l->known && l->pcie >= 0)
        snprintf(buf, len, "%s", cml_nvml_pcie_name(l->pcie));
    else
        snprintf(buf, len, "?");
}

/* The record of the pair (a, b). */
static cml_status link_record(cml_results *r, const cml_device_facts *fa,
                              const cml_device_facts *fb, const cml_nvml_link *l)
{
    char variant[96];
    snprintf(variant, sizeof variant, "gpu=%d to=%d link", fa->index, fb->index);
    cml_record *rec = cml_results_add(r, "device-facts", variant);
    if (!rec)
        return CML_ENOMEM;
    cml_record_add_param(rec, "gpu", fa->index, "");
    cml_record_add_param(rec, "to", fb->index, "");
    cml_gpu_link cl;
    const cml_status st = cml_gpu_link_between(fa->index, fb->index, &cl);
    if (st != CML_OK) {
        rec->state = CML_REC_FAILED;
        cml_record_note(rec, "CUDA cannot say what joins GPU %d to GPU %d: %s", fa->index,
                        fb->index, cml_gpu_error(NULL));
        return CML_OK;
    }
    cml_record_add_extra(rec, "peer_access", cl.peer_access, "bool");
    cml_record_add_extra(rec, "native_atomics", cl.native_atomics, "bool");
    cml_record_add_extra(rec, "performance_rank", cl.performance_rank, "");
    char path[160];
    if (l->known && l->nvlinks) {
        const double rated = l->nvlinks * nvlink_gbs(fa);
        cml_record_add_extra(rec, "nvlinks", l->nvlinks, "links");
        cml_record_add_extra(rec, "nvlink_version", l->version, "");
        cml_record_add_extra(rec, "rated_gbs", rated, "GB/s");
        snprintf(path, sizeof path,
                 "NV%u: %u NVLinks%s, %.0f GB/s each way as rated (%.0f GB/s a link on compute "
                 "capability %d.%d)",
                 l->nvlinks, l->nvlinks, l->via_switch ? " through NVSwitch" : "", rated,
                 nvlink_gbs(fa), fa->cc_major, fa->cc_minor);
    } else if (l->known) {
        cml_record_add_extra(rec, "nvlinks", 0, "links");
        snprintf(path, sizeof path, "no NVLink: PCIe, %s (nvidia-smi topo -m's name)",
                 cml_nvml_pcie_name(l->pcie));
    } else {
        snprintf(path, sizeof path, "NVLinks and PCIe path unknown (no NVML)");
    }
    cml_record_finding(rec,
                       "GPU %d -> GPU %d: %s; peer access %s%s (cumemlab run peer measures it).",
                       fa->index, fb->index, path, cl.peer_access ? "yes" : "no",
                       cl.peer_access ? (cl.native_atomics ? ", native atomics" : ", no native atomics")
                                      : ": a kernel cannot reach the other's memory, copies go "
                                        "through the host");
    return CML_OK;
}

static void print_matrix(FILE *out, int n, const int *open, const cml_nvml_link *links,
                         const cml_device_facts *facts)
{
    fprintf(out, "\nTopology (as nvidia-smi topo -m draws it; +p: peer access):\n%-6s", "");
    for (int j = 0; j < n; j++) {
        char h[16];
        snprintf(h, sizeof h, "GPU%d", j);
        fprintf(out, " %-10s", h);
    }
    fputc('\n', out);
    for (int i = 0; i < n; i++) {
        fprintf(out, "GPU%-3d", i);
        for (int j = 0; j < n; j++) {
            char c[24] = "X";
            if (i != j) {
                cml_gpu_link cl = {0, -1, 0};
                cell(&links[i * n + j], c, sizeof c);
                if (open[i] && open[j] && cml_gpu_link_between(i, j, &cl) == CML_OK &&
                    cl.peer_access)
                    strncat(c, " +p", sizeof c - strlen(c) - 1);
            }
            fprintf(out, " %-10s", c);
        }
        fprintf(out, "  %s\n", open[i] ? facts[i].name : "(not opened)");
    }
}

int cml_cmd_device_all(const cml_cli *cli)
{
    char why[320];
    const int n = cml_gpu_count(why, sizeof why);
    if (n == 0) {
        fprintf(stderr, "cumemlab: device --all needs a GPU: %s\n", why);
        return CML_EXIT_FAIL;
    }
    cml_results r;
    cml_cli_results_init(cli, &r);
    cml_device_facts *facts = calloc((size_t)n, sizeof *facts);
    int *open = calloc((size_t)n, sizeof *open);
    cml_nvml_link *links = calloc((size_t)n * (size_t)n, sizeof *links);
    const char **uuids = calloc((size_t)n, sizeof *uuids);
    if (!facts || !open || !links || !uuids) {
        fprintf(stderr, "cumemlab: device --all: out of memory\n");
        free(facts), free(open), free(links), free(uuids);
        cml_results_free(&r);
        return CML_EXIT_FAIL;
    }
    int rc = CML_EXIT_OK;
    cml_peak_refs first_peaks;
    memset(&first_peaks, 0, sizeof first_peaks);
    int first = -1;
    for (int i = 0; i < n; i++) {
        cml_lab_settings ls = cml_cli_lab_settings(cli);
        ls.device = i;
        ls.counters = CML_COUNTERS_OFF; /* facts and peaks: no profiler */
        cml_lab lab;
        char what[48];
        snprintf(what, sizeof what, "device --all (GPU %d)", i);
        if (!cml_cli_open_gpu(&ls, &lab, &r, what)) {
            cml_results_diag(&r, CML_DIAG_ERROR, "device-facts", "GPU %d could not be opened",
                             i);
            rc = CML_EXIT_FAIL;
            continue;
        }
        facts[i] = *lab.plan.dev;
        uuids[i] = facts[i].uuid;
        if (first < 0) { /* the run is named by its first GPU */
            first = i;
            first_peaks = lab.plan.peaks;
        }
        open[i] = 1;
        if (cml_device_facts_record_gpu(lab.plan.dev, &lab.plan.peaks, &r) != CML_OK)
            rc = CML_EXIT_FAIL;
        cml_lab_close(&lab);
    }
    /* Each open set the run's device and peak to its GPU's: the run is named
     * by the first GPU that opened. */
    if (first >= 0) {
        r.has_device = 1;
        r.device = facts[first];
        r.peaks = first_peaks;
        r.peak_gbs = cml_peak_refs_max(&first_peaks);
    }
    char nvml_why[320] = "";
    int all_open = 1;
    for (int i = 0; i < n; i++)
        all_open &= open[i];
    if (!all_open || !cml_nvml_read_links(uuids, (unsigned)n, links, nvml_why, sizeof nvml_why))
        cml_results_diag(&r, CML_DIAG_WARNING, "device-facts",
                         "NVLinks and PCIe paths not read: %s",
                         all_open ? nvml_why : "a GPU could not be opened");
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j && open[i] && open[j] &&
                link_record(&r, &facts[i], &facts[j], &links[i * n + j]) != CML_OK)
                rc = CML_EXIT_FAIL;
    const int erc = cml_cli_emit(cli, &r);
    if (!cli->quiet)
        print_matrix(cml_cli_human_out(cli), n, open, links, facts);
    free(facts), free(open), free(links), free(uuids);
    cml_results_free(&r);
    return rc ? rc : erc;
}
