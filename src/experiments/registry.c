/*
 * The experiment registry: one row per experiment (in SPEC.md order), and
 * the textbook program names mapped onto experiments with their original
 * positional arguments.
 */
#include <string.h>

#include "experiments/experiment.h"
#include "experiments/aos_soa.h"
#include "experiments/constant.h"
#include "experiments/device_facts.h"
#include "experiments/device_vars.h"
#include "experiments/local.h"
#include "experiments/offset.h"
#include "experiments/parallelism.h"
#include "experiments/peak.h"
#include "experiments/readonly.h"
#include "experiments/stride.h"
#include "experiments/pitch2d.h"
#include "experiments/shared_banks.h"
#include "experiments/shuffle.h"
#include "experiments/transfers.h"
#include "experiments/transpose.h"
#include "experiments/unroll.h"

static const cml_experiment *const experiments[] = {
    &cml_exp_read_offset,  &cml_exp_write_offset, &cml_exp_aos_soa,      &cml_exp_unroll,
    &cml_exp_parallelism,  &cml_exp_stride,       &cml_exp_readonly,     &cml_exp_pitch2d,
    &cml_exp_local,        &cml_exp_constant,
    &cml_exp_shuffle,      &cml_exp_shared_banks, &cml_exp_transfers,    &cml_exp_device_vars,
    &cml_exp_device_facts, &cml_exp_peak,         &cml_exp_transpose,
};

static const cml_textbook_alias aliases[] = {
    {"readSegment", "read-offset", "n=2^20 path=ca", {"offset", "block"},
     "readSegment [offset] [blocksize]"},
    {"readOffset", "read-offset", "n=2^20 path=ca", {"offset", "block"},
     "readOffset [offset] [blocksize]"},
    {"writeSegment", "write-offset", "n=2^20 path=wb", {"offset", "block"},
     "writeSegment [offset] [blocksize]"},
    {"writeOffset", "write-offset", "n=2^20 path=wb", {"offset", "block"},
     "writeOffset [offset] [blocksize]"},
    {"readSegmentUnroll", "unroll", "n=2^20 unroll=1,2,4 width=4", {"offset", "block"},
     "readSegmentUnroll [offset] [blocksize]"},
    {"simpleMathAoS", "aos-soa", "n=2^22 layout=aos fields=2 touched=2", {"block"},
     "simpleMathAoS [blocksize]"},
    {"simpleMathSoA", "aos-soa", "n=2^22 layout=soa fields=2 touched=2", {"block"},
     "simpleMathSoA [blocksize]"},
    {"checkSmemSquare", "shared-banks", "pattern=tile tile=32x32", {NULL},
     "checkSmemSquare"},
    {"checkSmemRectangle", "shared-banks", "pattern=tile tile=32x16", {NULL},
     "checkSmemRectangle"},
    {"constantStencil", "constant", "pattern=stencil coef=constant", {NULL}, "constantStencil"},
    {"constantReadOnly", "constant", "pattern=stencil coef=constant,readonly", {NULL},
     "constantReadOnly"},
    {"simpleShfl", "shuffle", "op=broadcast,up,down,xor", {NULL}, "simpleShfl"},
    {"reduceIntegerShfl", "shuffle", "op=reduce-smem,reduce-shfl,warp-reduce-smem,warp-reduce-shfl",
     {NULL}, "reduceIntegerShfl"},
    {"transpose", "transpose", "kernel=copy,naive-row,naive-col,unroll4-row,unroll4-col,smem,smem-pad",
     {NULL}, "transpose"},
    {"globalVariable", "device-vars", "var=device", {NULL}, "globalVariable"},
    {"memTransfer", "transfers", "mode=copy memory=pageable direction=h2d,d2h size=16M", {NULL},
     "memTransfer"},
    {"pinMemTransfer", "transfers", "mode=copy memory=pinned direction=h2d,d2h size=16M", {NULL},
     "pinMemTransfer"},
    {"sumArrayZerocpy", "transfers", "mode=zero-copy memory=device,mapped,mapped-uva access=coalesced",
     {NULL}, "sumArrayZerocpy"},
    {"sumMatrixGPUManaged", "transfers", "mode=managed um=64M", {NULL}, "sumMatrixGPUManaged"},
    {"sumMatrixGPUManual", "transfers", "mode=managed um=64M", {NULL}, "sumMatrixGPUManual"},
    {"Unified_Memory", "transfers", "mode=managed um=64M", {NULL}, "Unified_Memory"},
};

size_t cml_experiment_count(void)
{
    return sizeof experiments / sizeof experiments[0];
}

const cml_experiment *cml_experiment_at(size_t i)
{
    return i < cml_experiment_count() ? experiments[i] : NULL;
}

const cml_experiment *cml_experiment_find(const char *key)
{
    const cml_experiment *found = NULL;
    size_t n = cml_experiment_count(), keylen = strlen(key);
    if (keylen == 0)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(experiments[i]->key, key) == 0)
            return experiments[i];
        if (strncmp(experiments[i]->key, key, keylen) == 0) {
            if (found)
                return NULL; /* ambiguous prefix */
            found = experiments[i];
        }
    }
    return found;
}

size_t cml_textbook_count(void)
{
    return sizeof aliases / sizeof aliases[0];
}

const cml_textbook_alias *cml_textbook_at(size_t i)
{
    return i < cml_textbook_count() ? &aliases[i] : NULL;
}

const cml_textbook_alias *cml_textbook_find(const char *name)
{
    for (size_t i = 0; i < cml_textbook_count(); i++)
        if (strcmp(aliases[i].name, name) == 0)
            return &aliases[i];
    return NULL;
}
