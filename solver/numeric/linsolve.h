/*
 * linsolve.h - what the kernels of pi Q = 0 share (internal to libsan).
 *
 * The dispatcher (linsolve.c) validates the generator, measures its scale,
 * runs one kernel and then checks and normalizes whatever the kernel
 * returns.  The kernels (direct.c, gth.c, stationary.c, krylov.c) only
 * iterate: they receive a num_ls context holding the operator (op.h; the
 * transposed generator too on the sparse path), the options, the clock
 * and the info record, and they return
 *    0  converged (their own residual test passed),
 *    1  stopped early (max_iter, time limit, interrupt) with the best
 *       vector they saw left in pi, info->msg saying why,
 *   -1  failed (out of memory, breakdown), info->msg saying why,
 *    2  (direct only, in auto mode) the factorization would be too big.
 */
#ifndef SAN_LINSOLVE_H
#define SAN_LINSOLVE_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include "san.h"
#include "base/services.h"
#include "solver/numeric/op.h"
#include "solver/numeric/partition.h"

/* Probabilities below this (in a vector summing to 1) are held to an
 * absolute accuracy rather than a relative one: the accuracy contract
 * of san.h. */
#define SAN_PROB_FLOOR 1e-14

/* No error estimate below this: the nearest double to a probability,
 * the roundoff of the last pass over it and of the sums behind an index
 * leave a few epsilon whatever the checks say (a chain of 8 states
 * checked against GTH reported 0 and 2.2e-16, and was 2.3e-16 off). */
#define SAN_EST_FLOOR 5e-15

/* Loops over fewer rows than this stay on one thread: below it the
 * fork and join of the team cost more than the loop saves. */
#define SAN_LS_PAR_MIN 32768

/* Residual checks of the stationary methods happen every this many
 * sweeps: one check costs one sparse product, i.e. about one sweep. */
#define SAN_LS_CHECK_EVERY 10

/* Progress lines at most this often (seconds). */
#define SAN_LS_PROGRESS_DT 0.5

/* Why an iteration stops before converging. */
typedef enum {
    SAN_LS_GO = 0, SAN_LS_MAXIT, SAN_LS_TIME, SAN_LS_INTR
} num_ls_stop;

/* In-place sweeps (Gauss-Seidel) carry a factor along the chain: on
 * PRISM's tandem queue of capacity 127 every level of the first queue
 * multiplies x by about 254, so the first forward sweep from the
 * uniform vector overflows at 254^127 ~ 1e305 (every method stopped on
 * "NaN or infinity at state 0").  A sweep that sees an entry above
 * SAN_LS_HUGE scales the whole vector by 1 / SAN_LS_HUGE and goes on:
 * the sweep is linear and homogeneous in x, so this is exact, and what
 * underflows then is 1e-250 below the largest entry, far below what any
 * index reads (SAN_PROB_FLOOR). */
#define SAN_LS_HUGE 1e250

/* x *= 1 / SAN_LS_HUGE; returns that factor. */
double num_ls_tame(double *x, int64_t n);

/* GMRES(m) without --restart. */
#define SAN_LS_DEFAULT_RESTART 30

typedef struct num_agg_ws num_agg_ws;

/* One solve in progress. */
typedef struct num_ls {
    num_op *op;                 /* y = x Q: what power, Jacobi and the
                                   Krylov methods use */
    const san_csr *qt;          /* the transposed generator (sparse path
                                   only: direct, GTH, Gauss-Seidel) */
    double maxd;                /* max_j |q_jj|: the scale of residuals */
    const san_solve_opts *o;
    san_solve_info *info;
    double tol;                 /* what kernels test: 0.9 o->tol, because
                                   near the roundoff floor a residual
                                   recomputed on the normalized vector
                                   differs by several percent (the
                                   tensor path uses (1 - 1e-6) o->tol) */
    double t0;                  /* san_ls_now() at the start */
    double last_print;          /* time of the last progress line */
    int printed;                /* a progress line is open on stderr */
    long clock_skip;            /* iterations between looks at the clock */
    double time_hit;            /* set once the time limit has been seen */
    const num_parts *parts;     /* partitions for aggregation (may be
                                   NULL): verify.c, aggregate.c */
    num_agg_ws *agg;            /* aggregation workspace (lazy) */
    double *dneg;               /* -q_jj per position (lazy) */
    long stagnation;            /* Krylov iterations without halving the
                                   residual that mean stagnation (0: the
                                   kernel's default) */
    double settle;              /* a residual below which the Krylov
                                   methods call stagnation after a short
                                   window (krylov.c; 0: never) */
    int jacobi_min;             /* Jacobi sweeps per refinement cycle at
                                   least (verify.c raises it when the
                                   cycles contract slowly; 0: none) */
    unsigned tried;             /* the methods this solve has run or
                                   will run (1 << san_method): what a
                                   refusal does not advise again */
    int stall_watch;            /* named methods: stop at the roundoff
                                   floor (num_ls_stalled) */
    int stalled;                /* set by a kernel that stopped there: its
                                   best vector goes to the checks */
    int plateau_handoff;        /* named: a low plateau goes to the checks
                                   after a short window (krylov.c
                                   PLATEAU_ITERS); off for their retries */
    int stall_note;             /* info->note is a stalled kernel's message
                                   (stalled_to_checks) */
    int probe;                  /* auto: its Krylov kernel asks the checks
                                   (num_ls_probe) once below c->settle */
    long probes;                /* probe cycles run since the last
                                   num_ls_verify (counted as its cycles) */
    int verified;               /* the kernel's vector passed a probe:
                                   num_ls_verify does not cycle again */
    double probe_change;        /* the kernel's vector is a refused probe's
                                   cycle, which changed it by this much:
                                   the refinement goes on from it (0 none) */
    int floor_measured;         /* the LU correction measured an error above
                                   tol (verify.c measured()): the chain's
                                   roundoff floor, which neither a tighter
                                   kernel nor another method goes below,
                                   whatever vector they start it from (it
                                   corrects any).  auto's resorts and the
                                   checks' retries stop there: on
                                   boundtest's slow3 (K 150, seeds 29, 91,
                                   1) at --tol 1e-12, auto refused after
                                   405-527 iterations (716-7,216 products)
                                   on the sparse storage, 122-649 (4,724-
                                   4,840) over the descriptor; now 3 (6)
                                   and 9-10 (718-733), the same refusal
                                   and estimate (2.8e-10 to 9.6e-10) */
    int oracle_done;            /* SAN_TEST_ORACLE has spoken (num_ls_oracle) */
    void (*oracle)(struct num_ls *c, const double *x, long it);
                                /* num_ls_oracle_judge under SAN_TEST_ORACLE
                                   (num_ls_checked), else NULL: the kernels
                                   reach verify.c through it, not by a call
                                   (stationary.c is below verify.c) */
    int final;                  /* set by a kernel whose failure no other
                                   method can mend (a reducible chain, a
                                   refusal the user must see) */
} num_ls;

/* Chains whose fast components are coupled more weakly than this are
 * nearly decomposable: auto runs the aggregation method on them from
 * the start (a Krylov method stagnates there: 545 BiCGSTAB iterations,
 * 30 s, on the 524,288-state bench model, against 2.8 s for iad). */
#define SAN_NCD_COUPLING 1e-4
/* auto's Krylov method hands over to the refinement after this many
 * iterations without progress. */
#define SAN_AUTO_STAGNATION 100

typedef int (*san_ls_kernel)(num_ls *c, double *pi);

/* What to try after the method of c->info failed, in words ("try
 * --method direct or ml"): only methods this storage offers, neither
 * the one that failed nor one already tried (c->tried); over the
 * descriptor the sparse storage too.  Into buf, which is returned. */
const char *num_ls_advice(const num_ls *c, char *buf, size_t sz);
/* The note of an answered run, its advice removed: a kernel's message
 * kept as a note ("BiCGSTAB stagnated ...; try --method gmres or iad"),
 * or quoted in one, advised other methods for a run that then answered
 * (the checks polished or corrected its vector).  Each clause "; try
 * ...", ": try ..." or "; raise --..." goes, up to the parenthesis that
 * closes the quote it is in, or the end. */
void num_ls_note_answered(char *note);
/* auto's resort to method m (kernel k) after its method stopped short
 * (st 1): run from the best vector with the checks of a named method;
 * the better of the two answers is kept, with its verdict.  The new
 * code. */
int num_ls_resort(num_ls *c, double *pi, int st, san_method m, san_ls_kernel k);

/* The end of auto (code st): a refusal whose message advises a method
 * auto ran gets num_ls_advice's advice instead.  Returns st. */
int num_ls_auto_end(num_ls *c, int st);

/* Frees what the verification allocated in c (agg, dneg). */
void num_ls_free(num_ls *c);

/* The best vector seen so far (for the "stopped early" answer).  When
 * its buffer cannot be allocated, x stays NULL and the last iterate is
 * returned instead: losing that nicety is better than failing. */
typedef struct {
    double *x;
    double res;                 /* its residual (op.h); HUGE_VAL none */
    int64_t n;
} num_ls_best;

/* ---- services for the kernels (solve_opts.c, vec.c, stop.c) ---- */
/* The bytes a solve may allocate: o->max_memory, or the default. */
double num_ls_budget(const san_solve_opts *o);
static inline double san_ls_now(void) { return san_now(); }
/* Looks at the clock and the interrupt flag, prints progress when asked;
 * res is the latest residual known (negative: none yet). */
num_ls_stop num_ls_poll(num_ls *c, long iter, double res);
/* The interrupt flag and the clock alone (no iteration count): before
 * work that takes seconds. */
num_ls_stop num_ls_clock(const num_ls *c);
/* Ends an open progress line. */
void num_ls_progress_end(num_ls *c);
/* Writes the "not converged / time limit / interrupted" message, with
 * the best residual reached. */
void num_ls_stop_msg(num_ls *c, num_ls_stop why, long iter, double best,
                     const char *hint);
/* The same with what the value is ("best residual", "error estimate");
 * a value of HUGE_VAL is said as "none yet". */
void num_ls_stop_say(num_ls *c, num_ls_stop why, long iter, const char *what,
                     double value, const char *hint);
/* The verdicts every engine writes the same way (the serial methods
 * through the two above, the distributed solve, solver/petsc/, directly):
 * a solve stopped by the time limit (time_limit seconds), an interrupt or
 * an iteration without an answer (why), with the value reached, into
 * info->msg ("; hint" after "not converged"; info->status
 * SAN_E_INTERRUPTED for the first two). */
void num_verdict_stop(san_solve_info *info, num_ls_stop why, double time_limit, long iter,
                      const char *what, double value, const char *hint);
/* An answer whose block masses over the partition `part` are off by err
 * (above tol) after `cycles` corrections, solved by `who`. */
void num_verdict_aggregation(san_solve_info *info, const char *who, long cycles,
                             const char *part, double err, double tol, const char *hint);
double num_ls_sum(const double *x, int64_t n);
void num_ls_scale(double *x, int64_t n, double a);
/* The state whose balance equation is replaced by "x_k = 1" in the
 * nonsingular formulations: the largest |q_kk| * guess_k (guess NULL:
 * the largest |q_kk|), i.e. the equation carrying the largest flow. */
int64_t num_ls_pick_fixed(const san_csr *qt, const double *guess);
/* Position of the diagonal of row j, or -1. */
int64_t num_ls_diag_pos(const san_csr *a, int64_t j);
/* san_csr_transpose that stops when *interrupt is set (NULL: never):
 * 0, -1 out of memory or a column out of range, -2 interrupted (at
 * freed in both cases). */
int num_csr_transpose(const san_csr *a, san_csr *at, const volatile int *interrupt);

void num_ls_best_init(num_ls_best *b, int64_t n);
/* Keeps a copy of x when res beats the best so far. */
void num_ls_best_offer(num_ls_best *b, const double *x, double res);
/* Puts the best vector into x unless x (residual res, NaN counting as
 * the worst) is at least as good; returns the residual of what x now
 * holds. */
double num_ls_best_restore(num_ls_best *b, double *x, double res);
/* An iteration stopped short (why): the better of x and the best vector
 * seen goes to x, the message says why with that vector's residual,
 * which is returned. */
double num_ls_give_up(num_ls *c, num_ls_best *b, double *x, num_ls_stop why, long iter,
                      double res, const char *hint);
void num_ls_best_free(num_ls_best *b);

/* A residual this small is at the roundoff floor of the operator: the
 * normwise residual of a vector rounded to doubles and multiplied by the
 * generator or the descriptor, where a Krylov method's true residual
 * bounces without halving: 1.3e-12 to 1.8e-12 (6,000 epsilon) on
 * M/M/1/300, rho 0.99, over the descriptor; 3.2e-12 to 1.1e-11 (14,500
 * epsilon and up) on cluster64.san over the descriptor; 1e-14 to 4e-13
 * on rs 20/9.  It only matters to a --tol below it.  Not higher: at
 * 1e5 epsilon, BiCGSTAB over cluster64.san's descriptor (tol 1e-12)
 * stopped at 3.2e-12 at iteration 550, and its vector failed the
 * balance test where the run to iteration 580 (residual below 0.9e-12)
 * passes it. */
#define SAN_LS_ROUNDOFF_FLOOR (1e4 * DBL_EPSILON)

/* The roundoff watch of a named method's kernel: its residual has not
 * halved since anchor_it, and the least seen is low. */
typedef struct {
    double anchor, least;
    long anchor_it;
} num_ls_stall;

void num_ls_stall_init(num_ls_stall *s);
/* Feeds the residual res of iteration it; returns 1 (and sets
 * c->stalled) when c->stall_watch is on, res has not halved in window
 * iterations and the least residual seen is at the roundoff floor: the
 * kernel stops with its best vector, which the checks judge. */
int num_ls_stalled(num_ls *c, num_ls_stall *s, long it, double res, long window);

/* ---- the final vector ---- */
/* The final vector of any method (sparse or tensor path): NaN or a
 * non-positive sum is a failure; it is normalized and roundoff negatives
 * clamped, the most negative entry kept for the verdict, which is given
 * once the caller has recomputed info->residual from the vector. */
typedef struct {
    double mn, mx;          /* most negative and largest entry, normalized */
    int64_t imn;            /* where the most negative one was */
} num_ls_neg;
int num_ls_normalize(double *pi, int64_t n, san_solve_info *info, num_ls_neg *neg);
int num_ls_verdict(int st, san_solve_info *info, double tol, const num_ls_neg *neg);

/* ---- the kernels ---- */
/* Sparse path only (they need c->qt): */
/* maxmem > 0: give up (return 2) when UMFPACK estimates more memory than
 * maxmem bytes or more than maxflops flops; 0: no limit. */
int num_ls_direct(num_ls *c, double *pi, double maxmem, double maxflops);
/* The LU of qt with state k's equation replaced (as num_ls_direct does),
 * kept for several solves; NULL with *rc 2 (over maxmem or maxflops) or
 * -1 (the message in c->info).  num_lu_solve solves x (Q^T modified) =
 * b, i.e. x Q = b with x_k = b_k / q_kk: 0, or UMFPACK's status
 * (UMFPACK_WARNING_singular_matrix is positive). */
typedef struct num_lu num_lu;
num_lu *num_lu_factor(num_ls *c, const san_csr *qt, int64_t k, double maxmem,
                      double maxflops, int *rc);
int num_lu_solve(const num_lu *f, const double *b, double *x);
void num_lu_free(num_lu *f);
/* correct.c: when the LU of the chain is cheap (a few thousand states
 * on the descriptor, tens of thousands stored), x's error measured by
 * a correction from that LU, the correction applied, and the error of
 * the result measured by a second: 0 with *est set (and *first, x's
 * error found by the first), 1 not affordable
 * (x untouched), -1 failed (x untouched). */
int num_ls_lu_correct(num_ls *c, double *x, double *est, double *first);
/* Chains this small whose rates span more than SAN_STIFF_SPAN are solved
 * by GTH elimination (gth.c); larger ones refuse iterative methods. */
#define SAN_GTH_MAX_N  2000
#define SAN_STIFF_SPAN 1e8
int num_ls_gth(num_ls *c, double *pi);
/* GTH on a dense chain: a[i*n+j] the rate i -> j (the diagonal is not
 * read; a is overwritten), the stationary vector into pi.  0, or the
 * state k > 0 that cannot reach the states before it (reducible). */
int num_gth_dense(double *a, int64_t n, double *pi);
int num_ls_gs(num_ls *c, double *pi);
/* Multilevel aggregation cycles (ml.c). */
int num_ls_ml(num_ls *c, double *pi);
/* The same cycles over a workspace kept across solves of chains of one
 * pattern (c->qt the same matrix, its values changed: the coarse chains
 * of kron/multilevel.c): its vectors and levels are allocated in the
 * first solves and reused, the aggregates built in the workspace's
 * first cycles and then kept.  NULL out of memory. */
typedef struct num_ml num_ml;
num_ml *num_ml_new(void);
int num_ls_ml_kept(num_ls *c, double *pi, num_ml *m);
void num_ml_free(num_ml *m);
/* Gauss-Seidel sweeps on x (alternating directions, normalized after
 * each): a rough picture of pi for choosing a fixed state. */
void num_ls_gs_sweeps(const san_csr *qt, double *x, int sweeps);
/* Both storages (only c->op): */
int num_ls_power(num_ls *c, double *pi);
int num_ls_jacobi(num_ls *c, double *pi);
int num_ls_gmres(num_ls *c, double *pi);
int num_ls_bicgstab(num_ls *c, double *pi);
/* Iterative aggregation-disaggregation (verify.c): the refinement of
 * num_ls_verify from pi. */
int num_ls_iad(num_ls *c, double *pi);

/* ---- verify.c: the evidence behind "converged" ---- */
/* The balance of a state relative to its own flows: |y| against its
 * inflow plus outflow y + 2 x d (y = (xQ)_j, x its probability, d =
 * -q_jj), the probabilities below the floor fl held to an absolute
 * accuracy; a state with d = 0 and y = 0 (outside the chain) is in
 * balance.  verify.c's test, the multilevel recombination's measure. */
static inline double num_state_balance(double y, double x, double d, double fl)
{
    double out = x * d, den = y + 2 * out + d * fl;
    return den > 0 ? fabs(y) / den : (y != 0 ? HUGE_VAL : 0);
}
/* The relative change of a probability from a to b (the vector summed
 * to s), 0 when both are below the floor: what a sweep moves, the
 * change term of the convergence test (verify.c's sweeps, PETSc's
 * Jacobi step in solver/petsc/dsolve.c). */
static inline double num_rel_change(double a, double b, double s)
{
    double m = fmax(a, b);
    return m > SAN_PROB_FLOOR * s ? fabs(b - a) / m : 0;
}
/* The balance residual of x (t: scratch of n, gets x Q). */
double num_ls_balance(num_ls *c, const double *x, double *t);
/* Refines x by aggregation cycles (smoothing sweeps, then aggregation
 * corrections over c->parts) until the balance and aggregation tests
 * pass, at most max_cycles cycles (0: up to --max-iter).  x is
 * normalized.  0 verified, 1 not (info->msg says what failed and what
 * to try), -1 failure. */
int num_ls_verify(num_ls *c, double *x, long max_cycles);
/* A kernel stopped NOT CONVERGED with x, its best vector (summed to
 * 1): unless the refinement has measured one, info->error_est gets x's
 * own estimate, the larger of its balance residual and its partitions'
 * aggregation errors (the tests a converged answer passes, measured
 * without changing x), so that a refusal says how far it got.  Nothing
 * past the time limit or after an interrupt. */
void num_ls_estimate_returned(num_ls *c, const double *x);
/* auto's Krylov kernel asks whether its iterate x (any scale, roundoff
 * negatives allowed) already meets the contract: one refinement cycle on
 * a copy y (t: scratch of n), judged as refine judges its cycles, when
 * x's balance predicts that it may pass.  0: it holds, y (summed to 1)
 * is the answer, info holds its balance and estimates and c->verified
 * is set; 2: the cycle ran and did not pass: y is the kernel's answer,
 * which the refinement takes on from that cycle (c->probe_change); 1:
 * not yet (or x is no distribution, or the clock ran out), *err the
 * estimate predicted (HUGE_VAL none), info as it was; -1: no memory for
 * it.  The cycle is counted in c->probes and its products in the
 * operator's count. */
int num_ls_probe(num_ls *c, const double *x, double *y, double *t, double *err);

/* SAN_TEST_ORACLE (tests and audits only): says on stderr the first
 * iteration it whose iterate x (any scale) meets the contract, as
 * num_ls_probe would find it without its screen; changes nothing.
 * The kernels call num_ls_oracle (stop.c), which calls c->oracle. */
void num_ls_oracle_judge(num_ls *c, const double *x, long it);
void num_ls_oracle(num_ls *c, const double *x, long it);

/* ---- aggregate.c ---- */
/* One aggregation step of x over p: *delta gets the relative error of
 * x's block masses against the coarse chain's answer; apply scales the
 * blocks to that answer.  0; 1 when the coarse chain is reducible under
 * x (nothing measured, x unchanged); -1 out of memory. */
int num_agg_step(num_ls *c, const num_part *p, double *x, int apply, double *delta);
void num_agg_free(num_agg_ws *w);
/* What an aggregation over p costs, in products: 1 when the operator
 * has rows or computes the flows in one pass (op->flows), else one per
 * block. */
int num_agg_cost(const num_op *op, const num_part *p);
/* The coarse chain of B blocks from the flows F (B x B, row-major: F[S][T]
 * the flow from S to T, overwritten) and the block masses b: C[S][T] =
 * F[S][T] / b[S] over the blocks with mass (map: coarse state of each,
 * -1 empty; C: nb x nb scratch), solved by GTH into z (by block, summing
 * to 1); b normalized.  0, or 1 when fewer than two blocks have mass or
 * the coarse chain is not irreducible.  The distributed check sums F and
 * b over the ranks first (solver/petsc/dagg.c). */
int num_coarse_solve(int B, double *F, double *b, double *z, double *C, int *map);
/* max_S |z_S - b_S| / (max(z_S, b_S) + SAN_PROB_FLOOR): the error of the
 * block masses b against the coarse chain's answer z. */
double num_coarse_error(int B, const double *b, const double *z, const int *map);

/* ---- the common driver (linsolve.c) ---- */
/* san_ctmc_solve with the partitions of the aggregation given (NULL:
 * those of qt alone, num_parts_add_csr); the code of the driver (0, 1,
 * -1: num_ls_status turns it into a status). */
int num_ctmc_solve_parts(const san_csr *qt, double *pi, const san_solve_opts *o,
                         san_solve_info *info, const num_parts *parts);
/* The partitions qt alone gives: its fast components, the whole chain
 * when small; pruned.  0 or -1. */
int num_parts_add_csr(num_parts *P, const san_csr *qt, double budget);
/* The status of a driver's code (0 converged, 1 stopped with a vector,
 * -1 failed) with what its kernels recorded in info; into info->status
 * too. */
san_status num_ls_status(int st, san_solve_info *info);
/* Options filled by another library's layout (struct_size, as
 * san_solve_opts_default sets it): -1 with info cleared but its status
 * SAN_E_USAGE and the message (no LU correction made); 0 when they are
 * this library's or NULL.  The public
 * entries (an_solve, kron_solve, san_ctmc_solve) ask first. */
int num_solve_opts_foreign(const san_solve_opts *o, san_solve_info *info);
/* Runs a kernel and makes its answer a promise (verify.c): a few
 * refinement cycles for the methods a user names (refining = 0), as
 * many as needed, with fallbacks, for auto, direct and iad.  The same
 * for both storages.  Returns as san_ctmc_solve. */
int num_ls_checked(num_ls *c, double *pi, san_ls_kernel k, int refining);

#endif
