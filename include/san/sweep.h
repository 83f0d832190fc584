/*
 * san/sweep.h - design sweeps: families of variants solved and compared,
 * their tables and plots (sweep/).
 */
#ifndef SAN_PUBLIC_SWEEP_H
#define SAN_PUBLIC_SWEEP_H

#include <stdint.h>
#include <stdio.h>
#include <stddef.h>
#include "san/analyze.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Design sweeps (sweep/): families of variants, solved and compared    */
/* ------------------------------------------------------------------ */

/* One swept parameter: a template flag ("--slaves") or a constant
 * override (-D K), with the values it takes, as text. */
typedef struct {
    char *flag;             /* "--slaves", or "K" for -D K */
    char *name;             /* column name: "slaves", "K" */
    int is_define;
    int nvalues;
    char **values;          /* "2", "async", "0.25" */
    int numeric;            /* every value is a number */
} san_sweep_axis;

/* What is swept: a template ("ms", "pipeline") and its flags, or a model
 * file and -D overrides.  Every flag is an axis, single values too, in
 * the order given (the first one varies slowest). */
typedef struct {
    char *tmpl;             /* template name; NULL for a model file */
    char *path;             /* model file; NULL for a template */
    char *text;             /* the model file's text */
    size_t len;
    int naxes;
    san_sweep_axis *axis;
} san_sweep_spec;

/* One solved (or failed) variant. */
typedef struct {
    int variant;            /* position in the expansion, 0-based */
    int *pick;              /* per axis: value index, -1 where the flag does
                               not apply (--buffer with --mode sync) */
    char *command;          /* "ms --mode async --slaves 3 --buffer 5", or
                               "model.san -D K=3": what san solve would take */
    int ok;                 /* solved and converged */
    char *error;            /* why not (NULL when ok) */
    char *product;          /* product states, exact decimal ("" unknown) */
    double product_log10;
    int64_t reachable;
    san_method method;
    long iterations;
    double residual;
    double error_est;       /* the solve's error estimate (san.h) */
    double time_s;          /* load + build + solve + indices, seconds */
    int nres;
    char **res_name;
    double *res;
    /* Only with san_sweep_opts.marginals: */
    int naut;
    char **aut_name;
    int *nstates;
    char ***state_name;
    double **marginal;
} san_sweep_row;

/* Solved variants kept to warm-start their neighbours (sweep/warm.c):
 * thread-safe; entries stop being added past budget bytes. */
typedef struct san_warm_cache san_warm_cache;
SAN_API san_warm_cache *san_warm_cache_new(int naxes, double budget);
SAN_API void san_warm_cache_free(san_warm_cache *c);
/* The answer of the solved variant nearest to vals (per axis), or NULL. */
SAN_API const san_warm *san_warm_cache_nearest(san_warm_cache *c, const char *const *vals);
SAN_API void san_warm_cache_add(san_warm_cache *c, const char *const *vals, const san_space *sp,
                        const double *pi);

typedef struct {
    san_solve_opts solve;
    san_space_opts space;   /* max_memory 0: the default divided by jobs */
    san_warm_cache *warm;   /* san_sweep_eval: start from the nearest
                               variant solved into this cache, and add
                               the answer to it (NULL: from uniform) */
    san_storage storage;    /* as san solve --storage (auto: the tensor
                               descriptor when the sparse generator does
                               not fit) */
    int warm_chains;        /* san_sweep_run: solve the variants in
                               chains along the innermost numeric axis,
                               each from the one before (sweep/chains.c);
                               0: every variant on its own, from uniform */
    int jobs;               /* variants solved at once; 0: one per core */
    int progress;           /* progress bar on stderr (the caller checks
                               that stderr is a terminal) */
    int marginals;          /* keep the marginals in the rows */
    volatile int *interrupt;/* set non-zero: the remaining variants fail */
} san_sweep_opts;

typedef struct {
    san_sweep_spec spec;
    int nvariants;
    int **pick;             /* per variant, per axis: as in san_sweep_row */
    double *weight;         /* per variant: product states (largest first) */
    int nres;               /* every result name of every variant, in the */
    char **res_name;        /*   order first seen */
    san_sweep_row *rows;    /* nvariants, after san_sweep_run */
    int nfailed_prepare;    /* variants refused before solving */
} san_sweep;

SAN_API void san_sweep_opts_default(san_sweep_opts *o);
/* A run option by its long name and value: --jobs, --method, --tol,
 * --max-iter, --time-limit, --max-states, --max-memory.  Returns 0 when
 * set, 1 when flag is not a run option, -1 with err naming the flag. */
SAN_API int san_sweep_opts_set(san_sweep_opts *o, const char *flag, const char *val,
                       char *err, size_t n);

/* The values of one flag: "a..b", "a..b:step" (numbers, a <= b, step > 0),
 * "a,b,c" (items may be ranges), ';' separates values whose text holds
 * commas (list_valued: every ',' stays in the value).  Returns the count
 * (>= 1) and a malloc'd array of malloc'd strings, or -1 with err naming
 * the flag. */
SAN_API int san_sweep_values(const char *flag, const char *text, int list_valued,
                     char ***values, char *err, size_t n);
SAN_API void san_sweep_values_free(char **values, int n);

/* argv[0] is a template name or a model file; then --flag VALUES,
 * --flag=VALUES and -D NAME=VALUES.  Expands the variants and compiles
 * each one (cheap, no state space) for its size and result names.
 * Returns 0; -2 with err for a usage error (bad range, unknown flag,
 * every variant refused); -1 when out of memory or the file is unreadable. */
SAN_API int san_sweep_init(san_sweep *s, int argc, char **argv, char *err, size_t n);
/* The same from one command line: "ms --mode async --slaves 5" or
 * "model.san -D K=3" (quotes group words). */
SAN_API int san_sweep_init_line(san_sweep *s, const char *line, char *err, size_t n);
SAN_API void san_sweep_free(san_sweep *s);

/* Solve every variant, largest first, opts->jobs at a time, each one on a
 * single thread.  Under mpirun (built --with-mpi) the variants go to the
 * ranks and rank 0 gathers them.  Returns 0 with s->rows filled (failed
 * variants are rows with their error), 1 on an MPI rank other than 0
 * (which has no rows and prints nothing), -1 when out of memory. */
SAN_API int san_sweep_run(san_sweep *s, const san_sweep_opts *o);

/* Solve one variant given the value of each axis (NULL: flag left out);
 * values need not be among the axis' own.  Never fails: errors go into
 * row->error. */
SAN_API void san_sweep_eval(const san_sweep_spec *sp, const char *const *vals,
                    const san_sweep_opts *o, san_sweep_row *row);
SAN_API void san_sweep_row_free(san_sweep_row *row);

/* Call fn(ctx, order[k]) for k = 0..n-1 (order NULL: k), jobs at a time
 * on threads, each with one OpenMP thread; with a progress bar on stderr
 * when progress is set (weights, NULL for equal, drive the estimate). */
SAN_API void san_sweep_parallel(int n, const int *order, int jobs,
                        void (*fn)(void *ctx, int i), void *ctx,
                        const double *weight, int progress, const char *what);
/* Cores available to this process. */
SAN_API int san_sweep_cores(void);
/* 1 when built with MPI (configure --with-mpi), 0 otherwise. */
SAN_API int san_sweep_mpi(void);

/* Lookups by name: an axis ("slaves", "--slaves", "K") or a result;
 * -1 when absent. */
SAN_API int san_sweep_find_axis(const san_sweep *s, const char *name);
SAN_API int san_sweep_find_result(const san_sweep *s, const char *name);
/* The value of axis a in row r as a number (NAN when absent or text). */
SAN_API double san_sweep_row_value(const san_sweep *s, const san_sweep_row *r, int a);

typedef enum { SAN_SWEEP_TEXT, SAN_SWEEP_CSV, SAN_SWEEP_JSON } san_sweep_format;
/* The table: one row per variant.  only/nonly restrict the result
 * columns (NULL: every result); times 0 leaves the timing column out
 * (for comparing runs). */
SAN_API void san_sweep_write(const san_sweep *s, san_sweep_format f,
                     char *const *only, int nonly, int times, FILE *out);

/* ---- plots (cairo) ---- */

typedef struct {
    char *label;
    int n;
    double *x, *y;          /* sorted by x; a NAN y leaves a gap */
    int hline;              /* draw y[0] as a dashed horizontal reference */
} san_plot_series;

/* Draw curves into file, SVG, PNG or PDF by its extension: axes with
 * ticks and labels, one line with markers per series, a legend.
 * Returns 0, -2 with err for a bad extension or no data, -1 when cairo
 * fails. */
SAN_API int san_plot(const char *file, const char *title, const char *xlabel,
             const char *ylabel, const san_plot_series *s, int ns,
             char *err, size_t n);
/* The sweep's rows as curves: y (a result, or reachable_states, time_s,
 * iterations) against the axis x, one series per value of the series
 * axes (comma-separated names; NULL: every other axis that varies). */
SAN_API int san_sweep_plot(const san_sweep *s, const char *file, const char *x,
                   const char *y, const char *series, const char *title,
                   char *err, size_t n);

#ifdef __cplusplus
}
#endif
#endif
