/*
 * commands.h - the reports of the commands beside solve and transient:
 * one writer per format (rep_X_text, rep_X_json, rep_X_csv) and the
 * public entry san_report_X that picks one.  Those of a report in one
 * file (mw_out.c, compare_out.c, map_out.c, props_out.c) are static
 * there; san check's, in two files, are declared here.  Internal to
 * report/.
 */
#ifndef SAN_REPORT_COMMANDS_H
#define SAN_REPORT_COMMANDS_H

#include <stdio.h>
#include "report/solve_out.h"

/* ---- san check (check_text.c, check_json.c) ---- */
typedef struct {
    const san_check_report_opts *o;
    const san_estimate *mem;        /* never NULL (zeros: not estimated) */
    const san_audit *audit;         /* never NULL */
} rep_check;
void rep_check_text(FILE *out, const san_model *m, const san_diag *d, const rep_check *r);
void rep_check_json(FILE *out, const san_model *m, const san_diag *d, const rep_check *r);

#endif
