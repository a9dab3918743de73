/*
 * The sweep engine (sweep.c): one experiment's options walked as a cross
 * product, its pieces called at every point (src/lab/experiment.h).
 * The run engine (lab.h) calls it; nothing else needs to.
 */
#ifndef CML_LAB_SWEEP_H
#define CML_LAB_SWEEP_H

#include "lab/experiment.h"

/* Whether a registry row keeps the contract: a variant function, every
 * option with an int64_t field inside settings_size, every `applies`
 * naming an option declared after it with values it allows. */
cml_status cml_sweep_check_row(const cml_experiment *exp, char *err, size_t errlen);

/*
 * Run `exp` over the cross product of `pv` into `out`. A record whose
 * model or measurement fails is marked failed and the sweep goes on; out of
 * memory or a CUDA error (the context may be lost) ends it and is returned.
 */
cml_status cml_sweep_run(const cml_experiment *exp, const cml_plan *plan,
                         const cml_param_values *pv, cml_results *out);

/* The points cml_sweep_run would visit: the cross product of pv less what
 * the options' `applies` leave out (nothing is called). 0 on out of
 * memory. */
size_t cml_sweep_points(const cml_experiment *exp, const cml_param_values *pv);

#endif
