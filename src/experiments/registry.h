/*
 * The registry: every experiment's row, in the lab's order (registry.c).
 * It is the one place that names every experiment; whoever needs the rows
 * (the command line) asks here and hands them on as data: the run engine
 * gets one row per run, the report the whole table
 * (cml_chart_plan_use_rows), so neither includes an experiment's header.
 */
#ifndef CML_EXPERIMENTS_REGISTRY_H
#define CML_EXPERIMENTS_REGISTRY_H

#include <stddef.h>

#include "lab/experiment.h"

size_t cml_experiment_count(void);
const cml_experiment *cml_experiment_at(size_t i);
/* Exact key, or unique prefix; NULL if none or ambiguous. */
const cml_experiment *cml_experiment_find(const char *key);

/* A textbook name, with the experiment it belongs to; NULL if none. */
const cml_textbook_alias *cml_textbook_find(const char *name, const cml_experiment **exp);

/* The rows themselves, cml_experiment_count() of them: the table the
 * command line hands to whoever reads rows as data. */
const cml_experiment *const *cml_registry_rows(void);

#endif
