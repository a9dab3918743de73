/*
 * NVML through dlopen (nvml_info.h). The declarations below are the few of
 * NVML's public API (nvml.h, the NVIDIA Management Library, as shipped with
 * the driver and the CUDA toolkit's nvml/ folder) that this file uses,
 * written out because the header is not always installed: functions by
 * their exported names, structures as laid out in nvml.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "gpu/nvml_info.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* From nvml.h. */
typedef int nvmlReturn_t;                 /* nvmlReturn_enum: NVML_SUCCESS = 0 */
typedef struct nvmlDevice_st *nvmlDevice_t;
enum { NVML_SUCCESS = 0 };
enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };     /* nvmlClockType_t */
enum { NVML_TEMPERATURE_GPU = 0 };                  /* nvmlTemperatureSensors_t */
typedef struct nvmlPciInfo_st {                     /* the layout of nvmlDeviceGetPciInfo_v3 */
    char busIdLegacy[16];                           /* NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE */
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];                                 /* NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE */
} nvmlPciInfo_t;

enum { NVML_FEATURE_ENABLED = 1 };                 /* nvmlEnableState_t */
enum { NVML_NVLINK_DEVICE_TYPE_SWITCH = 2 };        /* nvmlIntNvLinkDeviceType_t */
enum { NVML_P2P_CAPS_INDEX_NVLINK = 2 };            /* nvmlGpuP2PCapsIndex_t */
enum { NVML_P2P_STATUS_OK = 0 };                    /* nvmlGpuP2PStatus_t */
#define NVML_NVLINK_MAX_LINKS 18                    /* nvml.h of CUDA 12.9: Hopper's 18 */
/* NVLink throughput counters, KiB, scopeId UINT_MAX: summed over the links */
enum { NVML_FI_DATA_TX = 138, NVML_FI_DATA_RX = 139, NVML_FI_RAW_TX = 140, NVML_FI_RAW_RX = 141 };
enum { NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3 };     /* nvmlValueType_t */
typedef union nvmlValue_st {                        /* nvmlValue_t */
    double dVal;
    int siVal;
    unsigned int uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    signed long long sllVal;
    unsigned short usVal;
} nvmlValue_t;
typedef struct nvmlFieldValue_st {                  /* nvmlFieldValue_t */
    unsigned int fieldId, scopeId;
    long long timestamp, latencyUsec;
    int valueType;                                  /* nvmlValueType_t */
    nvmlReturn_t nvmlReturn;
    nvmlValue_t value;
} nvmlFieldValue_t;

typedef struct nvml_api {
    void *lib;
    nvmlReturn_t (*init)(void);                                        /* nvmlInit_v2 */
    nvmlReturn_t (*shutdown)(void);                                    /* nvmlShutdown */
    const char *(*error_string)(nvmlReturn_t);                         /* nvmlErrorString */
    nvmlReturn_t (*count)(unsigned int *);                             /* nvmlDeviceGetCount_v2 */
    nvmlReturn_t (*handle)(unsigned int, nvmlDevice_t *);              /* ..GetHandleByIndex_v2 */
    nvmlReturn_t (*uuid)(nvmlDevice_t, char *, unsigned int);          /* nvmlDeviceGetUUID */
    nvmlReturn_t (*name)(nvmlDevice_t, char *, unsigned int);          /* nvmlDeviceGetName */
    nvmlReturn_t (*serial)(nvmlDevice_t, char *, unsigned int);        /* nvmlDeviceGetSerial */
    nvmlReturn_t (*pci)(nvmlDevice_t, nvmlPciInfo_t *);                /* ..GetPciInfo_v3 */
    nvmlReturn_t (*driver)(char *, unsigned int);                      /* ..GetDriverVersion */
    nvmlReturn_t (*cuda_driver)(int *);                   /* nvmlSystemGetCudaDriverVersion_v2 */
    nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned int *);          /* ..GetClockInfo */
    nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned int *);    /* ..GetTemperature */
    nvmlReturn_t (*power)(nvmlDevice_t, unsigned int *);   /* ..GetPowerUsage (milliwatts) */
    nvmlReturn_t (*reasons)(nvmlDevice_t, unsigned long long *); /* ..CurrentClocksEventReasons */
    nvmlReturn_t (*by_uuid)(const char *, nvmlDevice_t *);           /* ..GetHandleByUUID */
    nvmlReturn_t (*link_state)(nvmlDevice_t, unsigned int, int *);     /* ..GetNvLinkState */
    nvmlReturn_t (*link_version)(nvmlDevice_t, unsigned int, unsigned int *); /* ..Version */
    nvmlReturn_t (*link_remote)(nvmlDevice_t, unsigned int, nvmlPciInfo_t *); /* ..RemotePciInfo_v2 */
    nvmlReturn_t (*ancestor)(nvmlDevice_t, nvmlDevice_t, int *); /* ..TopologyCommonAncestor */
    nvmlReturn_t (*link_type)(nvmlDevice_t, unsigned int, int *); /* ..NvLinkRemoteDeviceType */
    nvmlReturn_t (*p2p)(nvmlDevice_t, nvmlDevice_t, int, int *);  /* nvmlDeviceGetP2PStatus */
    nvmlReturn_t (*fields)(nvmlDevice_t, int, nvmlFieldValue_t *); /* ..GetFieldValues */
} nvml_api;

/* One symbol into a function pointer (slot, NULL when absent); the name
 * an older driver exports stands in where it has the same signature
 * (ThrottleReasons, the name before NVML 12 renamed it EventReasons).
 * memcpy, not a cast: ISO C leaves the object-to-function pointer
 * conversion undefined, POSIX guarantees the representation. */
static void sym(void *lib, void *slot, size_t size, const char *name, const char *older)
{
    void *p = dlsym(lib, name);
    if (!p && older)
        p = dlsym(lib, older);
    memcpy(slot, &p, size);
}
#define SYM(field, name, older) sym(a->lib, &a->field, sizeof a->field, name, older)

/* The library and its functions; 0 with why when the library or a function
 * every driver since NVML's v2 API has is missing. */
static int load(nvml_api *a, char *why, size_t whylen)
{
    memset(a, 0, sizeof *a);
    a->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!a->lib) {
        snprintf(why, whylen, "libnvidia-ml.so.1 not found (no NVIDIA driver)");
        return 0;
    }
    SYM(init, "nvmlInit_v2", NULL);
    SYM(shutdown, "nvmlShutdown", NULL);
    SYM(error_string, "nvmlErrorString", NULL);
    SYM(count, "nvmlDeviceGetCount_v2", NULL);
    SYM(handle, "nvmlDeviceGetHandleByIndex_v2", NULL);
    SYM(uuid, "nvmlDeviceGetUUID", NULL);
    SYM(name, "nvmlDeviceGetName", NULL);
    SYM(serial, "nvmlDeviceGetSerial", NULL);
    SYM(pci, "nvmlDeviceGetPciInfo_v3", NULL);
    SYM(driver, "nvmlSystemGetDriverVersion", NULL);
    SYM(cuda_driver, "nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion");
    SYM(clock, "nvmlDeviceGetClockInfo", NULL);
    SYM(temperature, "nvmlDeviceGetTemperature", NULL);
    SYM(power, "nvmlDeviceGetPowerUsage", NULL);
    SYM(reasons, "nvmlDeviceGetCurrentClocksEventReasons",
        "nvmlDeviceGetCurrentClocksThrottleReasons");
    SYM(by_uuid, "nvmlDeviceGetHandleByUUID", NULL);
    SYM(link_state, "nvmlDeviceGetNvLinkState", NULL);
    SYM(link_version, "nvmlDeviceGetNvLinkVersion", NULL);
    SYM(link_remote, "nvmlDeviceGetNvLinkRemotePciInfo_v2", NULL);
    SYM(ancestor, "nvmlDeviceGetTopologyCommonAncestor", NULL);
    SYM(link_type, "nvmlDeviceGetNvLinkRemoteDeviceType", NULL);
    SYM(p2p, "nvmlDeviceGetP2PStatus", NULL);
    SYM(fields, "nvmlDeviceGetFieldValues", NULL);
    if (!a->init || !a->shutdown || !a->count || !a->handle || !a->uuid) {
        snprintf(why, whylen, "libnvidia-ml.so.1 lacks nvmlInit_v2 or the device functions "
                              "(driver too old)");
        dlclose(a->lib);
        return 0;
    }
    return 1;
}

static int start(nvml_api *a, char *why, size_t whylen);

/* A string fact, "" when NVML cannot give it. */
static void text(nvmlReturn_t (*fn)(nvmlDevice_t, char *, unsigned int), nvmlDevice_t d,
                 char *buf, size_t len)
{
    buf[0] = '\0';
    if (!fn || fn(d, buf, (unsigned)len) != NVML_SUCCESS)
        buf[0] = '\0';
    buf[len - 1] = '\0';
}

static int clock_mhz(const nvml_api *a, nvmlDevice_t d, int which)
{
    unsigned v;
    return a->clock && a->clock(d, which, &v) == NVML_SUCCESS ? (int)v : -1;
}

static void read_gpu(const nvml_api *a, unsigned index, nvmlDevice_t d, cml_nvml_gpu *g)
{
    memset(g, 0, sizeof *g);
    g->index = index;
    text(a->name, d, g->name, sizeof g->name);
    text(a->uuid, d, g->uuid, sizeof g->uuid);
    text(a->serial, d, g->serial, sizeof g->serial);
    nvmlPciInfo_t pci;
    if (a->pci && a->pci(d, &pci) == NVML_SUCCESS)
        snprintf(g->pci_bus_id, sizeof g->pci_bus_id, "%.31s", pci.busId);
    g->sm_clock_mhz = clock_mhz(a, d, NVML_CLOCK_SM);
    g->mem_clock_mhz = clock_mhz(a, d, NVML_CLOCK_MEM);
    unsigned v;
    g->temperature_c =
        a->temperature && a->temperature(d, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS ? (int)v
                                                                                    : -1;
    g->power_w = a->power && a->power(d, &v) == NVML_SUCCESS ? v / 1000.0 : -1.0;
    g->reasons_known = a->reasons && a->reasons(d, &g->event_reasons) == NVML_SUCCESS;
    if (!g->reasons_known)
        g->event_reasons = 0;
}

int cml_nvml_read(cml_nvml_snapshot *s, char *why, size_t whylen)
{
    memset(s, 0, sizeof *s);
    s->cuda_driver_version = -1;
    nvml_api a;
    if (!start(&a, why, whylen))
        return 0;
    if (a.driver && a.driver(s->driver, sizeof s->driver) != NVML_SUCCESS)
        s->driver[0] = '\0';
    s->driver[sizeof s->driver - 1] = '\0';
    if (a.cuda_driver && a.cuda_driver(&s->cuda_driver_version) != NVML_SUCCESS)
        s->cuda_driver_version = -1;
    unsigned n = 0;
    if (a.count(&n) != NVML_SUCCESS)
        n = 0;
    for (unsigned i = 0; i < n && s->count < CML_NVML_MAX_GPUS; i++) {
        nvmlDevice_t d;
        /* A GPU NVML cannot open (lost, no permission) is left out: the
         * fleet matches by UUID, and it has none to give. */
        if (a.handle(i, &d) == NVML_SUCCESS)
            read_gpu(&a, i, d, &s->gpu[s->count++]);
    }
    a.shutdown();
    dlclose(a.lib);
    return 1;
}

/* Load and initialise, or 0 with why. */
static int start(nvml_api *a, char *why, size_t whylen)
{
    if (!load(a, why, whylen))
        return 0;
    nvmlReturn_t st = a->init();
    if (st != NVML_SUCCESS) {
        snprintf(why, whylen, "NVML initialisation failed: %s",
                 a->error_string ? a->error_string(st) : "unknown error");
        dlclose(a->lib);
        return 0;
    }
    return 1;
}

/* a's active NVLinks that reach b: those whose far end is b (by PCI bus
 * id), and, where NVML says the two talk over NVLink, those whose far end
 * is an NVSwitch (an HGX board: every link goes to the switches, and
 * nvidia-smi topo -m counts them all as NV#). */
static void read_link(const nvml_api *a, nvmlDevice_t da, nvmlDevice_t db, cml_nvml_link *l)
{
    l->known = 1;
    l->nvlinks = 0;
    l->via_switch = 0;
    l->version = -1;
    l->pcie = -1;
    int level;
    if (a->ancestor && a->ancestor(da, db, &level) == NVML_SUCCESS)
        l->pcie = level;
    nvmlPciInfo_t pb;
    if (!a->link_state || !a->link_remote || !a->pci || a->pci(db, &pb) != NVML_SUCCESS)
        return;
    int status = -1;
    const int nvlink_p2p = a->p2p && a->p2p(da, db, NVML_P2P_CAPS_INDEX_NVLINK, &status) ==
                                         NVML_SUCCESS && status == NVML_P2P_STATUS_OK;
    for (unsigned k = 0; k < NVML_NVLINK_MAX_LINKS; k++) {
        int active = 0, type = -1;
        nvmlPciInfo_t far;
        if (a->link_state(da, k, &active) != NVML_SUCCESS || active != NVML_FEATURE_ENABLED)
            continue;
        const int to_b = a->link_remote(da, k, &far) == NVML_SUCCESS &&
                         strncmp(far.busId, pb.busId, sizeof far.busId) == 0;
        const int to_switch = nvlink_p2p && a->link_type &&
                              a->link_type(da, k, &type) == NVML_SUCCESS &&
                              type == NVML_NVLINK_DEVICE_TYPE_SWITCH;
        if (!to_b && !to_switch)
            continue;
        l->nvlinks++;
        l->via_switch |= to_switch;
        unsigned v;
        if (l->version < 0 && a->link_version && a->link_version(da, k, &v) == NVML_SUCCESS)
            l->version = (int)v;
    }
}

int cml_nvml_read_links(const char *const *uuids, unsigned n, cml_nvml_link *out, char *why,
                        size_t whylen)
{
    memset(out, 0, sizeof *out * n * n);
    for (unsigned i = 0; i < n * n; i++)
        out[i].version = out[i].pcie = -1;
    nvml_api a;
    if (!start(&a, why, whylen))
        return 0;
    if (!a.by_uuid) {
        snprintf(why, whylen, "libnvidia-ml.so.1 lacks nvmlDeviceGetHandleByUUID");
        a.shutdown();
        dlclose(a.lib);
        return 0;
    }
    for (unsigned i = 0; i < n; i++) {
        nvmlDevice_t di;
        if (a.by_uuid(uuids[i], &di) != NVML_SUCCESS)
            continue;
        for (unsigned j = 0; j < n; j++) {
            nvmlDevice_t dj;
            if (j != i && a.by_uuid(uuids[j], &dj) == NVML_SUCCESS)
                read_link(&a, di, dj, &out[i * n + j]);
        }
    }
    a.shutdown();
    dlclose(a.lib);
    return 1;
}

const char *cml_nvml_pcie_name(int level)
{
    switch (level) {
    case 0: return "board";
    case 10: return "PIX";
    case 20: return "PXB";
    case 30: return "PHB";
    case 40: return "NODE";
    case 50: return "SYS";
    default: return "?";
    }
}

const cml_nvml_gpu *cml_nvml_find(const cml_nvml_snapshot *s, const char *uuid)
{
    if (!uuid || !uuid[0])
        return NULL;
    for (unsigned i = 0; i < s->count; i++)
        if (!strcmp(s->gpu[i].uuid, uuid))
            return &s->gpu[i];
    return NULL;
}

/* nvmlClocksEventReason* of nvml.h, bit by bit, named as nvidia-smi's
 * clocks_event_reasons.* fields are. */
static const char *const reason_name[] = {
    "gpu_idle",                    /* 0x001 nvmlClocksEventReasonGpuIdle */
    "applications_clocks_setting", /* 0x002 ...ApplicationsClocksSetting */
    "sw_power_cap",                /* 0x004 ...SwPowerCap */
    "hw_slowdown",                 /* 0x008 nvmlClocksThrottleReasonHwSlowdown */
    "sync_boost",                  /* 0x010 ...SyncBoost */
    "sw_thermal_slowdown",         /* 0x020 ...SwThermalSlowdown */
    "hw_thermal_slowdown",         /* 0x040 nvmlClocksThrottleReasonHwThermalSlowdown */
    "hw_power_brake_slowdown",     /* 0x080 nvmlClocksThrottleReasonHwPowerBrakeSlowdown */
    "display_clock_setting",       /* 0x100 ...DisplayClockSetting */
};

size_t cml_nvml_reason_names(unsigned long long bits, const char **names, size_t cap,
                             char (*spare)[24])
{
    size_t n = 0;
    if (!bits) {
        if (cap)
            names[n++] = "none";
        return n;
    }
    const size_t known = sizeof reason_name / sizeof reason_name[0];
    for (unsigned b = 0; b < 64 && n < cap; b++) {
        unsigned long long bit = 1ull << b;
        if (!(bits & bit))
            continue;
        if (b < known) {
            names[n++] = reason_name[b];
        } else {
            snprintf(spare[n], sizeof spare[n], "0x%llx", bit);
            names[n] = spare[n];
            n++;
        }
    }
    return n;
}

/* ---- the NVLink traffic counters ------------------------------------- */

struct cml_nvml_session {
    nvml_api a;
};

cml_nvml_session *cml_nvml_open(char *why, size_t whylen)
{
    cml_nvml_session *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(why, whylen, "out of host memory");
        return NULL;
    }
    if (!start(&s->a, why, whylen)) {
        free(s);
        return NULL;
    }
    return s;
}

void cml_nvml_close(cml_nvml_session *s)
{
    if (!s)
        return;
    s->a.shutdown();
    dlclose(s->a.lib);
    free(s);
}

int cml_nvml_read_nvlink(cml_nvml_session *s, const char *uuid, cml_nvml_nvlink_bytes *b,
                         char *why, size_t whylen)
{
    memset(b, 0, sizeof *b);
    nvmlDevice_t d;
    if (!s->a.by_uuid || !s->a.fields) {
        snprintf(why, whylen, "libnvidia-ml.so.1 lacks nvmlDeviceGetHandleByUUID or "
                              "nvmlDeviceGetFieldValues (driver too old)");
        return 0;
    }
    nvmlReturn_t st = s->a.by_uuid(uuid, &d);
    if (st != NVML_SUCCESS) {
        snprintf(why, whylen, "NVML knows no GPU %s: %s", uuid,
                 s->a.error_string ? s->a.error_string(st) : "unknown error");
        return 0;
    }
    static const unsigned ids[4] = {NVML_FI_DATA_TX, NVML_FI_DATA_RX, NVML_FI_RAW_TX,
                                    NVML_FI_RAW_RX};
    nvmlFieldValue_t v[4];
    memset(v, 0, sizeof v);
    for (int k = 0; k < 4; k++) {
        v[k].fieldId = ids[k];
        v[k].scopeId = 0xFFFFFFFFu; /* UINT_MAX: every link summed */
    }
    st = s->a.fields(d, 4, v);
    double *out[4] = {&b->data_tx, &b->data_rx, &b->raw_tx, &b->raw_rx};
    for (int k = 0; k < 4 && st == NVML_SUCCESS; k++) {
        if (v[k].nvmlReturn != NVML_SUCCESS) {
            st = v[k].nvmlReturn;
            break;
        }
        /* KiB, an unsigned long long by nvml.h; another type is a driver
         * this code does not know */
        if (v[k].valueType != NVML_VALUE_TYPE_UNSIGNED_LONG_LONG) {
            snprintf(why, whylen, "NVML gave NVLink throughput field %u as value type %d, not "
                                  "an unsigned long long",
                     ids[k], v[k].valueType);
            return 0;
        }
        *out[k] = 1024.0 * (double)v[k].value.ullVal;
    }
    if (st != NVML_SUCCESS) {
        snprintf(why, whylen, "NVML cannot read the NVLink throughput counters of %s: %s", uuid,
                 s->a.error_string ? s->a.error_string(st) : "unknown error");
        return 0;
    }
    return 1;
}
