/*
 * The terminal report's header block (table.c): the tool, the command, the
 * device and its memory, the peak bandwidth measured or given and the
 * references by class, or the model-only banner; wrapped at `width`.
 */
#ifndef CML_REPORT_TABLE_BANNER_H
#define CML_REPORT_TABLE_BANNER_H

#include <stdio.h>

#include "core/record.h"

void cml_report_banner(FILE *out, const cml_results *r, int width);

#endif
