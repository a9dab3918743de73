/*
 * What the driver's management library (NVML) says of the GPUs: the facts
 * that name a card (name, UUID, serial, PCI bus id, driver) and its state
 * at a moment (clocks, temperature, power, why the clocks are held down).
 * The fleet run (docs/fleet-mpi.md) reads them before and after each rank's
 * command, so that a slow rank can be told from a hot or throttled card.
 *
 * libnvidia-ml.so.1 is loaded at run time (dlopen): no link-time
 * dependency, so cumemlab builds and starts where there is no driver (CI),
 * and then says why the facts are missing. NVML is independent of the CUDA
 * runtime: reading it creates no CUDA context, so the process that forks
 * the CUDA work may read it (fleet_mpi.c relies on that).
 */
#ifndef CML_NVML_INFO_H
#define CML_NVML_INFO_H

#include <stddef.h>

#define CML_NVML_MAX_GPUS 64

/* One GPU at one moment. Numbers NVML could not give are -1 (power: a
 * negative value), strings it could not give are "". */
typedef struct cml_nvml_gpu {
    unsigned index;             /* NVML's index (PCI order, not CUDA's) */
    char name[96];
    char uuid[96];              /* "GPU-xxxxxxxx-..." as the CUDA runtime's UUID prints */
    char serial[32];
    char pci_bus_id[32];        /* "00000000:19:00.0" */
    int sm_clock_mhz, mem_clock_mhz;
    int temperature_c;
    double power_w;
    int reasons_known;          /* 1 when event_reasons was read */
    unsigned long long event_reasons; /* nvmlClocksEventReason* bits */
} cml_nvml_gpu;

/* Every GPU NVML sees, and the system's facts. */
typedef struct cml_nvml_snapshot {
    char driver[80];            /* the driver's version, "580.65.06"; "" unknown */
    int cuda_driver_version;    /* 13000 for 13.0; -1 unknown */
    unsigned count;
    cml_nvml_gpu gpu[CML_NVML_MAX_GPUS];
} cml_nvml_snapshot;

/* Read every GPU now (NVML initialised and shut down inside). 1 on
 * success; 0 with one line in why: "libnvidia-ml.so.1 not found", "NVML
 * initialisation failed: ...". */
int cml_nvml_read(cml_nvml_snapshot *s, char *why, size_t whylen);

/* The GPU of that UUID, or NULL. */
const cml_nvml_gpu *cml_nvml_find(const cml_nvml_snapshot *s, const char *uuid);

/* The path from one GPU to another as NVML sees it (nvidia-smi topo -m). */
typedef struct cml_nvml_link {
    int known;        /* 1: NVML answered for this pair */
    unsigned nvlinks; /* active NVLinks from the first GPU that reach the second: to it,
                         or to an NVSwitch when NVML says the two talk over NVLink */
    int via_switch;   /* 1: through NVSwitch */
    int version;      /* nvmlDeviceGetNvLinkVersion of the first such link; -1: none */
    int pcie;         /* nvmlGpuTopologyLevel_t of the pair's common PCIe ancestor; -1 unknown */
} cml_nvml_link;

/* The links between every ordered pair of the GPUs named by UUID (n of
 * them): out[i * n + j] for i != j. 1 on success; 0 with why (as
 * cml_nvml_read), every entry then unknown. */
int cml_nvml_read_links(const char *const *uuids, unsigned n, cml_nvml_link *out, char *why,
                        size_t whylen);

/* NVML kept open for repeated reads (a session: nvmlInit once). NULL with
 * why (as cml_nvml_read) when NVML cannot be used. */
typedef struct cml_nvml_session cml_nvml_session;
cml_nvml_session *cml_nvml_open(char *why, size_t whylen);
void cml_nvml_close(cml_nvml_session *s);

/* A GPU's NVLink traffic counters, NVML's throughput fields summed over its
 * links, in bytes since the driver started counting (NVML counts KiB):
 * data payload sent and received, and the same with the protocol's
 * overhead. The difference of two reads is the traffic between them, all
 * of the GPU's, whoever caused it. 1; 0 with why (no such GPU, a driver or
 * GPU without the counters). */
typedef struct cml_nvml_nvlink_bytes {
    double data_tx, data_rx, raw_tx, raw_rx;
} cml_nvml_nvlink_bytes;
int cml_nvml_read_nvlink(cml_nvml_session *s, const char *uuid, cml_nvml_nvlink_bytes *b,
                         char *why, size_t whylen);

/* nvidia-smi's name of a PCIe path (nvmlGpuTopologyLevel_t): "PIX" (one
 * switch), "PXB" (several), "PHB" (a host bridge), "NODE" (host bridges of
 * one NUMA node), "SYS" (across NUMA nodes), "board" (one board); "?" for
 * anything else. */
const char *cml_nvml_pcie_name(int level);

/* The names of the reasons set in bits, in bit order ("gpu_idle",
 * "sw_power_cap", "hw_slowdown", ...; a bit NVML added later as "0x..."
 * written into spare[i], spare having cap rows); "none" when no
 * bit is set. Returns how many names went into names (at most cap). */
size_t cml_nvml_reason_names(unsigned long long bits, const char **names, size_t cap,
                             char (*spare)[24]);

#endif
