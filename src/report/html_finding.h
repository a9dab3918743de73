/*
 * A record's finding in HTML, shared by the report's page (html.c) and its
 * summary (summary.c): a file of its own so that neither of those two
 * calls the other back.
 */
#ifndef CML_REPORT_HTML_FINDING_H
#define CML_REPORT_HTML_FINDING_H

#include <stdio.h>

/* A record's finding, escaped; one cut short in its file
 * (cml_rep_finding_text) ends in an ellipsis that says so. */
void cml_html_finding(FILE *out, const char *finding);

#endif
