/*
 * The experiment registry: the rows in the lab's order. Each row (in its
 * experiment's NAME.c) holds everything about the experiment, its textbook
 * program names included; this file only lists them.
 */
#include "experiments/registry.h"

#include <string.h>

#include "experiments/aos_soa/aos_soa.h"
#include "experiments/async_copy/async_copy.h"
#include "experiments/cluster_smem/cluster_smem.h"
#include "experiments/constant/constant.h"
#include "experiments/device_facts/device_facts.h"
#include "experiments/device_vars/device_vars.h"
#include "experiments/expr/expr.h"
#include "experiments/hierarchy/hierarchy.h"
#include "experiments/l2_residency/l2_residency.h"
#include "experiments/local/local.h"
#include "experiments/offset/offset.h"
#include "experiments/parallelism/parallelism.h"
#include "experiments/peak/peak.h"
#include "experiments/readonly/readonly.h"
#include "experiments/stride/stride.h"
#include "experiments/pitch2d/pitch2d.h"
#include "experiments/shared_banks/shared_banks.h"
#include "experiments/shuffle/shuffle.h"
#include "experiments/transfers/transfers.h"
#include "experiments/transpose/transpose.h"
#include "experiments/unroll/unroll.h"

static const cml_experiment *const experiments[] = {
    &cml_exp_read_offset,  &cml_exp_write_offset, &cml_exp_aos_soa,      &cml_exp_unroll,
    &cml_exp_parallelism,  &cml_exp_stride,       &cml_exp_readonly,     &cml_exp_pitch2d,
    &cml_exp_local,        &cml_exp_constant,
    &cml_exp_shuffle,      &cml_exp_shared_banks, &cml_exp_transfers,    &cml_exp_device_vars,
    &cml_exp_device_facts, &cml_exp_peak,         &cml_exp_transpose,    &cml_exp_expr,
    &cml_exp_hierarchy,    &cml_exp_l2_residency,
    &cml_exp_async_copy,   &cml_exp_cluster_smem,
};

size_t cml_experiment_count(void)
{
    return sizeof experiments / sizeof experiments[0];
}

const cml_experiment *const *cml_registry_rows(void)
{
    return experiments;
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

const cml_textbook_alias *cml_textbook_find(const char *name, const cml_experiment **exp)
{
    for (size_t i = 0; i < cml_experiment_count(); i++)
        for (size_t k = 0; k < experiments[i]->naliases; k++)
            if (strcmp(experiments[i]->aliases[k].name, name) == 0) {
                if (exp)
                    *exp = experiments[i];
                return &experiments[i]->aliases[k];
            }
    return NULL;
}
