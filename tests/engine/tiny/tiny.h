/* The engine test's experiment (tiny.c, tiny.cu): a row the tests run
 * through the run engine, and how many summaries it wrote. */
#ifndef CML_TEST_TINY_H
#define CML_TEST_TINY_H

#include <stddef.h>

#include "lab/experiment.h"

extern const cml_experiment cml_exp_tiny;
extern size_t tiny_summaries;

#endif
