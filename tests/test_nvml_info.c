/*
 * NVML through dlopen (src/gpu/nvml_info.c), where the test runs: without a
 * driver (CI) every entry point says why in one line and leaves its output
 * defined; with one, a UUID no GPU has is refused by name, and each GPU's
 * NVLink counters, read twice, never run backwards.
 */
#include <string.h>

#include "gpu/nvml_info.h"
#include "test_util.h"

static void test_session(void)
{
    char why[200] = "";
    cml_nvml_session *s = cml_nvml_open(why, sizeof why);
    if (!s) {
        /* no driver: the reason names the library or NVML's own error */
        CHECK(strstr(why, "libnvidia-ml") != NULL || strstr(why, "NVML") != NULL);
        cml_nvml_close(NULL); /* closing nothing is allowed */
        return;
    }
    cml_nvml_nvlink_bytes b;
    memset(&b, 0xFF, sizeof b);
    why[0] = '\0';
    CHECK(!cml_nvml_read_nvlink(s, "GPU-00000000-0000-0000-0000-000000000000", &b, why,
                                sizeof why));
    CHECK(strstr(why, "GPU-00000000-0000-0000-0000-000000000000") != NULL);
    CHECK(b.data_tx == 0 && b.data_rx == 0 && b.raw_tx == 0 && b.raw_rx == 0);
    cml_nvml_snapshot snap;
    if (cml_nvml_read(&snap, why, sizeof why)) {
        for (unsigned i = 0; i < snap.count; i++) {
            cml_nvml_nvlink_bytes a, c;
            if (!cml_nvml_read_nvlink(s, snap.gpu[i].uuid, &a, why, sizeof why))
                continue; /* a GPU without NVLink: the reason, nothing read */
            CHECK(cml_nvml_read_nvlink(s, snap.gpu[i].uuid, &c, why, sizeof why));
            CHECK(c.data_tx >= a.data_tx && c.data_rx >= a.data_rx);
            CHECK(c.raw_tx >= a.raw_tx && c.raw_rx >= a.raw_rx);
        }
    }
    cml_nvml_close(s);
}

int main(void)
{
    test_session();
    return cml_test_summary("test_nvml_info");
}
