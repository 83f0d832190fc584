/*
 * solve_out.h - the reports of the analyses: of a steady state (san
 * solve: solve_text.c, solve_json.c, solve_csv.c) and of a time
 * (san transient, san passage: time_text.c, time_json.c, time_csv.c),
 * one writer per format over the shared pieces (replicas.c,
 * solve_fields.c); san_report_solve (solve_out.c) and
 * san_report_transient (time_out.c) choose the writer.  Internal to
 * report/.
 */
#ifndef SAN_REPORT_SOLVE_OUT_H
#define SAN_REPORT_SOLVE_OUT_H

#include <stdio.h>
#include "san.h"
#include "base/services.h"

/* What the writers read: the analysis and the caller's choices. */
typedef struct {
    const san_model *m;
    const san_space *sp;
    const san_solution *sol;
    const san_analysis *a;
    const san_solve_report_opts *o;
    int64_t nonzeros;       /* of Q (sparse storage; over the ranks) */
} rep_solve;

/* What the writers of a time analysis read. */
typedef struct {
    const san_model *m;
    const san_analysis *a;
    const san_time_report_opts *o;
} rep_time;

/* ---- replicas.c: runs of replicas, P[0], ..., P[999] ---- */

typedef struct {
    double min, mean, max, total;
    int at_min, at_max;     /* the first replica (offset) that holds each */
} rep_replica_stats;

/* Are a and b replicas K and K+1 of one family?  Of one family at all? */
int rep_next_replica(const char *a, const char *b);
int rep_same_family(const char *a, const char *b);
/* "P[0..999]" for the run first..last (first when it is one name). */
const char *rep_replica_run(const char *first, const char *last, char *buf, size_t size);
/* "P[*]" for a replica's family (the name itself when no replica). */
const char *rep_replica_family(const char *first, char *buf, size_t size);
void rep_replica_stats_of(const double *v, int n, rep_replica_stats *st);
/* The marginals as text, alike replicas on one line, differing ones
 * summarized (unless all); lines start with indent. */
void rep_text_marginals(FILE *out, const san_model *m, const san_solution *sol, int all,
                           const char *indent, int digits);
/* The members of a "marginals" object: the first after first, the
 * others after sep. */
void rep_json_marginal_members(FILE *out, const san_model *m, const san_solution *sol,
                                  const char *first, const char *sep);
/* The members of a "throughputs" object, as the marginals'. */
void rep_json_throughput_members(FILE *out, const san_model *m, const san_solution *sol,
                                    const char *first, const char *sep);
/* The opening of a report's JSON document, for solve and transient alike:
 * "{", the caller's provenance members, "model" and "file" (no comma
 * after "file"). */
void rep_json_open(FILE *out, san_report_preamble preamble, const void *ctx,
                      const char *model, const char *source);

/* ---- solve_fields.c: pieces the three formats share ---- */

/* The last event of e's family of replicas (e when it is no replica). */
int rep_event_run_end(const san_model *m, int e);
/* The positions the solve ran over (san_solve_estimate_measured). */
int64_t rep_solved_positions(const rep_solve *r);
/* A figure, or null when there is none. */
void rep_json_opt(FILE *out, int have, double v);
/* A figure where NaN stands for "not computed" (a failed variant, the
 * gain of a first row): null; any other as san_json_num writes it. */
void rep_json_figure(FILE *out, double v);
/* A global state as an object, then its "label" member. */
void rep_json_state(FILE *out, const san_model *m, const int *s, char *buf, size_t size);
/* The distribution in the report (--vector - with json or csv): the
 * states by index.  SAN_OK or SAN_E_NOMEM. */
san_status rep_solve_vector(FILE *out, const rep_solve *r, san_report_format f);

/* A result the command added for its own use (an --initial or --until
 * selection): left out of the reports. */
int rep_hidden(const char *name);

/* ---- the writers ---- */
void rep_solve_text(FILE *out, const rep_solve *r);
san_status rep_solve_json(FILE *out, const rep_solve *r);
san_status rep_solve_csv(FILE *out, const rep_solve *r);
void rep_time_text(FILE *out, const rep_time *r);
void rep_time_json(FILE *out, const rep_time *r);
void rep_time_csv(FILE *out, const rep_time *r);

#endif
