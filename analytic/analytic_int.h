/*
 * analytic_int.h - what the closed-form models of analytic/ share (internal):
 * the message helper, the growing list of named results, and each
 * model's evaluator of a template line.  The models themselves are
 * public (san/analytic.h).  analytic/ stands on base/ only.
 */
#ifndef SAN_ANALYTIC_INT_H
#define SAN_ANALYTIC_INT_H

#include <stddef.h>
#include "san.h"
#include "san/analytic.h"

/* ---- results.c ---- */

/* printf into err (when err is not NULL). */
void analytic_err(char *err, size_t n, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Append a named value; -1 when out of memory. */
int analytic_results_add(san_analytic_results *r, const char *name, double v);

/* Each model's line: argv[0] is its name, then flag and value pairs. */
san_status analytic_mw_line(int argc, char **argv, san_analytic_results *out, char *err,
                            size_t n);
san_status analytic_cluster_line(int argc, char **argv, san_analytic_results *out, char *err,
                                 size_t n);

/* ---- map.c ---- */

/* Processors a unit of r replicas takes: r, plus the communication
 * manager's own processor when the input says so and r > 1. */
int map_unit_cost(const san_map_input *in, int replicas);
/* san_map_unit_period without the layout check: for in already checked
 * (san_map, san_finite_pipeline, ...), inside their loops. */
double map_unit_period(const san_map_input *in, int first, int last, int replicas);
/* in filled against another layout (base_opts_foreign): 1, with err. */
int map_foreign(const san_map_input *in, char *err, size_t n);
/* Fill periods, processors and the bottleneck of m from its units. */
void map_finish(const san_map_input *in, san_map_mapping *m);

#endif
