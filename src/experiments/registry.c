/*
 * The experiment registry: the rows in the lab's order. Each row (in its
 * experiment's NAME.c) holds everything about the experiment, its textbook
 * program names included; the list of rows is the list of folders.
 */
#include "experiments/registry.h"

#include <string.h>

/* Every folder's rows (generated: cmake/experiments.cmake), so this file
 * names no experiment. */
#include "experiment_rows.h"

#define ROW(sym) &sym,
static const cml_experiment *const by_folder[] = {CML_REGISTRY_ROWS(ROW)};
#undef ROW
#define NROWS (sizeof by_folder / sizeof by_folder[0])

/* The lab's order: by the rows' numbers (1, 2, ...), which the folders'
 * names do not give. Made once, on the first call (the command line's
 * thread, before anything runs). */
static const cml_experiment *experiments[NROWS];
static int ordered;

static void order(void)
{
    if (ordered)
        return;
    for (size_t i = 0; i < NROWS; i++) {
        size_t k = i;
        for (; k > 0 && experiments[k - 1]->number > by_folder[i]->number; k--)
            experiments[k] = experiments[k - 1];
        experiments[k] = by_folder[i];
    }
    ordered = 1;
}

size_t cml_experiment_count(void)
{
    return NROWS;
}

const cml_experiment *const *cml_registry_rows(void)
{
    order();
    return experiments;
}

const cml_experiment *cml_experiment_at(size_t i)
{
    order();
    return i < cml_experiment_count() ? experiments[i] : NULL;
}

const cml_experiment *cml_experiment_find(const char *key)
{
    order();
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
    order();
    for (size_t i = 0; i < cml_experiment_count(); i++)
        for (size_t k = 0; k < experiments[i]->naliases; k++)
            if (strcmp(experiments[i]->aliases[k].name, name) == 0) {
                if (exp)
                    *exp = experiments[i];
                return &experiments[i]->aliases[k];
            }
    return NULL;
}
