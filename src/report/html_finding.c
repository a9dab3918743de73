/* A record's finding in HTML (html_finding.h). */
#include "report/html_finding.h"

#include "core/record.h"
#include "report/report_util.h"
#include "report/svg_chart.h"

void cml_html_finding(FILE *out, const char *finding)
{
    char text[sizeof((const cml_record *)0)->finding];
    int cut = cml_rep_finding_text(finding, text, sizeof text);
    cml_xml_escape(out, text);
    if (cut)
        fprintf(out, "<span class=\"cut\" title=\"the file holds only the first %d bytes of "
                     "this finding\">&hellip;</span>",
                CML_REP_FINDING_V1_MAX);
}
