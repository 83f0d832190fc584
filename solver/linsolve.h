/*
 * linsolve.h - what the kernels of pi Q = 0 share (internal to libsan).
 *
 * The dispatcher (linsolve.c) validates the generator, measures its scale,
 * runs one kernel and then checks and normalizes whatever the kernel
 * returns.  The kernels (direct.c, gth.c, stationary.c, krylov.c) only
 * iterate: they receive a san_ls context holding the operator (op.h; the
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

#include <stdint.h>
#include "san.h"
#include "op.h"

/* OpenMP pragmas that vanish cleanly (no -Wunknown-pragmas) without it. */
#ifdef _OPENMP
#define SAN_OMP(x) _Pragma(#x)
#else
#define SAN_OMP(x)
#endif

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
} san_ls_stop;

/* GMRES(m) without --restart. */
#define SAN_LS_DEFAULT_RESTART 30

/* One solve in progress. */
typedef struct {
    san_op *op;                 /* y = x Q: what power, Jacobi and the
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
} san_ls;

/* The best vector seen so far (for the "stopped early" answer).  When
 * its buffer cannot be allocated, x stays NULL and the last iterate is
 * returned instead: losing that nicety is better than failing. */
typedef struct {
    double *x;
    double res;                 /* its residual (op.h); HUGE_VAL none */
    int64_t n;
} san_ls_best;

/* ---- linsolve.c: services for the kernels ---- */
double san_ls_now(void);
/* Looks at the clock and the interrupt flag, prints progress when asked;
 * res is the latest residual known (negative: none yet). */
san_ls_stop san_ls_poll(san_ls *c, long iter, double res);
/* Ends an open progress line. */
void san_ls_progress_end(san_ls *c);
/* Writes the "not converged / time limit / interrupted" message. */
void san_ls_stop_msg(san_ls *c, san_ls_stop why, long iter, double best,
                     const char *hint);
double san_ls_sum(const double *x, int64_t n);
void san_ls_scale(double *x, int64_t n, double a);
/* The state whose balance equation is replaced by "x_k = 1" in the
 * nonsingular formulations: the largest |q_kk| * guess_k (guess NULL:
 * the largest |q_kk|), i.e. the equation carrying the largest flow. */
int64_t san_ls_pick_fixed(const san_csr *qt, const double *guess);
/* Position of the diagonal of row j, or -1. */
int64_t san_ls_diag_pos(const san_csr *a, int64_t j);

void san_ls_best_init(san_ls_best *b, int64_t n);
/* Keeps a copy of x when res beats the best so far. */
void san_ls_best_offer(san_ls_best *b, const double *x, double res);
/* Puts the best vector into x unless x (residual res, NaN counting as
 * the worst) is at least as good; returns the residual of what x now
 * holds. */
double san_ls_best_restore(san_ls_best *b, double *x, double res);
void san_ls_best_free(san_ls_best *b);

/* ---- the final vector ---- */
/* The final vector of any method (sparse or tensor path): NaN or a
 * non-positive sum is a failure; it is normalized and roundoff negatives
 * clamped, the most negative entry kept for the verdict, which is given
 * once the caller has recomputed info->residual from the vector. */
typedef struct {
    double mn, mx;          /* most negative and largest entry, normalized */
    int64_t imn;            /* where the most negative one was */
} san_ls_neg;
int san_ls_normalize(double *pi, int64_t n, san_solve_info *info, san_ls_neg *neg);
int san_ls_verdict(int st, san_solve_info *info, double tol, const san_ls_neg *neg);

/* ---- the kernels ---- */
/* Sparse path only (they need c->qt): */
/* maxmem > 0: give up (return 2) when UMFPACK estimates more memory than
 * maxmem bytes or more than maxflops flops; 0: no limit. */
int san_ls_direct(san_ls *c, double *pi, double maxmem, double maxflops);
/* Chains this small whose rates span more than SAN_STIFF_SPAN are solved
 * by GTH elimination (gth.c); larger ones refuse iterative methods. */
#define SAN_GTH_MAX_N  2000
#define SAN_STIFF_SPAN 1e8
int san_ls_gth(san_ls *c, double *pi);
int san_ls_gs(san_ls *c, double *pi);
/* Both storages (only c->op): */
int san_ls_power(san_ls *c, double *pi);
int san_ls_jacobi(san_ls *c, double *pi);
int san_ls_gmres(san_ls *c, double *pi);
int san_ls_bicgstab(san_ls *c, double *pi);

#endif
