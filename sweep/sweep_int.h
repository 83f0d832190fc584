/*
 * sweep_int.h - internal declarations of the design sweeps (sweep/).
 *
 * A sweep is a template (or a model file) with some flags given several
 * values.  spec.c parses the flags and expands the cartesian product,
 * variant.c compiles one variant, run.c solves it in-process, pool.c
 * runs many on threads with a progress bar, mpi.c spreads them over MPI
 * ranks, output.c writes the table and plot.c draws it with cairo.
 */
#ifndef SAN_SWEEP_INT_H
#define SAN_SWEEP_INT_H

#include <stdarg.h>
#include "san.h"

/* Bounds that keep a typo ("1..1e9") from exhausting memory. */
enum { SWEEP_MAX_VALUES = 100000, SWEEP_MAX_VARIANTS = 1000000 };

/* o filled against another layout (its struct_size, base_opts_foreign):
 * 1 with err naming san_sweep_opts_default; 0 when it is libsan's. */
int sweep_opts_foreign(const san_sweep_opts *o, char *err, size_t n);
void sweep_err(char *err, size_t n, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* A malloc'd printf; NULL when out of memory. */
char *sweep_strf(const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* A figure of a report that may not exist: NaN ("not computed": a
 * variant stopped before its solve, an index the model lacks) is written
 * null; infinities are numbers (san_json_num).  sweep/output.c. */
void sweep_json_figure(FILE *out, double v);

/* Does the flag of this template hold a comma list of its own
 * (pipeline --stages 1,2,1)?  Its sweep values are then split on ';'. */
int sweep_list_valued(const char *tmpl, const char *flag);
/* Is the flag meaningful given the other values of the variant (--buffer
 * only with --mode async)?  vals is per axis, NULL where left out. */
int sweep_applies(const san_sweep_spec *sp, int axis, const char *const *vals);

/* Generate (or take the file's) text for these axis values and compile
 * it with the -D overrides; NULL with the first error in msg.  The
 * warnings the options o ask for (NULL: the defaults) are added to
 * keep->warnings when they are not there yet (keep NULL: dropped). */
san_model *sweep_compile(const san_sweep_spec *sp, const char *const *vals,
                         const san_sweep_opts *o, san_sweep *keep, char *msg, size_t n);

/* The first error of a diagnostic list, with its position, into msg. */
void sweep_first_error(const san_diag *d, char *msg, size_t n);

/* Is the sweep's template one of the closed forms of analytic/ (mw,
 * cluster)?  Its variants are evaluated, not solved. */
int sweep_is_analytic(const san_sweep_spec *sp);
/* Evaluate an analytic variant; SAN_E_USAGE with msg on bad flags. */
san_status sweep_analytic(const san_sweep_spec *sp, const char *const *vals,
                          san_analytic_results *res, char *msg, size_t n);

/* The grains of one configuration ranked by g's rule (grain_rank.c):
 * c->best, c->paper, c->fastest and the efficiency floor set. */
void sweep_grain_rank(const san_grain *g, san_grain_group *c);

/* The values of a variant, per axis (pointers into the spec). */
void sweep_variant_values(const san_sweep *s, int v, const char **vals);

/* What every plot must satisfy, with cairo or without (plot_opts.c):
 * something to draw, the page and dpi within bounds, UTF-8 text, values
 * > 0 on a log axis.  0, or -1 with err. */
int sweep_plot_check(const san_plot_opts *o, const san_plot_series *s, int ns, char *err,
                     size_t n);

/* Split a command line into words; quotes group words.  Returns the
 * count, with *argv (malloc'd, NULL-terminated) pointing into line,
 * which is modified; -1 when out of memory. */
int sweep_split_words(char *line, char ***argv);

/* A row as text and back, for the MPI transfer: every number is written
 * with 17 digits so that the gathered table equals the serial one. */
char *sweep_row_pack(const san_sweep_row *r, int naxes);
int sweep_row_unpack(const char *text, int naxes, san_sweep_row *r);

/* The variants in chains (chains.c): chain c is var[start[c] ..
 * start[c+1]), in the order of the chain axis; order[] lists the chains
 * largest first (weight: the sum of their variants'). */
typedef struct {
    int n;
    int *start, *var, *order;
    double *weight;
} sweep_chains;
/* chained 0: every variant a chain of its own. */
int sweep_chains_build(const san_sweep *s, int chained, sweep_chains *ch);
void sweep_chains_free(sweep_chains *ch);

/* Distribute the chains over the MPI ranks, if this process was started
 * by mpirun with more than one rank: 0 done (rows filled on rank 0),
 * 1 done on another rank, 2 not under MPI (run locally), -1 failure. */
int sweep_run_mpi(san_sweep *s, const san_sweep_opts *o, const sweep_chains *ch);

/* Solve the variants of chain c into their rows, each from the answer
 * of the one before when o->warm_chains. */
void sweep_run_chain(san_sweep *s, const san_sweep_opts *o, const sweep_chains *ch, int c);


#endif
