/* The experiment registry: one row per experiment, and the textbook names. */
#include <string.h>

#include "experiments/experiment.h"

static const cml_experiment *const experiments[] = {
    NULL, /* filled as experiments land */
};

size_t cml_experiment_count(void)
{
    size_t n = 0;
    while (n < sizeof experiments / sizeof experiments[0] && experiments[n])
        n++;
    return n;
}

const cml_experiment *cml_experiment_at(size_t i)
{
    return i < cml_experiment_count() ? experiments[i] : NULL;
}

const cml_experiment *cml_experiment_find(const char *key)
{
    const cml_experiment *found = NULL;
    size_t n = cml_experiment_count(), keylen = strlen(key);
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
