/* The fleet file and the fleet table (fleet_mpi_write.h). */
#include "cli/fleet_mpi_write.h"

#include <string.h>

#include "report/json_writer.h"
#include "report/output_file.h"
#include "report/text_table.h"

#define FLEET_TABLE_WIDTH 130 /* as the results table (src/report/table.c) */

static cml_status write_fleet(FILE *out, const void *ctx)
{
    const cml_fleet_doc *d = ctx;
    cml_json j;
    cml_json_init(&j, out);
    cml_json_begin_object(&j);
    cml_json_kv_string(&j, "schema", "cumemlab-fleet");
    cml_json_kv_i64(&j, "schema_version", 1);
    cml_json_kv_string(&j, "tool_version", CUMEMLAB_VERSION);
    cml_json_kv_string(&j, "command_line", d->command_line);
    cml_json_kv_string(&j, "launcher", d->launcher);
    cml_json_kv_i64(&j, "ranks_total", d->ranks);
    cml_json_key(&j, "ranks");
    cml_json_begin_array(&j);
    for (int r = 0; r < d->ranks; r++)
        cml_json_raw(&j, d->items[r], d->item_len[r]);
    cml_json_end_array(&j);
    cml_json_end_object(&j);
    return ferror(out) ? CML_EIO : CML_OK;
}

cml_status cml_fleet_write(const char *path, const cml_fleet_doc *d, char *err, size_t errlen)
{
    return cml_output_write(path, write_fleet, d, err, errlen);
}

/* "1980->1755", "31->?" : a figure before and after, "?" unknown. */
static void before_after(cml_tt_row row, int col, int a, int b)
{
    char sa[16] = "?", sb[16] = "?";
    if (a >= 0)
        snprintf(sa, sizeof sa, "%d", a);
    if (b >= 0)
        snprintf(sb, sizeof sb, "%d", b);
    if (a < 0 && b < 0)
        cml_tt_set(row, col, "-");
    else
        cml_tt_set(row, col, "%s->%s", sa, sb);
}

enum { C_RANK, C_HOST, C_LOCAL, C_GPU, C_UUID, C_EXIT, C_RECORDS, C_SECONDS, C_SM, C_TEMP, C_WHY };

static void fill(cml_tt_row row, const cml_fleet_rank_row *r, char *why, size_t whylen)
{
    cml_tt_clear(row, C_WHY);
    cml_tt_set(row, C_RANK, "%d", r->rank);
    cml_tt_set(row, C_HOST, "%s", r->host);
    if (r->local_rank >= 0)
        cml_tt_set(row, C_LOCAL, "%d", r->local_rank);
    else
        cml_tt_set(row, C_LOCAL, "?");
    cml_tt_set(row, C_GPU, "%s", r->has_gpu ? r->gpu_name : "-");
    /* "GPU-1a2b3c4d": enough to tell the cards of a fleet apart */
    cml_tt_set(row, C_UUID, "%.12s", r->has_gpu && r->uuid[0] ? r->uuid : "-");
    cml_tt_set(row, C_EXIT, "%d", r->exit_status);
    if (r->has_results)
        cml_tt_set(row, C_RECORDS, "%llu/%llu/%llu", (unsigned long long)r->ok,
                   (unsigned long long)r->waived, (unsigned long long)r->failed);
    else
        cml_tt_set(row, C_RECORDS, "-");
    cml_tt_set(row, C_SECONDS, "%.1f", r->seconds);
    before_after(row, C_SM, r->sm_start, r->sm_end);
    before_after(row, C_TEMP, r->temp_start, r->temp_end);
    snprintf(why, whylen, "%s%s%s", r->diagnostic, r->diagnostic[0] && r->note[0] ? "; " : "",
             r->note);
}

void cml_fleet_print_table(FILE *out, const cml_fleet_doc *d)
{
    static cml_tt t;
    static cml_tt_row row;
    char why[CML_FLEET_DIAG + 256];
    cml_tt_init(&t, 0);
    cml_tt_add(&t, NULL, NULL, "rank", CML_TT_RIGHT, CML_TT_KEEP);
    cml_tt_add(&t, NULL, NULL, "host", CML_TT_LEFT, CML_TT_KEEP);
    cml_tt_add(&t, NULL, NULL, "local", CML_TT_RIGHT, CML_TT_OPTIONAL - 10);
    cml_tt_add(&t, NULL, NULL, "gpu", CML_TT_LEFT, CML_TT_OPTIONAL + 10);
    cml_tt_add(&t, NULL, NULL, "uuid", CML_TT_LEFT, CML_TT_OPTIONAL + 5);
    cml_tt_add(&t, NULL, NULL, "exit", CML_TT_RIGHT, CML_TT_KEEP);
    cml_tt_add(&t, NULL, NULL, "ok/waived/failed", CML_TT_RIGHT, CML_TT_KEEP);
    cml_tt_add(&t, NULL, NULL, "seconds", CML_TT_RIGHT, CML_TT_OPTIONAL + 5);
    cml_tt_add(&t, NULL, NULL, "SM MHz", CML_TT_RIGHT, CML_TT_OPTIONAL);
    cml_tt_add(&t, NULL, NULL, "temp C", CML_TT_RIGHT, CML_TT_OPTIONAL);
    cml_tt_add(&t, NULL, NULL, "diagnostic", CML_TT_LEFT, CML_TT_KEEP);
    int failed = 0;
    for (int r = 0; r < d->ranks; r++) {
        fill(row, &d->rows[r], why, sizeof why);
        cml_tt_measure(&t, row, C_WHY);
        failed += d->rows[r].exit_status != 0;
    }
    cml_tt_fit(&t, FLEET_TABLE_WIDTH);
    fprintf(out, "\nFleet of %d rank%s (%s): %d ran without error, %d failed\n", d->ranks,
            d->ranks == 1 ? "" : "s", d->launcher, d->ranks - failed, failed);
    fprintf(out, "command: %s\n\n", d->command_line);
    cml_tt_print_header(&t, out, 0);
    for (int r = 0; r < d->ranks; r++) {
        fill(row, &d->rows[r], why, sizeof why);
        cml_tt_print_row(&t, out, row, C_WHY, why, FLEET_TABLE_WIDTH, 0);
    }
    fflush(out);
}
