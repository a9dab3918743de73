/* The terminal report's header block (table_banner.h). */
#include "report/table_banner.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/peak_class.h"
#include "report/report_util.h"
#include "report/text_table.h"

/* "read 3131.0, write 3240.2, copy 3006.1, triad 3030.7 GB/s": the measured
 * class references (core/peak_class.h); 0 when none is known. */
static int peak_classes_text(const cml_results *r, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int c = 0; c < CML_PEAK_CLASS_COUNT; c++) {
        if (!(r->peaks.gbs[c] > 0) || used >= len)
            continue;
        int w = snprintf(buf + used, len - used, "%s%s %.1f", used ? ", " : "",
                         cml_peak_class_name(c), r->peaks.gbs[c]);
        if (w < 0)
            return 0;
        used += (size_t)w;
    }
    if (used && used < len)
        snprintf(buf + used, len - used, " GB/s");
    return used > 0;
}

/* Bytes as KiB/MiB/GiB with one decimal. */
static void fmt_bytes(char *buf, size_t len, uint64_t b)
{
    if (b >= (1ull << 30))
        snprintf(buf, len, "%.1f GiB", (double)b / (double)(1ull << 30));
    else if (b >= (1ull << 20))
        snprintf(buf, len, "%.1f MiB", (double)b / (double)(1ull << 20));
    else
        snprintf(buf, len, "%.1f KiB", (double)b / 1024.0);
}

void cml_report_banner(FILE *out, const cml_results *r, int width)
{
    cml_tt_wrap(out, "cumemlab ", r->tool_version[0] ? r->tool_version : "(version unknown)",
                width, 2);
    if (r->command_line[0])
        cml_tt_wrap(out, "command: ", r->command_line, width, 2);
    if (r->has_device) {
        const cml_device_facts *d = &r->device;
        char l2[32], global[32], line[512];
        fmt_bytes(l2, sizeof l2, d->l2_bytes);
        fmt_bytes(global, sizeof global, d->global_bytes);
        snprintf(line, sizeof line, "%s (compute capability %d.%d, %d SMs)", d->name, d->cc_major,
                 d->cc_minor, d->sm_count);
        char prefix[32];
        snprintf(prefix, sizeof prefix, "GPU %d: ", d->index);
        cml_tt_wrap(out, prefix, line, width, 2);
        fprintf(out, "memory: %s global, L2 %s, bus %d bit at %.0f MHz\n", global, l2,
                d->bus_width_bits, d->mem_clock_khz / 1000.0);
        char theo[32], meas[96];
        if (isfinite(d->theoretical_gbs) && d->theoretical_gbs > 0)
            snprintf(theo, sizeof theo, "%.1f GB/s", d->theoretical_gbs);
        else
            snprintf(theo, sizeof theo, "unknown");
        double pct;
        if (isfinite(r->peak_gbs) && r->peak_gbs > 0) {
            if (cml_rep_percent_of(r->peak_gbs, d->theoretical_gbs, &pct))
                snprintf(meas, sizeof meas, "%.1f GB/s (%.1f%% of theoretical)", r->peak_gbs,
                         pct);
            else
                snprintf(meas, sizeof meas, "%.1f GB/s", r->peak_gbs);
        } else {
            snprintf(meas, sizeof meas, "not measured");
        }
        fprintf(out, "peak bandwidth: theoretical %s, %s %s\n", theo,
                r->peak_given && r->peak_gbs > 0 ? "given with --peak" : "measured", meas);
        char classes[240];
        if (!r->peak_given && peak_classes_text(r, classes, sizeof classes)) {
            size_t used = strlen(classes);
            snprintf(classes + used, sizeof classes - used,
                     "; each record's \"peak %%\" is of its class (column \"of\")");
            cml_tt_wrap(out, "peak by class: ", classes, width, 2);
        }
    }
    if (r->model_only)
        fputs("No GPU was used: every figure below is the model's prediction.\n", out);
}

