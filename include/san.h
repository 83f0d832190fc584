/*
 * san.h - the one public header of libsan, a toolkit for Stochastic
 * Automata Networks.
 *
 * Data flows in three phases, each with its own part of this header:
 *
 *   lang:   .san text  -> san_model   (san_model_load)
 *   solver: san_model  -> san_space   (reachable states, generator)
 *                      -> stationary vector (san_solve)
 *   report: san_model + vector -> results, marginals, throughputs
 *
 * Every structure here is plain data that a caller can read directly;
 * functions that can fail return NULL or a negative value and leave their
 * explanation in a san_diag list.
 */
#ifndef SAN_H
#define SAN_H

#include <stdint.h>
#include <stdio.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Diagnostics                                                          */
/* ------------------------------------------------------------------ */

typedef enum { SAN_NOTE, SAN_WARNING, SAN_ERROR } san_severity;

typedef struct {
    san_severity sev;
    int line, col;          /* 1-based; 0 when the message has no position */
    char *msg;
} san_diag_item;

typedef struct {
    const char *file;       /* name shown in messages ("<stdin>" for -) */
    const char *src;        /* the source text, to quote lines; may be NULL */
    size_t srclen;
    san_diag_item *items;
    int n, cap;
    int nerrors, nwarnings;
    int max_errors;         /* stop collecting past this many errors */
} san_diag;

void san_diag_init(san_diag *d, const char *file, const char *src, size_t len);
void san_diag_free(san_diag *d);
void san_diag_add(san_diag *d, san_severity sev, int line, int col,
                  const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/* Print as FILE:LINE:COL: error: msg, then the source line and a caret. */
void san_diag_print(const san_diag *d, FILE *out, int color);

/* ------------------------------------------------------------------ */
/* Compiled expressions                                                 */
/* ------------------------------------------------------------------ */

/* An expression compiled to postfix code over a global state (the array
 * of local state indices, one per automaton).  Constants are folded at
 * compile time: a constant expression is a single instruction. */
typedef struct san_expr san_expr;

double san_expr_eval(const san_expr *e, const int *state);
/* Derived results read the values of earlier results. */
double san_expr_eval_ctx(const san_expr *e, const int *state, const double *results);
int    san_expr_is_const(const san_expr *e);
double san_expr_const(const san_expr *e);      /* valid if is_const */
/* Automata the expression reads, ascending; *n receives the count. */
const int *san_expr_deps(const san_expr *e, int *n);

/* ------------------------------------------------------------------ */
/* The compiled model                                                   */
/* ------------------------------------------------------------------ */

typedef struct {
    int event;              /* index into san_model.ev */
    int to;                 /* destination local state */
    san_expr *prob;         /* routing probability; NULL means 1 */
} san_trans;

typedef struct {
    char *name;             /* expanded: "P[3]" for a replica */
    int nstates;
    char **states;          /* expanded names: "s[3]" inside a block */
    double *reward;         /* per state; default: the state index */
    /* Transitions leaving local state s are tr[first[s] .. first[s+1]),
     * sorted by event, then by destination. */
    int *first;
    san_trans *tr;
    int ntr;
} san_automaton;

typedef struct {
    char *name;             /* "Acq" or, for a copy in a replica, "Acq@P[3]" */
    int sync;               /* 0: local, 1: synchronizing */
    san_expr *rate;
    int nparts;             /* automata that fire it, ascending */
    int *parts;
    int line, col;          /* declaration */
} san_event;

typedef struct {
    char *name;
    san_expr *expr;
    int derived;            /* computed from earlier results (extension),
                               not an expectation over the states */
} san_result;

typedef struct {
    char *name;
    int is_function;        /* reads the state */
    int is_domain;
    int overridden;         /* value set by -D */
    double value;           /* constants */
    san_expr *expr;         /* functions (NULL otherwise) */
} san_ident;

typedef struct san_model {
    char *name;             /* network name */
    char *file;
    int naut;
    san_automaton *aut;
    int nev;
    san_event *ev;
    int nres;
    san_result *res;
    int nid;
    san_ident *id;
    san_expr *reach;        /* reachability function */
    int partial;            /* 1: partial reachability */
    /* Product space: mixed radix, automaton 0 most significant. */
    int64_t *stride;        /* stride[a] = prod_{b>a} nstates[b] */
    int product_fits;       /* product fits in int64_t */
    int64_t product;        /* valid if product_fits */
    char *product_str;      /* exact decimal, any size */
    double product_log10;
    /* Ownership: every expression the model uses is in this pool. */
    san_expr **pool;
    int npool, cappool;
    void *syntax;           /* the parsed text, kept for san_model_print */
} san_model;

/* Constant overrides from the command line (-D NAME=VALUE). */
typedef struct {
    const char *name;
    double value;
    int used;               /* set by the compiler */
} san_define;

typedef struct {
    san_define *defs;
    int ndefs;
    int peps_warnings;      /* warn on left-to-right precedence ambiguity */
} san_load_opts;

/* Parse and compile; NULL if there were errors (all reported in d). */
san_model *san_model_load(const char *text, size_t len, san_diag *d,
                          const san_load_opts *opt);
void san_model_free(san_model *m);

/* Write the model back as normalized .san text. */
void san_model_print(const san_model *m, FILE *out);

/* Decode a mixed-radix index into local states, and back. */
void    san_state_decode(const san_model *m, int64_t idx, int *state);
int64_t san_state_encode(const san_model *m, const int *state);
/* "(P[0]:using, P[1]:sleeping)" into buf; returns buf. */
char *san_state_name(const san_model *m, const int *state, char *buf, size_t n);

/* ------------------------------------------------------------------ */
/* Sparse matrices and the linear solvers of pi Q = 0                   */
/* ------------------------------------------------------------------ */

/* Compressed rows.  State indices are 32-bit on the sparse path (a sparse
 * generator with 2^31 states would not fit in memory anyway); row pointers
 * are 64-bit because nonzeros exceed 2^31 on large models. */
typedef struct {
    int64_t n;              /* rows = columns */
    int64_t *rowptr;        /* n + 1 */
    int32_t *col;           /* rowptr[n], ascending within a row */
    double *val;
} san_csr;

typedef enum {
    SAN_M_AUTO, SAN_M_DIRECT, SAN_M_POWER, SAN_M_JACOBI, SAN_M_GS,
    SAN_M_GMRES, SAN_M_BICGSTAB,
    SAN_M_IAD               /* iterative aggregation-disaggregation */
} san_method;

typedef enum { SAN_PC_ILU0, SAN_PC_JACOBI, SAN_PC_NONE } san_precond;

/* The accuracy contract (san(1), "ACCURACY").  A solve reports
 * converged only when the answer passed two tests at tol:
 *   - the balance of every state: |in_j - out_j| <= tol (in_j + out_j
 *     + |q_jj| 1e-14), in_j and out_j the probability flows into and out
 *     of state j, the probabilities summing to 1;
 *   - aggregation over partitions that hold the slow modes of the
 *     chain (per automaton, per coupled group of automata, per set of
 *     strongly connected states): every block's mass within tol,
 *     relative, of the mass the coarse chain gives it.
 * error_est then estimates the largest relative error of a state
 * probability above 1e-14 (and of every index that sums non-negative
 * terms). */
typedef struct {
    san_method method;
    double tol;             /* of the tests above; the methods' own
                               stopping residual (san_ctmc_residual)
                               starts at this value */
    long max_iter;
    double omega;           /* relaxation of gs (1 = Gauss-Seidel) */
    int restart;            /* m of GMRES(m) */
    san_precond precond;
    double time_limit;      /* seconds; 0: none */
    int progress;           /* print iterations and residual on stderr */
    volatile int *interrupt;/* when set non-zero, stop with the best vector */
    const struct san_warm *warm; /* start from a neighbour's answer
                               (san_warm_new); NULL: uniform */
} san_solve_opts;

typedef struct {
    san_method method;      /* the method actually used */
    long iterations;
    double residual;        /* recomputed from the returned vector */
    int converged;
    double time_s;
    long products;          /* products y = x Q done (iterations and
                               residual checks; a Gauss-Seidel sweep or a
                               factorization is not one) */
    double product_s;       /* seconds spent in them */
    double balance;         /* the balance residual of the answer */
    double agg_error;       /* the largest aggregation error measured */
    double error_est;       /* estimated relative error (see above) */
    int polish;             /* polishing sweeps the check made */
    long refine_cycles;     /* aggregation cycles (auto, direct, iad) */
    char msg[256];          /* why it failed or stopped, "" otherwise */
    char note[256];         /* what was done besides the method, when it
                               matters: a fallback, a refinement */
} san_solve_info;

void san_solve_opts_default(san_solve_opts *o);
const char *san_method_name(san_method m);
int san_method_parse(const char *s, san_method *m);   /* 0 ok, -1 unknown */

/* Stationary distribution of an irreducible CTMC.  qt is the TRANSPOSED
 * generator in compressed rows: row j holds Q[i][j] for every i with a
 * transition i -> j, and the diagonal Q[j][j] (rows of Q sum to zero).
 * pi (length n) holds an initial guess on entry (or all zeros: uniform is
 * used) and the solution on return, non-negative and summing to 1.
 * Returns 0 when converged, 1 when not converged (pi is then the best
 * vector reached, info->residual its residual), -1 on failure (out of
 * memory, singular factorization), with info->msg saying why. */
int san_ctmc_solve(const san_csr *qt, double *pi, const san_solve_opts *o,
                   san_solve_info *info);

/* The residual of pi, from the transposed generator:
 *     max_j |(pi Q)_j| / (max_j |Q[j][j]| * max_j pi_j),
 * relative to the largest rate and the largest probability, so that it
 * is the same for pi and any multiple of it and does not shrink with the
 * number of states.  Every method's tol and info->residual mean this. */
double san_ctmc_residual(const san_csr *qt, const double *pi);

/* Transpose (allocates); 0, or -1 when out of memory. */
int san_csr_transpose(const san_csr *a, san_csr *at);
void san_csr_free(san_csr *a);

/* ------------------------------------------------------------------ */
/* State space and generator (solver/space.c)                           */
/* ------------------------------------------------------------------ */

typedef struct {
    double max_memory;      /* bytes; 0: san_default_max_memory() */
    int64_t max_states;     /* 0: no limit */
    int progress;           /* show exploration progress on stderr */
    volatile int *interrupt;
    int states_only;        /* number the reachable states but store no Q
                               (the tensor path has its own operator): the
                               exit rates, and the arcs while they take at
                               most a quarter of max_memory; the class
                               check is then left to the caller
                               (san_kron_check_classes) */
    int no_arcs;            /* states_only: keep no arcs, the check
                               enumerates the successors again (tests) */
} san_space_opts;

/* The reachable states, numbered 0..n-1 in exploration order, and the
 * generator over them.  Vectors on the reachable set use these numbers. */
typedef struct {
    const san_model *m;
    int64_t n;              /* reachable states */
    int64_t *index;         /* mixed-radix index of each state */
    san_csr q;              /* Q by rows (out-transitions, diagonal included);
                               states_only: the columns alone (val NULL)
                               for san_kron_check_classes, which frees
                               them, or none when they did not fit */
    double *exit;           /* states_only: each state's total rate to the
                               others, -q_ii (NULL otherwise) */
    int64_t declared;       /* states the reachability function accepts */
    int64_t reached_undeclared; /* reached, but rejected by the function */
    int64_t dropped;        /* isolated pockets dropped */
    /* The one closed class the chain must have; other states are transient. */
    int64_t nclosed;        /* states in the closed class */
    char *in_closed;        /* per state: 1 in the closed class */
    double max_rate;        /* largest |q_ii| */
    double t_explore, t_build, t_check;  /* seconds */
    double bytes;           /* memory held by this structure */
} san_space;

double san_default_max_memory(void);

/* Explore the reachable set from the reachability function, build Q,
 * check its structure (exactly one closed class).  Returns 0, or -2 for
 * errors in the model (exit status 2), -1 for runtime failures (memory),
 * with the reason in d (positionless diagnostics). */
int san_space_build(const san_model *m, const san_space_opts *o, san_space *sp,
                    san_diag *d);
void san_space_free(san_space *sp);

/* ------------------------------------------------------------------ */
/* Steady-state solution and its indices (solver/report.c)             */
/* ------------------------------------------------------------------ */

typedef struct {
    int64_t state;          /* state number in the space */
    double p;
} san_top_state;

typedef struct {
    double *pi;             /* per reachable state */
    san_solve_info info;
    double *results;        /* per model result */
    double **marginal;      /* [automaton][local state] */
    double *throughput;     /* per event */
    san_top_state *top;     /* most probable states, descending */
    int ntop;
} san_solution;

/* Solve the chain of sp: the closed class only (transient states get 0).
 * Returns what san_ctmc_solve returns. */
int san_solve(const san_space *sp, const san_solve_opts *o, san_solution *sol);
/* Fill results, marginals, throughputs and the ntop most probable states. */
int san_solution_indices(const san_space *sp, san_solution *sol, int ntop,
                         san_diag *d);
void san_solution_free(const san_model *m, san_solution *sol);

/* ---- warm starts (solver/warm.c) ---- */

/* A solved distribution kept to start another solve from: the states
 * are matched by automaton and local state names, so that a variant
 * with another rate, a longer buffer or one more slave starts from its
 * neighbour's answer.  A guess only saves time: the answer is verified
 * as always. */
typedef struct san_warm san_warm;
/* Copies what it needs from sp and pi (per state of sp); NULL when out
 * of memory. */
san_warm *san_warm_new(const san_space *sp, const double *pi);
void san_warm_free(san_warm *w);
double san_warm_bytes(const san_warm *w);
/* x (sp->n entries) gets w mapped onto sp's states, the unmatched ones
 * the mean of the matched; returns the fraction of states matched (0:
 * none, x all zero). */
double san_warm_map(const san_warm *w, const san_space *sp, double *x);

/* ------------------------------------------------------------------ */
/* Tensor (Kronecker) descriptor: Q never stored (solver/kron*.c)        */
/* ------------------------------------------------------------------ */

/* Class check of a space built with states_only (exactly one closed
 * class, as san_space_build does for the sparse path); 0, -2 or -1. */
int san_kron_check_classes(san_space *sp, san_diag *d);
/* Solve over the descriptor; same contract as san_solve.  The
 * descriptor's size in bytes goes to *descriptor_bytes. */
int san_kron_solve(const san_space *sp, const san_solve_opts *o, san_solution *sol,
                   double *descriptor_bytes);
/* Memory the descriptor and its vectors would need. */
double san_kron_estimate_bytes(const san_model *m, int64_t reachable);

/* ------------------------------------------------------------------ */
/* Model generators (gen/): parameter flags -> .san text                 */
/* ------------------------------------------------------------------ */

/* argv[0] is the template name ("ms" or "pipeline"), the rest its flags.
 * Returns the model as malloc'd .san text, or NULL with a message naming
 * the offending flag in err (a usage error). */
char *san_gen(int argc, char **argv, char *err, size_t errlen);
/* Describe the templates and their flags. */
void san_gen_help(FILE *out);

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
san_warm_cache *san_warm_cache_new(int naxes, double budget);
void san_warm_cache_free(san_warm_cache *c);
/* The answer of the solved variant nearest to vals (per axis), or NULL. */
const san_warm *san_warm_cache_nearest(san_warm_cache *c, const char *const *vals);
void san_warm_cache_add(san_warm_cache *c, const char *const *vals, const san_space *sp,
                        const double *pi);

typedef struct {
    san_solve_opts solve;
    san_space_opts space;   /* max_memory 0: the default divided by jobs */
    san_warm_cache *warm;   /* san_sweep_eval: start from the nearest
                               variant solved into this cache, and add
                               the answer to it (NULL: from uniform) */
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

void san_sweep_opts_default(san_sweep_opts *o);
/* A run option by its long name and value: --jobs, --method, --tol,
 * --max-iter, --time-limit, --max-states, --max-memory.  Returns 0 when
 * set, 1 when flag is not a run option, -1 with err naming the flag. */
int san_sweep_opts_set(san_sweep_opts *o, const char *flag, const char *val,
                       char *err, size_t n);

/* The values of one flag: "a..b", "a..b:step" (numbers, a <= b, step > 0),
 * "a,b,c" (items may be ranges), ';' separates values whose text holds
 * commas (list_valued: every ',' stays in the value).  Returns the count
 * (>= 1) and a malloc'd array of malloc'd strings, or -1 with err naming
 * the flag. */
int san_sweep_values(const char *flag, const char *text, int list_valued,
                     char ***values, char *err, size_t n);
void san_sweep_values_free(char **values, int n);

/* argv[0] is a template name or a model file; then --flag VALUES,
 * --flag=VALUES and -D NAME=VALUES.  Expands the variants and compiles
 * each one (cheap, no state space) for its size and result names.
 * Returns 0; -2 with err for a usage error (bad range, unknown flag,
 * every variant refused); -1 when out of memory or the file is unreadable. */
int san_sweep_init(san_sweep *s, int argc, char **argv, char *err, size_t n);
/* The same from one command line: "ms --mode async --slaves 5" or
 * "model.san -D K=3" (quotes group words). */
int san_sweep_init_line(san_sweep *s, const char *line, char *err, size_t n);
void san_sweep_free(san_sweep *s);

/* Solve every variant, largest first, opts->jobs at a time, each one on a
 * single thread.  Under mpirun (built --with-mpi) the variants go to the
 * ranks and rank 0 gathers them.  Returns 0 with s->rows filled (failed
 * variants are rows with their error), 1 on an MPI rank other than 0
 * (which has no rows and prints nothing), -1 when out of memory. */
int san_sweep_run(san_sweep *s, const san_sweep_opts *o);

/* Solve one variant given the value of each axis (NULL: flag left out);
 * values need not be among the axis' own.  Never fails: errors go into
 * row->error. */
void san_sweep_eval(const san_sweep_spec *sp, const char *const *vals,
                    const san_sweep_opts *o, san_sweep_row *row);
void san_sweep_row_free(san_sweep_row *row);

/* Call fn(ctx, order[k]) for k = 0..n-1 (order NULL: k), jobs at a time
 * on threads, each with one OpenMP thread; with a progress bar on stderr
 * when progress is set (weights, NULL for equal, drive the estimate). */
void san_sweep_parallel(int n, const int *order, int jobs,
                        void (*fn)(void *ctx, int i), void *ctx,
                        const double *weight, int progress, const char *what);
/* Cores available to this process. */
int san_sweep_cores(void);
/* 1 when built with MPI (configure --with-mpi), 0 otherwise. */
int san_sweep_mpi(void);

/* Lookups by name: an axis ("slaves", "--slaves", "K") or a result;
 * -1 when absent. */
int san_sweep_find_axis(const san_sweep *s, const char *name);
int san_sweep_find_result(const san_sweep *s, const char *name);
/* The value of axis a in row r as a number (NAN when absent or text). */
double san_sweep_row_value(const san_sweep *s, const san_sweep_row *r, int a);

typedef enum { SAN_SWEEP_TEXT, SAN_SWEEP_CSV, SAN_SWEEP_JSON } san_sweep_format;
/* The table: one row per variant.  only/nonly restrict the result
 * columns (NULL: every result); times 0 leaves the timing column out
 * (for comparing runs). */
void san_sweep_write(const san_sweep *s, san_sweep_format f,
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
int san_plot(const char *file, const char *title, const char *xlabel,
             const char *ylabel, const san_plot_series *s, int ns,
             char *err, size_t n);
/* The sweep's rows as curves: y (a result, or reachable_states, time_s,
 * iterations) against the axis x, one series per value of the series
 * axes (comma-separated names; NULL: every other axis that varies). */
int san_sweep_plot(const san_sweep *s, const char *file, const char *x,
                   const char *y, const char *series, const char *title,
                   char *err, size_t n);

/* ------------------------------------------------------------------ */
/* Versions and utilities                                               */
/* ------------------------------------------------------------------ */

const char *san_version(void);
/* Read a whole file ("-" is standard input); NULL with errno set. */
char *san_read_file(const char *path, size_t *len);

#ifdef __cplusplus
}
#endif
#endif
