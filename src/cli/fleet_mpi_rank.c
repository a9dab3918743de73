/* A rank's row and its item of the fleet file (fleet_mpi_rank.h). */
#define _POSIX_C_SOURCE 200809L
#include "cli/fleet_mpi_rank.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/json_read.h"
#include "report/json_writer.h"

/* The GPU the results say the command used. */
typedef struct used_gpu {
    int64_t index;
    int64_t cuda_driver;         /* the results' device.driver_version; -1 absent */
    char name[96], uuid[96];
} used_gpu;

static void copy_string(const cml_jval *v, char *buf, size_t len)
{
    buf[0] = '\0';
    if (v && v->type == CML_J_STRING)
        snprintf(buf, len, "%s", v->text);
}

/* Count the records by state and find the device; 1 when root is results. */
static int read_results(const cml_jval *root, cml_fleet_rank_row *row, used_gpu *g, int *has_gpu)
{
    const cml_jval *schema = cml_jobject_get(root, "schema");
    if (!schema || schema->type != CML_J_STRING || strcmp(schema->text, "cumemlab-results") != 0)
        return 0;
    const cml_jval *recs = cml_jobject_get(root, "records");
    for (size_t i = 0; recs && recs->type == CML_J_ARRAY && i < recs->count; i++) {
        const cml_jval *st = cml_jobject_get(&recs->items[i], "state");
        if (!st || st->type != CML_J_STRING)
            continue;
        if (!strcmp(st->text, "ok"))
            row->ok++;
        else if (!strcmp(st->text, "waived"))
            row->waived++;
        else if (!strcmp(st->text, "failed"))
            row->failed++;
    }
    const cml_jval *dev = cml_jobject_get(root, "device");
    *has_gpu = dev && dev->type == CML_J_OBJECT;
    if (*has_gpu) {
        if (!cml_jval_i64(cml_jobject_get(dev, "index"), &g->index))
            g->index = -1;
        if (!cml_jval_i64(cml_jobject_get(dev, "driver_version"), &g->cuda_driver))
            g->cuda_driver = -1;
        copy_string(cml_jobject_get(dev, "name"), g->name, sizeof g->name);
        copy_string(cml_jobject_get(dev, "uuid"), g->uuid, sizeof g->uuid);
    }
    return 1;
}

static void kv_count(cml_json *j, const char *key, int64_t v)
{
    if (v >= 0)
        cml_json_kv_i64(j, key, v);
    else
        cml_json_kv_null(j, key);
}

static void kv_text(cml_json *j, const char *key, const char *s)
{
    cml_json_kv_string(j, key, s && s[0] ? s : NULL);
}

/* One moment of the GPU: clocks, temperature, power, clock event reasons. */
static void write_state(cml_json *j, const char *key, const cml_nvml_gpu *g)
{
    cml_json_key(j, key);
    if (!g) {
        cml_json_null(j);
        return;
    }
    cml_json_begin_object(j);
    kv_count(j, "sm_clock_mhz", g->sm_clock_mhz);
    kv_count(j, "mem_clock_mhz", g->mem_clock_mhz);
    kv_count(j, "temperature_c", g->temperature_c);
    if (g->power_w >= 0)
        cml_json_kv_double(j, "power_w", g->power_w);
    else
        cml_json_kv_null(j, "power_w");
    cml_json_key(j, "clock_event_reasons");
    if (g->reasons_known) {
        const char *names[64];
        char spare[64][24];
        size_t n = cml_nvml_reason_names(g->event_reasons, names, 64, spare);
        cml_json_begin_array(j);
        for (size_t i = 0; i < n; i++)
            cml_json_string(j, names[i]);
        cml_json_end_array(j);
    } else {
        cml_json_null(j);
    }
    cml_json_end_object(j);
}

static void write_gpu(cml_json *j, const used_gpu *g, const cml_fleet_nvml *nv,
                      const cml_nvml_gpu *start, const cml_nvml_gpu *end)
{
    cml_json_begin_object(j);
    kv_count(j, "index", g->index);
    kv_text(j, "name", g->name[0] ? g->name : start ? start->name : "");
    kv_text(j, "uuid", g->uuid);
    kv_text(j, "serial", start ? start->serial : NULL);
    kv_text(j, "pci_bus_id", start ? start->pci_bus_id : NULL);
    kv_text(j, "driver", nv->ok ? nv->start.driver : NULL);
    kv_count(j, "cuda_driver_version",
             nv->ok && nv->start.cuda_driver_version >= 0 ? nv->start.cuda_driver_version
                                                          : g->cuda_driver);
    write_state(j, "start", start);
    write_state(j, "end", end);
    cml_json_end_object(j);
}

char *cml_fleet_rank_item(cml_fleet_rank_row *row, const cml_fleet_child *c, const cml_fleet_nvml *nv,
                          size_t *len)
{
    row->exit_status = c->exit_status;
    row->seconds = c->seconds;
    row->ok = row->waived = row->failed = 0;
    row->sm_start = row->sm_end = row->temp_start = row->temp_end = -1;
    row->gpu_name[0] = row->uuid[0] = row->note[0] = '\0';
    snprintf(row->diagnostic, sizeof row->diagnostic, "%s", c->diagnostic);
    row->has_results = row->has_gpu = 0;
    used_gpu g = {-1, -1, "", ""};
    if (c->results) {
        char err[256];
        cml_jdoc *doc = NULL;
        cml_status st = cml_jdoc_parse(c->results, c->results_len, &doc, err, sizeof err);
        const cml_jval *root = st == CML_OK ? cml_jdoc_root(doc) : NULL;
        if (root && root->type == CML_J_OBJECT)
            row->has_results = read_results(root, row, &g, &row->has_gpu);
        else if (!row->diagnostic[0])
            snprintf(row->diagnostic, sizeof row->diagnostic,
                     "its --json output is not a JSON object (%s): left out",
                     st == CML_OK ? "another value" : err);
        cml_jdoc_free(doc);
    }
    const cml_nvml_gpu *start = NULL, *end = NULL;
    if (row->has_gpu) {
        snprintf(row->gpu_name, sizeof row->gpu_name, "%s", g.name);
        snprintf(row->uuid, sizeof row->uuid, "%s", g.uuid);
        if (!nv->ok) {
            snprintf(row->note, sizeof row->note, "NVML not available: %s", nv->why);
        } else {
            start = cml_nvml_find(&nv->start, g.uuid);
            end = cml_nvml_find(&nv->end, g.uuid);
            if (!start)
                snprintf(row->note, sizeof row->note, "NVML not available: it lists no GPU "
                                                      "of UUID %s", g.uuid[0] ? g.uuid : "(none)");
        }
        row->sm_start = start ? start->sm_clock_mhz : -1;
        row->temp_start = start ? start->temperature_c : -1;
        row->sm_end = end ? end->sm_clock_mhz : -1;
        row->temp_end = end ? end->temperature_c : -1;
    }

    char *text = NULL;
    FILE *out = open_memstream(&text, len);
    if (!out)
        return NULL;
    cml_json j;
    cml_json_init(&j, out);
    cml_json_begin_object(&j);
    cml_json_kv_i64(&j, "rank", row->rank);
    kv_count(&j, "local_rank", row->local_rank);
    cml_json_kv_string(&j, "host", row->host);
    cml_json_kv_i64(&j, "exit_status", row->exit_status);
    kv_text(&j, "diagnostic", row->diagnostic);
    cml_json_key(&j, "gpu");
    if (row->has_gpu)
        write_gpu(&j, &g, nv, start, end);
    else
        cml_json_null(&j);
    cml_json_key(&j, "results");
    if (row->has_results)
        cml_json_raw(&j, c->results, c->results_len);
    else
        cml_json_null(&j);
    cml_json_end_object(&j);
    int bad = ferror(out);
    if (fclose(out) != 0 || bad) {
        free(text);
        return NULL;
    }
    return text;
}
