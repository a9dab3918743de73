/* The GPU session of a command: device, facts and measured peak in a plan. */
#ifndef CML_CLI_SESSION_H
#define CML_CLI_SESSION_H

#include "cli/cli.h"

typedef struct cml_session {
    struct cml_gpu *gpu;
    cml_plan plan;
    int peak_given; /* plan.peak_gbs came from --peak */
} cml_session;

/* 1: a GPU is open; 0: none (why says so: no device, --model); -1: a GPU
 * is there but could not be used (why says so). need_peak: measure the
 * peak bandwidth first (every share of peak is relative to it), or take
 * --peak's figure. */
int cml_session_open(const cml_cli *cli, cml_session *s, int need_peak, char *why, size_t whylen);
void cml_session_fill(const cml_session *s, cml_results *r);
void cml_session_close(cml_session *s);
void cml_progress(size_t i, size_t n, const char *name);

#endif
