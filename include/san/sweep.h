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
    int analytic;           /* a closed form (san/analytic.h): evaluated,
                               no states, no solve */
    char *error;            /* why not (NULL when ok) */
    char *product;          /* product states, exact decimal ("" unknown) */
    double product_log10;
    int64_t reachable;
    san_method method;
    long iterations;
    double residual;
    double error_est;       /* the solve's error estimate (san.h) */
    double time_s;          /* load + build + solve + indices, seconds */
    int error_bound;        /* error_est was measured and bounds the error
                               of every state probability above 1e-14
                               (san_solve_estimate_measured); 0: an
                               indicator, or no converged solve */
    san_storage storage;    /* the storage solved on: SPARSE or KRON;
                               AUTO when no solve ran */
    int lumped;             /* solved on the lumped chain (issue 28) */
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
    size_t struct_size;     /* sizeof the struct, set by san_sweep_opts_default: every
                               entry taking it refuses options of another
                               layout (SAN_E_USAGE, or -2 where the entry
                               returns a count) */
    san_solve_opts solve;
    san_space_opts space;   /* max_memory 0: the default divided by jobs */
    san_warm_cache *warm;   /* san_sweep_eval: start from the nearest
                               variant solved into this cache, and add
                               the answer to it (NULL: from uniform) */
    san_storage storage;    /* as san solve --storage (auto: the tensor
                               descriptor when the sparse generator does
                               not fit) */
    san_lump lump;          /* as san solve --lump */
    int warm_chains;        /* san_sweep_run: solve the variants in
                               chains along the innermost numeric axis,
                               each from the one before (sweep/chains.c);
                               0: every variant on its own, from uniform */
    int jobs;               /* variants solved at once; 0: one per core */
    int progress;           /* progress bar on stderr (the caller checks
                               that stderr is a terminal) */
    int marginals;          /* keep the marginals in the rows */
    volatile int *interrupt;/* set non-zero: the remaining variants fail */
    double max_input;       /* the cap on a model file's size (bytes; 0:
                               SAN_MAX_INPUT_DEFAULT), space.max_memory
                               when that is set and smaller */
    /* The model's warnings (san_sweep.warnings), as san check gives them: */
    int no_peps_warnings;   /* not the PEPS precedence ones (--no-peps-warnings) */
    int peers;              /* and those of san_model_lint_peers (--peps) */
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
    /* The models' warnings, each once however many variants have it
     * ("model.san:3:5: warning: ...", or "<gen>: warning: ..." without
     * the position in a generated text no one reads), in order found. */
    char **warnings;
    int nwarnings;
} san_sweep;

/* Every field off but the solve and space options' defaults, and
 * struct_size. */
SAN_API void san_sweep_opts_default(san_sweep_opts *o);
/* For bindings that hold the options by pointer (Python): a malloc'd
 * san_sweep_opts with the defaults (NULL when out of memory), freed by
 * san_sweep_opts_free (san_sweep_opts_delete is its old name); set by
 * san_sweep_opts_set and, for the flag
 * that stops the remaining variants, san_sweep_opts_interrupt (SAN_OK,
 * or SAN_E_USAGE and nothing set for o not filled by
 * san_sweep_opts_default). */
SAN_API san_sweep_opts *san_sweep_opts_new(void);
SAN_API void san_sweep_opts_free(san_sweep_opts *o);
SAN_API SAN_DEPRECATED void san_sweep_opts_delete(san_sweep_opts *o);
SAN_API san_status san_sweep_opts_interrupt(san_sweep_opts *o, volatile int *flag);
/* A run option by its long name and value: --jobs, --method, --tol,
 * --max-iter, --time-limit, --max-states, --max-memory.  Returns 0 when
 * set, 1 when flag is not a run option, -1 with err naming the flag (or
 * saying o is not filled by san_sweep_opts_default). */
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

/* Is name one of the templates a sweep takes by name (ms, pipeline, mw,
 * cluster)?  Such a name is never read as a file, whatever the current
 * directory holds. */
SAN_API int san_sweep_is_template(const char *name);

/* argv[0] is a template name or a model file; then --flag VALUES,
 * --flag=VALUES and -D NAME=VALUES.  Expands the variants and compiles
 * each one (cheap, no state space) for its size and result names.  A
 * model file is read under o's input limit (o NULL: the default).
 * Returns 0; -2 with err for a usage error (bad range, unknown flag,
 * every variant refused, o not filled by san_sweep_opts_default); -3 with err when the model file cannot be
 * used ("FILE: is a directory": san_read_input's SAN_E_INPUT); -1 when
 * out of memory or reading fails. */
SAN_API int san_sweep_init(san_sweep *s, int argc, char **argv, const san_sweep_opts *o,
                           char *err, size_t n);
/* The same from one command line: "ms --mode async --slaves 5" or
 * "model.san -D K=3" (quotes group words). */
SAN_API int san_sweep_init_line(san_sweep *s, const char *line, const san_sweep_opts *o,
                                char *err, size_t n);
/* The cap on a model's input that o sets, into *limit: max_input (0:
 * the default), or space.max_memory when that is set and smaller (o
 * NULL: the default).  SAN_OK, or SAN_E_USAGE with err for o not
 * filled by san_sweep_opts_default. */
SAN_API san_status san_sweep_input_limit(const san_sweep_opts *o, double *limit, char *err,
                                         size_t n);
/* What a caller's san_sweep holds, released (libsan.so.1's
 * san_sweep_free). */
SAN_API void san_sweep_clear(san_sweep *s);
/* A zeroed san_sweep on the heap for san_sweep_init (NULL when out of
 * memory); san_sweep_free frees what it holds and itself (san_sweep_delete
 * is its old name). */
SAN_API san_sweep *san_sweep_new(void);
SAN_API void san_sweep_free(san_sweep *s);
SAN_API SAN_DEPRECATED void san_sweep_delete(san_sweep *s);

/* Solve every variant, largest first, opts->jobs at a time, each one on a
 * single thread.  Under mpirun (built --with-mpi) the variants go to the
 * ranks and rank 0 gathers them.  Returns 0 with s->rows filled (failed
 * variants are rows with their error), 1 on an MPI rank other than 0
 * (which has no rows and prints nothing), -2 with err and nothing run
 * for o not filled by san_sweep_opts_default, -1 with err when out of
 * memory. */
SAN_API int san_sweep_run(san_sweep *s, const san_sweep_opts *o, char *err, size_t n);

/* Solve one variant given the value of each axis (NULL: flag left out);
 * values need not be among the axis' own.  Never fails: errors go into
 * row->error (o not filled by san_sweep_opts_default too). */
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
/* Variant v's name for people: "mode=async, slaves=3", the axes with
 * more than one value but axis `except` (-1: none); the template's name
 * when none varies.  malloc'd; NULL when out of memory. */
SAN_API char *san_sweep_label(const san_sweep *s, int v, int except);
SAN_API int san_sweep_find_axis(const san_sweep *s, const char *name);
SAN_API int san_sweep_find_result(const san_sweep *s, const char *name);
/* The value of axis a in row r as a number (NAN when absent or text). */
SAN_API double san_sweep_row_value(const san_sweep *s, const san_sweep_row *r, int a);
/* The result named name of a solved row into *v: 1, or 0 when the row
 * failed or has no such result. */
SAN_API int san_sweep_row_result(const san_sweep_row *r, const char *name, double *v);

typedef enum { SAN_SWEEP_TEXT, SAN_SWEEP_CSV, SAN_SWEEP_JSON } san_sweep_format;
/* The table: one row per variant.  only/nonly restrict the result
 * columns (NULL: every result); times 0 leaves the timing column out
 * (for comparing runs). */
SAN_API void san_sweep_write(const san_sweep *s, san_sweep_format f,
                     char *const *only, int nonly, int times, FILE *out);
/* The same with the caller's provenance (doc/output.md) written by
 * preamble(out, f, ctx) where each format takes it: JSON just after the
 * opening "{\n  " (members ending with ",\n  "), CSV and text before
 * the header row.  preamble NULL: san_sweep_write. */
typedef void (*san_sweep_preamble)(FILE *out, san_sweep_format f, const void *ctx);
SAN_API void san_sweep_write_ex(const san_sweep *s, san_sweep_format f, char *const *only,
                                int nonly, int times, san_sweep_preamble preamble,
                                const void *ctx, FILE *out);

/* ------------------------------------------------------------------ */
/* Buffer sizing (sweep/size_buffer.c): san size-buffer                 */
/* ------------------------------------------------------------------ */

/* For each configuration of a buffered template (ms --mode async,
 * pipeline --mode async), the smallest buffer K whose index is within a
 * relative tolerance of its large-buffer limit.  The limit is the index
 * once doubling K changes it by less than half the tolerance; bisection
 * between the last two powers of two then finds the smallest K (about
 * 2 log2(K) solves instead of K).  For a pipeline each inter-stage
 * buffer is then sized alone, the others held at the limit's size. */

/* How one solve went, as a sweep row holds it (san_sweep_row): what the
 * reports of size-buffer and grain show for each number. */
typedef struct {
    int solved;             /* a solve ran: method and storage are set */
    san_method method;
    long iterations;
    double residual;
    double error_est;       /* NaN: none computed */
    int converged;
    int error_bound;        /* error_est measured (san_sweep_row) */
    san_storage storage;    /* SPARSE or KRON */
    int lumped;
} san_sweep_accuracy;

/* The accuracy of a row's solve. */
SAN_API void san_sweep_row_accuracy(const san_sweep_row *r, san_sweep_accuracy *a);
/* Its members in a report's "solver" object (doc/output.md), without
 * the braces: "method", "iterations", "residual", "converged",
 * "error_estimate", "error_bound", "storage", "lumped". */
SAN_API void san_sweep_json_accuracy(FILE *out, const san_sweep_accuracy *a);

typedef struct {
    long k;                 /* a buffer size */
    double v;               /* the index there */
    double throughput;      /* what it buys: the template's throughput
                               (ms pack_throughput, pipeline throughput) */
    double efficiency;      /* ms: the slaves' efficiency; NaN without */
    san_sweep_accuracy acc; /* how its solve went */
    char *command;          /* its generator line ("ms --mode async
                               --slaves 3 --buffer 5"; NULL out of memory) */
} san_buffer_point;

typedef struct {
    long k;                 /* the smallest size within the tolerance */
    double value;           /* the index at k */
    san_buffer_point *curve;/* every size evaluated, ascending */
    int n;
    char *error;            /* why the search failed; NULL when it did not */
} san_buffer_sizing;

/* One configuration: the limit, then one sizing per buffer.  all's
 * curve holds the chosen K, K + 1 and the limit's size, for what one
 * more buffer position and an unbounded buffer would buy
 * (san_buffer_sizing_at). */
typedef struct {
    double limit;           /* the index's large-buffer limit */
    long k_limit;           /* the size where it was reached */
    san_buffer_sizing all;  /* ms: the buffer; pipeline: every buffer at once */
    san_buffer_sizing *each;/* pipeline: each inter-stage buffer alone */
    int neach;
    double combined;        /* pipeline: the index, every buffer at its own size */
    int combined_ok;        /* combined was solved */
    int combined_within;    /* and is within the tolerance of the limit */
} san_buffer_config;

typedef struct {
    size_t struct_size;     /* sizeof the struct, set by san_size_buffer_opts_default: the
                               library refuses options of another
                               layout (SAN_E_USAGE) */
    const char *index;      /* the index; NULL: the template's
                               throughput (ms: pack_throughput,
                               pipeline: throughput) */
    double within;          /* relative tolerance (0.01) */
    long max_buffer;        /* give up past this size (1024) */
    const san_sweep_opts *diag; /* the warnings kept in sweep.warnings:
                               no_peps_warnings, peers (NULL: defaults) */
} san_size_buffer_opts;

typedef struct {
    san_sweep sweep;        /* the configurations (the buffer axis at 1) */
    char *index;            /* the index sized */
    const char *throughput; /* the template's throughput index */
    double within;
    long max_buffer;
    int pipeline;           /* the pipeline template (else ms) */
    int nbuf;               /* buffers of a configuration */
    san_buffer_config *config;  /* per variant of sweep, after the run */
} san_size_buffer;

SAN_API void san_size_buffer_opts_default(san_size_buffer_opts *o);
/* argv as san_sweep_init's: "ms" or "pipeline" and its flags, several
 * values allowed, without --buffer or --buffers (what is searched);
 * --mode async is the default of ms; o NULL: the defaults.  SAN_E_USAGE
 * with err naming the flag (a buffer given, another mode, an unknown
 * index, pipelines of different lengths) or, for o not filled by
 * san_size_buffer_opts_default (its struct_size), naming that; SAN_E_IO or SAN_E_NOMEM with err otherwise. */
SAN_API san_status san_size_buffer_init(san_size_buffer *b, int argc, char **argv,
                                        const san_size_buffer_opts *o, char *err, size_t n);
/* Search every configuration, o->jobs at a time (0: one per core), each
 * with its own warm-start cache; o->space.max_memory 0 is the default
 * divided by the jobs; a progress bar when o->progress.  SAN_OK with
 * b->config filled (a failed search is a configuration with its error),
 * SAN_E_USAGE with err for o not filled by san_sweep_opts_default,
 * SAN_E_NOMEM with err. */
SAN_API san_status san_size_buffer_run(san_size_buffer *b, const san_sweep_opts *o, char *err,
                                       size_t n);
/* The point of z's curve at buffer size k; NULL when not evaluated. */
SAN_API const san_buffer_point *san_buffer_sizing_at(const san_buffer_sizing *z, long k);
/* The first error of a configuration's searches; NULL when it was sized. */
SAN_API const char *san_buffer_config_error(const san_buffer_config *c);
SAN_API void san_size_buffer_free(san_size_buffer *b);
/* The report of san size-buffer, as text or JSON (doc/output.md;
 * SAN_SWEEP_CSV: text), with the caller's provenance written by pre
 * where the format takes it (as san_sweep_write_ex; NULL: none). */
SAN_API void san_size_buffer_write(const san_size_buffer *b, san_sweep_format f,
                                   san_sweep_preamble pre, const void *ctx, FILE *out);

/* ------------------------------------------------------------------ */
/* Granularity (sweep/grain.c): san grain                               */
/* ------------------------------------------------------------------ */

/* The master/slave model solved for every grain (--slices-per-node or
 * --slices) and configuration; per configuration, the recommended grain
 * is the best on the rule of san_grain_by: an index's least or greatest
 * value (default execution_time when the model computes it), or the
 * paper's rule: the master least in Tx among the grains whose slaves
 * stay busy (efficiency within busy, relative, of the best grain's). */

typedef enum {
    SAN_GRAIN_PAPER,        /* the paper's rule (004, section 6.3) */
    SAN_GRAIN_MIN,          /* the least value of the index by */
    SAN_GRAIN_MAX           /* the greatest value of the index by */
} san_grain_rule;

typedef struct {
    int n;                  /* grains of the configuration */
    int *member;            /* their variants, in the sweep's order */
    int best;               /* the variant recommended; -1 when none solved */
    double best_eff;        /* the best efficiency among them */
    double floor_eff;       /* the efficiency the slaves must keep */
    int fastest;            /* least execution_time; -1 without it */
    int paper;              /* the paper's rule's pick; -1 when none */
} san_grain_group;

typedef struct {
    san_sweep sweep;        /* every grain of every configuration */
    int axis;               /* the grain's axis */
    double busy;
    san_grain_rule rule;    /* what the grains are ranked by */
    char by[64];            /* its index ("paper" for the paper's rule) */
    int remote;             /* 1 on an MPI rank other than 0: no rows */
    int ngroups;
    san_grain_group *group; /* per configuration (rows that differ only by
                               their grain), in the order of their first */
} san_grain;

/* argv: "ms" and its flags, several values allowed; --mode defaults to
 * async.  SAN_E_USAGE with err (another template, no grain axis, a bad
 * flag); SAN_E_IO or SAN_E_NOMEM with err otherwise. */
SAN_API san_status san_grain_init(san_grain *g, int argc, char **argv, char *err, size_t n);
/* The same, with the warnings kept in g->sweep.warnings as o asks
 * (no_peps_warnings, peers; NULL: the defaults). */
SAN_API san_status san_grain_init_opts(san_grain *g, int argc, char **argv,
                                       const san_sweep_opts *o, char *err, size_t n);
/* What to rank the grains by (after init, before run): "paper",
 * "execution_time", "efficiency", "throughput" (runs per second, down_tp:
 * --work slices only), an index whose better side is known (doc/san.1),
 * or "min:INDEX" / "max:INDEX"; NULL or "": execution_time when the model
 * computes it, else the paper's rule (what init sets).  SAN_E_USAGE with
 * err for an unknown index or one without a side. */
SAN_API san_status san_grain_by(san_grain *g, const char *by, char *err, size_t n);
/* Solve every variant (san_sweep_run) and recommend: SAN_OK (failed
 * variants are rows with their error), SAN_E_USAGE with err for o not
 * filled by san_sweep_opts_default, SAN_E_NOMEM with err. */
SAN_API san_status san_grain_run(san_grain *g, const san_sweep_opts *o, double busy, char *err,
                                 size_t n);
SAN_API void san_grain_free(san_grain *g);
/* The report of san grain, as text or JSON (doc/output.md; CSV: text),
 * the caller's provenance written by pre where the format takes it (as
 * san_sweep_write_ex; NULL: none). */
SAN_API void san_grain_write(const san_grain *G, san_sweep_format f, san_sweep_preamble pre,
                             const void *ctx, FILE *out);

/* For bindings (sweep/bind.c): san size-buffer and san grain in one call
 * each under the run options o, the report as the JSON document `-f
 * json` prints without its provenance block, malloc'd into *json.
 * index NULL or "": the template's throughput; within and max_buffer as
 * --within and --max-buffer; by and busy as --by (NULL or "": the
 * default) and --busy.  SAN_OK (failed configurations and variants
 * carry their error in the document); SAN_E_USAGE with err for what the
 * command refuses with exit 2; SAN_E_IO or SAN_E_NOMEM with err. */
SAN_API san_status san_size_buffer_json(int argc, char **argv, const char *index, double within,
                                        long max_buffer, const san_sweep_opts *o, char **json,
                                        char *err, size_t n);
SAN_API san_status san_grain_json(int argc, char **argv, const char *by, double busy,
                                  const san_sweep_opts *o, char **json, char *err, size_t n);

/* ------------------------------------------------------------------ */
/* Comparison (sweep/compare.c): san compare                            */
/* ------------------------------------------------------------------ */

typedef struct {
    char name[8];           /* "A", "B", ... */
    san_sweep sweep;        /* the model: one variant */
    san_sweep_row row;      /* its solution, with the marginals */
} san_compare_model;

typedef struct {
    int marginal;           /* 0: a result; 1: a marginal probability */
    char *name;             /* the result, or the automaton */
    char *state;            /* the local state ("" for a result) */
} san_compare_line;

typedef struct {
    int n;
    san_compare_model *model;
    int nlines;             /* every result, then every marginal, of every */
    san_compare_line *line; /*   model, in the order first seen */
} san_compare;

/* models: .san files or generator lines ("ms --mode async --slaves 3",
 * "model.san -D K=2"), each of one variant; defs: "NAME=VALUE" added to
 * every one as -D; model files are read under o's input limit (o NULL:
 * the default).  SAN_E_USAGE with err ("B: ...") for a bad model or
 * one of several variants, or o not filled by san_sweep_opts_default;
 * SAN_E_INPUT with err ("FILE: is a
 * directory") for a model file that cannot be used; SAN_E_IO or
 * SAN_E_NOMEM otherwise. */
SAN_API san_status san_compare_init(san_compare *c, int n, const char *const *models,
                                    int ndefs, const char *const *defs,
                                    const san_sweep_opts *o, char *err, size_t errn);
/* Solve the models, o->jobs at a time, and line up their results (and
 * marginals when marginals): SAN_OK (failed models are rows with their
 * error), SAN_E_USAGE with err for o not filled by
 * san_sweep_opts_default, SAN_E_NOMEM with err. */
SAN_API san_status san_compare_run(san_compare *c, const san_sweep_opts *o, int marginals,
                                   char *err, size_t n);
/* The value of line of model into *v: 1, or 0 when it has none. */
SAN_API int san_compare_value(const san_compare *c, int model, int line, double *v);
SAN_API void san_compare_free(san_compare *c);

/* ---- plots (cairo) ---- */

typedef struct {
    char *label;
    int n;
    double *x, *y;          /* sorted by x; a NAN y leaves a gap */
    int hline;              /* draw y[0] as a dashed horizontal reference */
    int mark;               /* 1 + the index of a point ringed (a choice:
                               size-buffer's K); 0: none */
} san_plot_series;

/* How a plot looks.  Text fields: NULL or "" leave the text out. */
typedef struct {
    size_t struct_size;     /* sizeof the struct, set by san_plot_opts_default: the
                               library refuses options of another
                               layout (-2 with err) */
    const char *title;      /* above the plot */
    const char *xlabel, *ylabel;    /* the axes' labels (with their units) */
    const char *legend_title;       /* above the legend's entries */
    double width, height;   /* the page: points for SVG and PDF, pixels
                               at 96 dpi for PNG; 0: 800 x 500 */
    double dpi;             /* PNG: the page drawn at dpi/96 pixels per
                               unit (192: twice the pixels, the same
                               look); 0: 96; SVG and PDF ignore it */
    int logx, logy;         /* logarithmic axis, ticks at the decades;
                               a value <= 0 on it is refused */
} san_plot_opts;

/* Everything off, the default page (800 x 500, 96 dpi), and
 * struct_size. */
SAN_API void san_plot_opts_default(san_plot_opts *o);

/* Draw curves into file, SVG, PNG or PDF by its extension: a frame with
 * ticks at round numbers (whole numbers on an axis whose values are all
 * whole; decades on a log axis), light grid lines, one line with
 * markers per series, a legend.  SVG keeps its text as <text> elements
 * (editable).  o NULL: the defaults.  Returns 0; -2 with err for a bad
 * extension, no data, a page too small or too large, a value <= 0 on
 * a log axis (the series and the value named), or o not filled by
 * san_plot_opts_default (its struct_size); -1 when cairo or the file
 * fails. */
SAN_API int san_plot_ex(const char *file, const san_plot_opts *o, const san_plot_series *s,
                        int ns, char *err, size_t errn);
/* san_plot_ex with title and labels and the default page. */
SAN_API int san_plot(const char *file, const char *title, const char *xlabel,
             const char *ylabel, const san_plot_series *s, int ns,
             char *err, size_t n);
/* The sweep's rows as curves: y (a result, or reachable_states, time_s,
 * iterations) against the axis x, one series per value of the series
 * axes (comma-separated names; NULL: every other axis that varies).
 * o's title, xlabel and ylabel NULL take defaults ("y vs x", the axis'
 * name, y); "" leaves them out.  0; -2 with err for a usage error (an
 * unknown axis or index, o of another layout: san_plot_ex's); -1. */
SAN_API int san_sweep_plot_ex(const san_sweep *s, const char *file, const char *x,
                              const char *y, const char *series, const san_plot_opts *o,
                              char *err, size_t n);
/* san_sweep_plot_ex with a title (NULL: the default) and the default
 * page. */
SAN_API int san_sweep_plot(const san_sweep *s, const char *file, const char *x,
                   const char *y, const char *series, const char *title,
                   char *err, size_t n);

#ifdef __cplusplus
}
#endif
#endif
