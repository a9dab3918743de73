/* The progress line on stderr (progress.c says what it shows and when). */
#ifndef CML_LAB_PROGRESS_H
#define CML_LAB_PROGRESS_H

#include <stddef.h>

/* A command's loop: experiment i of n starts (name), or, with name NULL,
 * the run ends and the line, if shown, is erased before the table. */
void cml_progress(size_t i, size_t n, const char *name);

/* A sweep's point starts (the signature of cml_plan.progress). */
void cml_progress_point(void *user, const char *experiment, size_t point, size_t points);

/* -q: no plain progress lines (a log, a pipe); a terminal's line stays. */
void cml_progress_quiet(int quiet);

#endif
