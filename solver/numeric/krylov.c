/*
 * krylov.c - GMRES(m) and BiCGSTAB for pi Q = 0, right-preconditioned by
 * ILU(0), Jacobi or nothing, over either storage of the generator: they
 * see it only through products x Q (op.h), and ILU(0) through the rows
 * of the transposed generator, which only the sparse path has (on the
 * tensor path --precond ilu0, the default, means Jacobi).
 *
 * The singular system is made nonsingular the same way as in direct.c:
 * for a chosen state k, the balance equation k is replaced by "x_k = 1".
 * With signs flipped so that the diagonal is positive, the system is
 *
 *     A x = b,   A = -Q^T with the off-diagonals of row k dropped,
 *                b = -q_kk e_k,
 *
 * so that A keeps the diagonal of -Q^T everywhere.  A is a nonsingular
 * M-matrix when the chain is irreducible (block triangular after moving
 * k first: the scalar -q_kk, and -Q^T without row and column k), hence
 * ILU(0) exists with positive pivots (in exact arithmetic: see
 * PIVOT_FLOOR in precond.c), and x = pi / pi_k > 0.  On the tensor path's product
 * space, states outside the chain have no transitions and q_jj = 0:
 * their entries stay zero throughout, and the Jacobi preconditioner
 * leaves them alone.
 *
 * Right preconditioning (A M^-1 u = b, x = M^-1 u) keeps the residual
 * the methods minimize or track equal to b - A x.  For j != k that is
 * (x Q)_j itself, so the inner tests on ||b - A x||_2 are cheap stand-ins
 * for the true criterion (num_resid_value <= tol), which is verified on
 * the actual x before convergence is declared (and the inner target
 * tightened if the stand-in was too optimistic).
 *
 * The methods multiply by -A, which is the product x Q itself with entry
 * k replaced (kop_negapply), not by A: negating would cost a pass over
 * the vector, and a parallel region, per product.  A correction d with
 * (-A) d = r is then subtracted from x (x - d moves A x towards b), and
 * everything else (Hessenberg entries, BiCGSTAB's alpha and omega) only
 * changes sign, exactly, in floating point as well.
 *
 * The dense work on the Krylov vectors goes to CBLAS: classical
 * Gram-Schmidt is a pair of dgemv over the basis, repeated when needed
 * (DGKS), as accurate as modified Gram-Schmidt in practice and far better
 * at using memory bandwidth and threads.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include "solver/numeric/linsolve.h"
#include "solver/numeric/precond.h"

/* Inner (stand-in) target tightened by this factor after a false alarm. */
#define TARGET_TIGHTEN 0.1
/* A new Arnoldi vector this much smaller than A z means the Krylov space
 * is invariant: the solution of the reduced system is exact in it. */
#define HAPPY_BREAKDOWN 1e-14
/* Gram-Schmidt is repeated when it leaves less than this of the norm. */
#define REORTH_DGKS 0.7071
/* The fixed state moves when another carries this many times its flow
 * x_j |q_jj|: with a tiny pi_k, x = pi / pi_k spans a huge range and
 * restarted GMRES was seen to stagnate (M/M/1/200, rho 1.25, k = 1);
 * at most MAX_REFIX times per solve, as each move refactorizes ILU(0). */
#define REFIX_RATIO 100.0
#define MAX_REFIX 16
/* A move by magnitude (kop_refix_by) keeps x a distribution up to this
 * share of the mass in entries of the wrong sign (the checks' own bound,
 * linsolve.c NEG_MASS_MAX). */
#define REFIX_NEG_MASS 1e-3
/* A Krylov method whose best true residual has not halved in this many
 * iterations has stagnated (its roundoff floor, or restarted GMRES on a
 * chain it cannot solve): it stops with its best vector instead of
 * running to --max-iter. */
#define STAGNATION_ITERS 500

/* A named BiCGSTAB's plateau below PLATEAU_LEVEL (normwise residual)
 * that lasts PLATEAU_ITERS iterations goes to the checks at once, not
 * after STAGNATION_ITERS: what such a vector lacks is mostly a slow mode
 * that the normwise residual cannot see and the checks' aggregation
 * corrects.  ncd17.san over the descriptor: BiCGSTAB sits at 1.0e-8
 * from iteration 50 and was stopped at 550 (1,170 products), where the
 * checks answer; the plateaus above it are the descriptor's Jacobi
 * BiCGSTAB before a breakthrough (M/M/1/300: 5e-3 for 200 iterations,
 * uf.san 0.59 for 250, tss6 6e-6..3.5e-3), which must not be cut.  The
 * checks' retry of the kernel, after they refused such a vector, runs
 * with the full window (c->plateau_handoff off): with a 30-iteration
 * window on the retries too, cluster64.san over the descriptor was
 * refused (its 1.2e-6 plateau at iteration 310-470 breaks through). */
#define PLATEAU_LEVEL 1e-5
#define PLATEAU_ITERS (3 * SAN_LS_CHECK_EVERY)

/* GMRES(m) restarted with only the Jacobi preconditioner (the
 * descriptor's: it has no rows for ILU(0)) stalls on chains whose
 * answer needs mass carried along them: a restarted basis reaches m
 * states from where the residual is, and the next cycle starts over.
 * On M/M/1/300 (lambda 1, mu 1.01) the true residual stays at 4.9e-3
 * for GMRES(30), GMRES(60) and GMRES(100), and GMRES(150) is at 8.8e-5
 * after 450 iterations (an independent GMRES gives the same residuals
 * to three digits, and the sparse storage with --precond jacobi the
 * same stall: not a fault of the restart); a basis of 301 converges in
 * one cycle.  So a named GMRES without --restart widens its basis
 * (doubling, the Arnoldi process kept) when a cycle did not divide the
 * true residual by 1 / GROW_IF, up to GMRES_MAX_BASIS vectors, the
 * chain's size, and GMRES_BASIS_SHARE of the solve's memory; past
 * that it restarts, and STALL_CYCLES restarts in a row that do not
 * halve the best residual stop it (its best vector goes to the checks,
 * which keep the verdict).  The product count is what GMRES without
 * restarts would do; the orthogonalization grows as m^2 n. */
#define GROW_IF 0.5
#define GMRES_MAX_BASIS 512
#define GMRES_BASIS_SHARE 0.25
#define STALL_CYCLES 3

/* Below c->settle (auto: the accuracy contract's tol) the residual is
 * already good enough for the refinement to finish in a cycle; what is
 * left to gain is at the roundoff floor, where BiCGSTAB's true residual
 * bounces between 1e-14 and 4e-13 (rs 20/9, 431,910 states, tol 1e-12:
 * floor reached at iteration 26, then 110 iterations without halving
 * before the 100-iteration window stopped it).  So there the window is
 * SETTLE_ITERS: one residual check without halving. */
#define SETTLE_ITERS (2 * SAN_LS_CHECK_EVERY)

/* FLOOR_ALARM: false alarms (the recursive residual meets the inner
 * target, the true residual does not) below c->settle say the same
 * sooner: the two residuals part at the recurrence's roundoff floor.
 * The second such alarm that does not halve the first's true residual
 * stops auto's BiCGSTAB with its best vector.  Not the first alone: on
 * rs 20 as written with the fixed state chosen well from the start, the
 * first came at 1.3e-13, a vector whose refinement then sat at the
 * aggregation's roundoff floor (changes of 6e-13, 13 cycles), where the
 * next alarms reach 3e-14 and one cycle answers.  Measured on rs 20 as
 * written (616,666 states, tol 1e-12, auto's kernel target 1e-15):
 * sparse, alarms at iteration 22 (3.4e-14) and 27 (1.4e-13), where the
 * settle window went on to 48 (true residuals 6e-14 to 3e-13); over
 * the descriptor, alarms at 42 (3.3e-14) and 46 (3.3e-14) where the
 * window went on to 64.  The refinement answers from the best vector in
 * one cycle on both, as before (the same vector: the best was the
 * first alarm's). */

/* auto's BiCGSTAB whose residual has not halved in this many
 * iterations (three residual checks) and that has left its best vector
 * for good - its iterate is not a distribution (wandering()), or its
 * residual has stayed above DRIFT times the best for as long - has
 * lost its way: it stops there, not after c->stagnation.  Over the
 * descriptor (Jacobi preconditioner) on the TSS variants, BiCGSTAB
 * reaches a residual of 3.5e-3 by iteration 10 or 20 and then wanders
 * (tss6: iterates whose negative entries carry 4 to 32 times their sum;
 * tss9: residuals of 3e-2 to 8e-2), until the 100-iteration window
 * stops it at 110; the aggregation that takes over needs as many cycles
 * from that vector as from the uniform one (tss6: 41, tss9: 32).  The
 * plateau of ms async 8/40, which the window must not cut (BiCGSTAB
 * breaks through at iteration 110 and converges), stays within 2.1
 * times its best residual, with iterates that are distributions up to
 * their sign (minority sign 0 to 0.14 of the sum). */
#define WANDER_ITERS (3 * SAN_LS_CHECK_EVERY)
#define DRIFT 4.0
/* The minority sign's mass over the net sum above which an iterate is
 * not a distribution (wandering). */
#define WANDER_SPREAD 1.0

/* auto's BiCGSTAB asks the checks themselves whether its iterate meets
 * the accuracy contract (num_ls_probe: one refinement cycle on a copy,
 * refine's verdict) and stops as soon as it does; its tightened target
 * (c->tol, linsolve.c AUTO_KERNEL_TIGHTEN) is only a cap.  A refused
 * probe that measured an error estimate err at residual R sets the next
 * at R times PROBE_MARGIN tol / err (the estimate taken as proportional
 * to the residual), between PROBE_STEP_MIN and PROBE_STEP_MAX times R.
 * The first is at PROBE_MARGIN tol / 9: a first cycle's change estimate
 * is 9 times the change it made (a contraction of 0.9 assumed,
 * verify.c), and that change is about the normwise residual (rs 20/9,
 * 431,910 states: residual 9e-13, change 8.4e-13; 8.2e-14, 1.1e-13;
 * 1.2e-14, 1.7e-14).  A probe whose cycle ran (x's balance let it:
 * num_ls_probe) but did not pass ends the kernel all the same: the
 * refinement goes on from that cycle, whose change gives the next its
 * contraction (rs 16/7 at tol 1e-12: the cycle at residual 2.8e-15
 * changed a probability by 1.8e-13, 9 times that refused it, and the
 * kernel went on to its floor for the refinement's first cycle to be
 * refused the same way; from the probe's cycle the next one answers).  A probe costs a cycle: on the sparse path
 * two products and a pass over the rows per partition and per sweep
 * (rs 20/9: about 30 passes, 8 BiCGSTAB iterations' worth). */
#define PROBE_MARGIN 0.5
#define PROBE_FIRST (PROBE_MARGIN / 9)
#define PROBE_STEP_MIN 1e-3
#define PROBE_STEP_MAX 0.5

/* ... but the estimate is not proportional to the residual: what it
 * reads is the change of the states above the floor, which the
 * normwise residual (the largest flows) does not see.  On rs 20/9
 * (431,910 states, sparse, tol 1e-8) the screen at iteration 11
 * (residual 1.09e-10) predicted 1.5e-7 and set the next probe at
 * 3.7e-12; at iteration 12, residual 1.10e-10, one cycle already
 * verifies (estimate 4.4e-9; SAN_TEST_ORACLE), yet the residual never
 * got to 3.7e-12 and auto ran to iteration 20 and a refinement cycle:
 * 22 iterations for the 13 the contract needed.  So once a probe has
 * been due and the screen's prediction was within PROBE_NEAR tol, the
 * screen, one product, also runs every PROBE_GAP iterations, the gap
 * doubling (up to PROBE_GAP_MAX) while the prediction does not halve:
 * now 14 iterations there (13 and the probe that verifies it), 36
 * products for 55.  Not farther: on tss7 (220,887 states, sparse, tol
 * 1e-8) the first screen predicted 1.9e-5, and screens every few
 * iterations from there cost 10 products (117 to 127) for nothing. */
#define PROBE_GAP 2
#define PROBE_GAP_MAX 8
#define PROBE_NEAR 100

/* Asks the checks about x at true residual R (y, t: scratch of n).  0:
 * y is the answer, verified or for the refinement to go on with; 1: not
 * yet, *at is the residual of the next probe (0: none, the checks could
 * not run), *err what the screen or the cycle predicted (HUGE_VAL
 * none). */
static int probe_contract(num_ls *c, const double *x, double *y, double *t, double R,
                          double *at, double *err)
{
    int pr = num_ls_probe(c, x, y, t, err);
    if (pr == 0 || pr == 2)
        return 0;
    double f = *err > 0 && isfinite(*err) ? PROBE_MARGIN * c->o->tol / *err : PROBE_STEP_MIN;
    f = f < PROBE_STEP_MIN ? PROBE_STEP_MIN : f > PROBE_STEP_MAX ? PROBE_STEP_MAX : f;
    *at = pr < 0 ? 0 : R * f;
    return 1;
}

/* When auto's BiCGSTAB screens next (PROBE_GAP). */
typedef struct {
    int zone;                   /* a probe has been due, and was near */
    long last;                  /* iteration of the last screen */
    long gap;
    double pred;                /* the last screen's prediction */
} probe_sched;

static int screen_due(const probe_sched *p, long it)
{
    return p->zone && it - p->last >= p->gap;
}

static void screen_done(probe_sched *p, long it, double pred, double at, double tol)
{
    p->zone = at > 0 && pred <= PROBE_NEAR * tol;   /* at 0: the checks cannot run */
    p->gap = pred >= 0.5 * p->pred ? (p->gap * 2 < PROBE_GAP_MAX ? p->gap * 2 : PROBE_GAP_MAX)
                                   : PROBE_GAP;
    p->pred = pred;
    p->last = it;
}

/* Does x carry more mass of its minority sign than WANDER_SPREAD times
 * its net sum?  (x = pi / pi_k may be of either overall sign.) */
/* The masses of x's positive and negative entries (*neg >= 0). */
static void sign_masses(const double *x, int64_t n, int64_t par_min, double *pos,
                        double *neg)
{
    double p = 0, m = 0;
    SAN_OMP(omp parallel for if(n >= par_min) schedule(static) reduction(+:p, m))
    for (int64_t j = 0; j < n; j++) {
        if (x[j] > 0)
            p += x[j];
        else
            m -= x[j];
    }
    *pos = p;
    *neg = m;
}

static int wandering(const double *x, int64_t n, int64_t par_min)
{
    double pos, neg;
    sign_masses(x, n, par_min, &pos, &neg);
    return !(fmin(pos, neg) <= WANDER_SPREAD * fabs(pos - neg));
}

/* SAN_DEBUG_KRYLOV: the true residual at every check, on stderr. */
static void debug_krylov(const char *m, long it, double R)
{
    /* read at each check, not cached in a static: threads solve at once
     * (a getenv per check is nothing beside a product) */
    if (getenv("SAN_DEBUG_KRYLOV"))
        fprintf(stderr, "%s it %ld residual %.3e\n", m, it, R);
}

static long stagnation(const num_ls *c, double R)
{
    if (c->settle > 0 && R <= c->settle)
        return SETTLE_ITERS;
    return c->stagnation > 0 ? c->stagnation : STAGNATION_ITERS;
}

/* BiCGSTAB's window: a named one's low plateau is handed over early
 * (PLATEAU_LEVEL; GMRES has its own, per restart cycle). */
static long bicg_stagnation(const num_ls *c, double R)
{
    if (c->stagnation <= 0 && c->plateau_handoff && R <= PLATEAU_LEVEL &&
        !(c->settle > 0 && R <= c->settle))
        return PLATEAU_ITERS;
    return stagnation(c, R);
}

/* The operator A, its right-hand side, and the preconditioner. */
typedef struct {
    num_op *op;                 /* x Q */
    const san_csr *qt;          /* its rows, for ILU(0) */
    int64_t n;
    int64_t k;                  /* the state fixed to x_k = 1 */
    double dk;                  /* -q_kk > 0: A_kk and b_k */
    int refixes;                /* moves of k so far */
    num_pc pc;                  /* M, and 1 / A_jj for choosing k */
} kop;

static void kop_free(kop *op)
{
    num_pc_free(&op->pc);
}

/* ---- operator and residual ---- */

/* y = -A x: x Q with entry k replaced by q_kk x_k. */
static void kop_negapply(const kop *op, const double *restrict x,
                         double *restrict y)
{
    num_op_apply(op->op, x, y);
    y[op->k] = -op->dk * x[op->k];
}

/* r = b - A x, also yielding the true residual of x (*R) and the stats
 * of x (*xs); returns ||r||_2. */
static double kop_resid(const kop *op, const double *restrict x,
                        double *restrict r, double *R, num_op_stats *xs)
{
    const int64_t n = op->n, k = op->k;
    double m = 0, s = 0, xm = -HUGE_VAL, r2 = 0;
    num_op_apply(op->op, x, r);
    SAN_OMP(omp parallel for if(n >= op->op->par_min) schedule(static) reduction(max:m, xm) reduction(+:s, r2))
    for (int64_t j = 0; j < n; j++) {
        double t = r[j];
        r2 += j == k ? 0 : t * t;
        s += x[j];
        xm = x[j] > xm ? x[j] : xm;
        t = fabs(t);
        m = t > m ? t : m;
    }
    r[k] = op->dk * (1 - x[k]);
    r2 += r[k] * r[k];
    xs->xsum = s;
    xs->xmax = xm;
    *R = num_resid_value(m, op->op->maxd, xs);
    return sqrt(r2);
}

/* The flow x_j |q_jj| through state j: the fixed state carries the
 * largest. */
static inline double flow(const kop *op, const double *x, int64_t j)
{
    return op->pc.dinv[j] > 0 ? x[j] / op->pc.dinv[j] : 0;
}

static int64_t largest_flow_by(const kop *op, const double *x, int mag)
{
    int64_t jb = 0;
    double wb = -HUGE_VAL;
    for (int64_t j = 0; j < op->n; j++) {
        double w = mag ? fabs(flow(op, x, j)) : flow(op, x, j);
        if (w > wb) {
            wb = w;
            jb = j;
        }
    }
    return jb;
}

static int64_t largest_flow(const kop *op, const double *x)
{
    return largest_flow_by(op, x, 0);
}

/* Does ILU(0) fit in the solve's memory (num_ls_budget) beside the
 * method's vectors?  Its factors take 8 bytes a nonzero of Q and 4 a
 * state: as much as Q's values again, which a generator sized to fill
 * --max-memory does not leave. */
static int ilu0_fits(const num_ls *c, const san_csr *qt)
{
    const double n = (double)qt->n, nnz = (double)qt->rowptr[qt->n];
    const double vectors = c->info->method == SAN_M_GMRES
                               ? (c->o->restart > 0 ? c->o->restart : SAN_LS_DEFAULT_RESTART) + 5
                               : 9;
    return 8.0 * nnz + 4.0 * n + 8.0 * vectors * n <= num_ls_budget(c->o);
}

/* Chooses k from the guess, builds the preconditioner, and scales the
 * guess so that x_k = 1 (else the first residual is all in row k). */
static int kop_init(num_ls *c, kop *op, double *x)
{
    memset(op, 0, sizeof *op);
    op->op = c->op;
    op->qt = c->op->rows;
    op->n = c->op->n;
    san_precond kind = c->o->precond;
    if (kind == SAN_PC_ILU0 && !op->qt)
        kind = SAN_PC_JACOBI;
    if (kind == SAN_PC_ILU0 && !ilu0_fits(c, op->qt)) {
        kind = SAN_PC_JACOBI;
        snprintf(c->info->note, sizeof c->info->note, "ILU(0) does not fit in the memory "
                 "left (--max-memory): Jacobi preconditioner");
    }
    /* k is chosen from the diagonal, which the preconditioner holds:
     * built without its factorization (k = -1), which the refix to k
     * makes.  (Built for row 0 and refixed, ILU(0) was factorized twice:
     * 0.3 s of CPU each on rs 20 as written, 616,666 states, 11.1 M
     * nonzeros.) */
    const double deadline = c->o->time_limit > 0 ? c->t0 + c->o->time_limit : INFINITY;
    if (num_pc_build(&op->pc, op->op, op->qt, kind, -1, deadline, c->info->msg,
                     sizeof c->info->msg) < 0) {
        c->info->status = SAN_E_NOMEM;
        return -1;
    }
    op->k = largest_flow(op, x);
    op->dk = -num_op_qjj(op->op, op->k);
    if (x[op->k] > 0)
        num_op_scale(op->op, x, 1.0 / x[op->k]);
    num_pc_refix(&op->pc, op->k);
    return 0;
}

/* Would x / s be a distribution up to roundoff: its entries of the
 * other sign carry at most REFIX_NEG_MASS of the mass? */
static int signed_like(const double *x, int64_t n, int64_t par_min, double s)
{
    double pos, neg;
    sign_masses(x, n, par_min, &pos, &neg);
    const double with = s > 0 ? pos : neg, against = s > 0 ? neg : pos;
    return with > 0 && against <= REFIX_NEG_MASS * with;
}

/* Moves the fixed state to the one with the largest flow x_j |q_jj| when
 * that dwarfs the current one; returns 1 when it moved (x is rescaled to
 * x_k = 1 and the caller must recompute its residual), else 0.  With mag,
 * by the flows' magnitude: x solves the reduced system (GMRES's cycle
 * ended early: the stand-in met its target, or the space was invariant)
 * yet the true residual did not even halve, so k sits where the answer is tiny
 * and the reduced system is too ill-conditioned for x to carry the
 * answer's sign: its largest entries still say where the mass is.
 * M/M/1/2000 at rho 1.05 (issue 27): from the uniform start k = 1, the
 * answer wants x_K = 1.05^1999 = 1e42; ILU(0) (the exact LU there) gave
 * x_K = -8e13, so the positive flows never dwarfed x_1's and GMRES(30)
 * ran 3 cycles at the start's residual 2.6e-2 and stalled.  Moved to
 * k = K by the magnitude, it converges in 7 iterations.  Not after a
 * full cycle: there x is a partial answer whose negative entries are
 * not a direction (that M/M/1/2000 beside a two-state automaton, 4,002
 * states: moved at iteration 902, GMRES ended at an iterate with
 * entries of -6e-3 for a largest of 1.05, refused as not a distribution,
 * where staying put converges at 907 and the checks answer); nor when
 * x scaled to x_k = 1 would not be a distribution up to roundoff (the
 * M/M/1/2000 over the descriptor at tol 1e-4: a short cycle at
 * iteration 338 left x_K of the wrong sign with negative entries, and
 * the move gave a vector summing to 21 of them, refused, where staying
 * put converges at 607 and the checks answer; at iteration 7 on the
 * sparse storage the rest is -1e-14 of x_K). */
static int kop_refix_by(kop *op, double *x, int mag)
{
    if (op->refixes >= MAX_REFIX)
        return 0;
    int64_t jb = largest_flow_by(op, x, mag);
    double wb = flow(op, x, jb), wk = flow(op, x, op->k);
    if (mag)
        wb = fabs(wb);
    if (jb == op->k || !(wb > 0) || (wk > 0 && wb <= REFIX_RATIO * wk))
        return 0;
    if (mag && !signed_like(x, op->n, op->op->par_min, x[jb]))
        return 0;
    op->k = jb;
    op->dk = 1.0 / op->pc.dinv[jb];
    op->refixes++;
    num_op_scale(op->op, x, 1.0 / x[jb]);
    num_pc_refix(&op->pc, jb);
    return 1;
}

static int kop_refix(kop *op, double *x)
{
    return kop_refix_by(op, x, 0);
}

/* OpenBLAS built on pthreads keeps its own pool of spinning threads next
 * to OpenMP's: alternating BLAS calls and OpenMP loops, the two pools
 * fight for the cores (several times slower on 2 cores, 9e4 states).  The
 * vector kernels are memory-bound anyway, so on the sparse path BLAS runs
 * on one thread during a Krylov solve and its setting is restored after.
 * The tensor path leaves BLAS its threads and keeps its own OpenMP loops
 * off short vectors instead (op->blas_one_thread, op->par_min:
 * solver/kron/solve.c). */
static int blas_threads_begin(const num_op *op)
{
#if defined(_OPENMP) && defined(OPENBLAS_VERSION)
    if (!op->blas_one_thread)
        return 0;
    int nt = openblas_get_num_threads();
    openblas_set_num_threads(1);
    return nt;
#else
    (void)op;
    return 0;
#endif
}

static void blas_threads_end(int nt)
{
#if defined(_OPENMP) && defined(OPENBLAS_VERSION)
    if (nt > 0)
        openblas_set_num_threads(nt);
#else
    (void)nt;
#endif
}

/* Out of memory: the method that needs the least (Gauss-Seidel, or the
 * power method where there are no rows). */
static int oom(num_ls *c, const char *what, double doubles)
{
    char b[32];
    snprintf(c->info->msg, sizeof c->info->msg, "out of memory for %s "
             "(%s); try --method %s", what,
             san_format_bytes(doubles * 8, b, sizeof b), c->op->rows ? "gs" : "power");
    c->info->status = SAN_E_NOMEM;
    return -1;
}

/* ------------------------------------------------------------------ */
/* GMRES(m)                                                             */
/* ------------------------------------------------------------------ */

typedef struct {
    int m;
    double *V;                  /* n x (m+1), column-major: the basis */
    double *H;                  /* (m+1) x m, column-major, rotated */
    double *cs, *sn, *g, *h2;   /* rotations, rhs, CGS2 scratch */
} gmres_ws;

static void gmres_ws_free(gmres_ws *w)
{
    free(w->V);
    free(w->H);
    free(w->cs);
    free(w->sn);
    free(w->g);
    free(w->h2);
}

static int gmres_ws_alloc(gmres_ws *w, int64_t n, int m)
{
    size_t m1 = (size_t)m + 1;
    memset(w, 0, sizeof *w);
    if ((double)m1 * (double)n * sizeof(double) > 0.5 * (double)SIZE_MAX)
        return -1;
    w->m = m;
    w->V = malloc(m1 * (size_t)n * sizeof *w->V);
    w->H = calloc(m1 * (size_t)m, sizeof *w->H);
    w->cs = calloc(m1, sizeof *w->cs);
    w->sn = calloc(m1, sizeof *w->sn);
    w->g = calloc(m1, sizeof *w->g);
    w->h2 = calloc(m1, sizeof *w->h2);
    if (!w->V || !w->H || !w->cs || !w->sn || !w->g || !w->h2) {
        gmres_ws_free(w);
        return -1;
    }
    return 0;
}

/* Widens the basis to m2 columns, keeping the Arnoldi process so far:
 * V's columns stay where they are (leading dimension n), H's move to
 * the new leading dimension m2 + 1.  0, or -1 (no memory: w unchanged). */
static int gmres_ws_grow(gmres_ws *w, int64_t n, int m2)
{
    const size_t m1 = (size_t)m2 + 1, old1 = (size_t)w->m + 1;
    if ((double)m1 * (double)n * sizeof(double) > 0.5 * (double)SIZE_MAX)
        return -1;
    double *H = calloc(m1 * (size_t)m2, sizeof *H);
    double *t[4] = { NULL, NULL, NULL, NULL };
    double **vec[4] = { &w->cs, &w->sn, &w->g, &w->h2 };
    int ok = H != NULL;
    for (int i = 0; i < 4 && ok; i++)
        ok = (t[i] = calloc(m1, sizeof *t[i])) != NULL;
    double *V = ok ? realloc(w->V, m1 * (size_t)n * sizeof *V) : NULL;
    if (!V) {
        free(H);
        for (int i = 0; i < 4; i++)
            free(t[i]);
        return -1;
    }
    w->V = V;
    for (int j = 0; j < w->m; j++)
        memcpy(H + (size_t)j * m1, w->H + (size_t)j * old1, old1 * sizeof *H);
    free(w->H);
    w->H = H;
    for (int i = 0; i < 4; i++) {
        memcpy(t[i], *vec[i], old1 * sizeof *t[i]);
        free(*vec[i]);
        *vec[i] = t[i];
    }
    w->m = m2;
    return 0;
}

/* Orthogonalizes w = V[:, j+1] (norm wn) against V[:, 0..j] into column
 * j of H by classical Gram-Schmidt, repeated once when the first pass
 * cancelled most of w (the DGKS test: then roundoff may have left it
 * not orthogonal); returns the norm of w before normalization.  Each
 * pass reads the basis twice, and on large chains these passes, not the
 * sparse product, are the cost of an iteration: hence no unconditional
 * second pass. */
static double arnoldi_orth(gmres_ws *ws, int64_t n, int j, double wn)
{
    double *V = ws->V, *w = V + (size_t)(j + 1) * n;
    double *h = ws->H + (size_t)j * (ws->m + 1), *h2 = ws->h2;
    double hn = wn;
    for (int pass = 0; pass < 2; pass++) {
        double *hh = pass == 0 ? h : h2;
        cblas_dgemv(CblasColMajor, CblasTrans, (int)n, j + 1, 1.0, V, (int)n,
                    w, 1, 0.0, hh, 1);
        cblas_dgemv(CblasColMajor, CblasNoTrans, (int)n, j + 1, -1.0, V,
                    (int)n, hh, 1, 1.0, w, 1);
        if (pass == 1)
            for (int i = 0; i <= j; i++)
                h[i] += h2[i];
        double before = hn;
        hn = num_vnrm2(n, w);
        if (hn > REORTH_DGKS * before)
            break;
    }
    h[j + 1] = hn;
    if (hn > 0)
        cblas_dscal((int)n, 1.0 / hn, w, 1);
    return hn;
}

/* Applies the old rotations to column j of H, makes a new one that zeroes
 * H[j+1][j], and rotates g; returns |g[j+1]|, the residual norm. */
static double givens_step(gmres_ws *ws, int j)
{
    double *h = ws->H + (size_t)j * (ws->m + 1), *cs = ws->cs, *sn = ws->sn;
    double *g = ws->g;
    for (int i = 0; i < j; i++) {
        double t = cs[i] * h[i] + sn[i] * h[i + 1];
        h[i + 1] = -sn[i] * h[i] + cs[i] * h[i + 1];
        h[i] = t;
    }
    double den = hypot(h[j], h[j + 1]);
    cs[j] = den > 0 ? h[j] / den : 1;
    sn[j] = den > 0 ? h[j + 1] / den : 0;
    h[j] = den;
    h[j + 1] = 0;
    g[j + 1] = -sn[j] * g[j];
    g[j] = cs[j] * g[j];
    return fabs(g[j + 1]);
}

/* x -= M^-1 V y, y solving the j x j triangle H y = g (y into g): the
 * basis spans -A M^-1 times itself. */
static void gmres_update(gmres_ws *ws, const kop *op, double *x,
                         double *z, int64_t n, int j)
{
    const int ld = ws->m + 1;
    double *g = ws->g;
    for (int i = j - 1; i >= 0; i--) {
        double t = g[i];
        for (int l = i + 1; l < j; l++)
            t -= ws->H[i + (size_t)l * ld] * g[l];
        /* A zero pivot means a direction that adds nothing: skip it. */
        g[i] = ws->H[i + (size_t)i * ld] != 0 ? t / ws->H[i + (size_t)i * ld]
                                               : 0;
    }
    cblas_dgemv(CblasColMajor, CblasNoTrans, (int)n, j, 1.0, ws->V, (int)n,
                g, 1, 0.0, z, 1);
    num_pc_apply(&op->pc, z);
    num_vaxpy(n, -1.0, z, x);
}

/* SAN_TEST_ORACLE (num_ls_oracle): the iterate of step j of the cycle,
 * formed on a copy (g is saved over gmres_update, which solves into
 * it; z is free between steps). */
static void gmres_oracle(num_ls *c, gmres_ws *ws, const kop *op, const double *x, double *z,
                         int j, long it)
{
    if (c->oracle_done || !c->oracle)
        return;
    const int64_t n = op->n;
    double *xt = malloc((size_t)n * sizeof *xt), *g = malloc(((size_t)j + 1) * sizeof *g);
    if (xt && g) {
        memcpy(g, ws->g, ((size_t)j + 1) * sizeof *g);
        memcpy(xt, x, (size_t)n * sizeof *xt);
        gmres_update(ws, op, xt, z, n, j);
        memcpy(ws->g, g, ((size_t)j + 1) * sizeof *g);
        num_ls_oracle(c, xt, it);
    }
    free(xt);
    free(g);
}

/* A named GMRES without --restart widens its basis instead of
 * restarting when a cycle did not halve the true residual. */
typedef struct {
    int cap;                    /* widest basis allowed */
    double *xt;                 /* the cycle's iterate, on trial */
    double *gs;                 /* g, saved over the trial (cap + 1) */
    double r0;                  /* true residual at the start of the cycle */
} gmres_grow;

/* One restart cycle from the residual already in V[:, 0] (norm beta): at
 * most m steps, fewer when the stand-in residual reaches target, the space
 * becomes invariant, or the run must stop.  With gr, a cycle that used
 * its m steps and left a true residual above GROW_IF times gr->r0 goes
 * on with a basis twice as wide (up to gr->cap): restarting would throw
 * away the directions that carry mass along the chain (below).  Updates
 * x and *it; scale is what divides a residual norm into a residual
 * (num_resid_scale). */
static int gmres_cycle(num_ls *c, gmres_ws *ws, const kop *op, double *x,
                       double *z, double beta, double target, double scale,
                       long *it, num_ls_stop *why, int *hit_target,
                       gmres_grow *gr)
{
    const int64_t n = op->n;
    int j = 0, broke = 0;
    double est = beta;
    cblas_dscal((int)n, 1.0 / beta, ws->V, 1);
    memset(ws->g, 0, (size_t)(ws->m + 1) * sizeof *ws->g);
    ws->g[0] = beta;
    *hit_target = 0;
    for (;;) {
        while (j < ws->m) {
            double *vj = ws->V + (size_t)j * n, *w = vj + n;
            memcpy(z, vj, (size_t)n * sizeof *z);
            num_pc_apply(&op->pc, z);
            kop_negapply(op, z, w);
            double wn = num_vnrm2(n, w);
            double hn = arnoldi_orth(ws, n, j, wn);
            est = givens_step(ws, j);
            j++;
            (*it)++;
            gmres_oracle(c, ws, op, x, z, j, *it);
            *why = num_ls_poll(c, *it, est / scale);
            if (est <= target)
                *hit_target = 1;
            broke = hn <= HAPPY_BREAKDOWN * wn;
            if (*hit_target || broke || *why)
                break;
        }
        if (!gr || j < ws->m || ws->m >= gr->cap)
            break;
        /* the iterate this cycle would give, and its true residual (one
         * product) */
        memcpy(gr->gs, ws->g, (size_t)(j + 1) * sizeof *gr->gs);
        memcpy(gr->xt, x, (size_t)n * sizeof *x);
        gmres_update(ws, op, gr->xt, z, n, j);
        double rt = num_op_residual(op->op, gr->xt, NULL);
        debug_krylov("gmres (trial)", *it, rt);
        if (rt <= GROW_IF * gr->r0 || !isfinite(rt) ||
            gmres_ws_grow(ws, n, ws->m * 2 < gr->cap ? ws->m * 2 : gr->cap) < 0) {
            memcpy(x, gr->xt, (size_t)n * sizeof *x);
            return j;
        }
        memcpy(ws->g, gr->gs, (size_t)(j + 1) * sizeof *gr->gs);
    }
    gmres_update(ws, op, x, z, n, j);
    return j;
}

static int gmres_solve(num_ls *c, double *pi)
{
    const int64_t n = c->op->n;
    const double tol = c->tol;
    int m = c->o->restart > 0 ? c->o->restart : SAN_LS_DEFAULT_RESTART;
    gmres_ws ws;
    kop op;
    num_ls_best best;
    num_op_stats xs;
    double *z = NULL, factor = 1, R, stag = HUGE_VAL;
    long stag_it = 0;
    num_ls_stop why = SAN_LS_GO;
    gmres_grow grow = { 0 }, *gr = NULL;
    double cyc_anchor = HUGE_VAL, cyc_r0 = HUGE_VAL;
    int cyc_stall = 0, short_cycle = 0;
    long it = 0;
    int st = -1, hit = 0;
    num_ls_stall stall;
    num_ls_stall_init(&stall);

    /* The basis goes to dgemv whole, with int lengths. */
    if (n > INT32_MAX) {
        snprintf(c->info->msg, sizeof c->info->msg, "GMRES is limited to 2^31 "
                 "states (its basis would not fit anyway); use --method bicgstab");
        return -1;
    }
    if (m > n)
        m = (int)n;
    if (gmres_ws_alloc(&ws, n, m) < 0)
        return oom(c, "the GMRES basis; a smaller --restart needs less",
                   (double)(m + 1) * (double)n);
    num_ls_best_init(&best, n);
    z = malloc((size_t)n * sizeof *z);
    if (!z) {
        st = oom(c, "a GMRES vector", (double)n);
        goto done;
    }
    if (kop_init(c, &op, pi) < 0)
        goto done_op;
    if (c->stall_watch && c->o->restart <= 0) {
        double cap = fmin(fmin(GMRES_MAX_BASIS, (double)n),
                          GMRES_BASIS_SHARE * num_ls_budget(c->o) / (8.0 * (double)n) - 1);
        grow.cap = (int)cap;
        if (grow.cap > m) {
            grow.xt = malloc((size_t)n * sizeof *grow.xt);
            grow.gs = malloc(((size_t)grow.cap + 1) * sizeof *grow.gs);
            if (grow.xt && grow.gs)
                gr = &grow;
        }
    }
    for (;;) {
        if (it > 0 && !why && kop_refix(&op, pi))
            factor = 1;
        double beta = kop_resid(&op, pi, ws.V, &R, &xs);
        /* a short cycle that did not halve the true residual: by the
         * flows' magnitude (kop_refix_by; one more product) */
        if (it > 0 && !why && short_cycle && !(R <= 0.5 * cyc_r0) &&
            kop_refix_by(&op, pi, 1)) {
            factor = 1;
            beta = kop_resid(&op, pi, ws.V, &R, &xs);
        }
        if (R <= tol && it > 0) {       /* never the start vector as is */
            st = 0;
            break;
        }
        num_ls_best_offer(&best, pi, R);
        debug_krylov("gmres", it, R);
        if (!why && num_ls_stalled(c, &stall, it, R, SETTLE_ITERS)) {
            R = num_ls_best_restore(&best, pi, R);
            snprintf(c->info->msg, sizeof c->info->msg, "GMRES stopped at its roundoff "
                     "floor (residual %.2e) after %ld iterations", R, it);
            st = 1;
            break;
        }
        /* named: STALL_CYCLES full restarts in a row without halving (a
         * cycle the stand-in stopped early tightens its target instead:
         * on chains whose rates span 6 decades the stand-in's 2-norm
         * says "converged" several times before the true residual
         * follows) */
        if (it > 0 && R <= 0.5 * cyc_anchor) {
            cyc_anchor = R;
            cyc_stall = 0;
        } else if (it > 0 && !hit && ++cyc_stall >= STALL_CYCLES && c->stall_watch && !why) {
            R = num_ls_best_restore(&best, pi, R);
            c->stalled = 1;
            snprintf(c->info->msg, sizeof c->info->msg, "GMRES(%d) stalled at residual "
                     "%.2e after %ld iterations (%d restarts without halving it)%s",
                     ws.m, R, it, STALL_CYCLES, op.qt ? "" : "; the descriptor has only the "
                     "Jacobi preconditioner: try --method bicgstab, ml or iad");
            st = 1;
            break;
        }
        if (it == 0)
            cyc_anchor = R;
        if (R <= 0.5 * stag) {
            stag = R;
            stag_it = it;
        } else if (it - stag_it >= stagnation(c, R) && !why) {
            R = num_ls_best_restore(&best, pi, R);
            c->stalled = c->stall_watch;    /* named: the checks judge it */
            snprintf(c->info->msg, sizeof c->info->msg, "GMRES stagnated at residual %.2e "
                     "after %ld iterations; try --restart 60, --method bicgstab or iad",
                     R, it);
            st = 1;
            break;
        }
        if (!isfinite(beta)) {
            snprintf(c->info->msg, sizeof c->info->msg, "GMRES broke down "
                     "after %ld iterations (non-finite residual)", it);
            st = -1;
            break;
        }
        if (why) {
            R = num_ls_give_up(c, &best, pi, why, it, R,
                               "try --method auto (or iad), --restart 60, or raise --max-iter");
            st = 1;
            break;
        }
        if (beta == 0 && R <= tol) {    /* the start was exact */
            st = 0;
            break;
        }
        if (beta == 0) {
            /* x solves the reduced system exactly, yet pi Q is not small
             * enough: the roundoff floor of this chain is above tol. */
            R = num_ls_best_restore(&best, pi, R);
            snprintf(c->info->msg, sizeof c->info->msg, "GMRES stagnated "
                     "at residual %.2e after %ld iterations (roundoff "
                     "floor above tol)", R, it);
            st = 1;
            break;
        }
        /* The stand-in said "converged" but the true residual disagrees:
         * ask the stand-in for more. */
        if (hit)
            factor *= TARGET_TIGHTEN;
        double scale = num_resid_scale(c->op->maxd, &xs);
        grow.r0 = cyc_r0 = R;
        short_cycle = gmres_cycle(c, &ws, &op, pi, z, beta, tol * scale * factor,
                                  scale, &it, &why, &hit, gr) < ws.m;
    }
done_op:
    kop_free(&op);
done:
    free(z);
    free(grow.xt);
    free(grow.gs);
    num_ls_best_free(&best);
    gmres_ws_free(&ws);
    c->info->iterations = it;
    return st;
}

/* ------------------------------------------------------------------ */
/* BiCGSTAB                                                             */
/* ------------------------------------------------------------------ */

typedef struct {
    double *r, *rh, *p, *v, *ph, *t;
} bicg_ws;

static void bicg_ws_free(bicg_ws *w)
{
    free(w->r);
    free(w->rh);
    free(w->p);
    free(w->v);
    free(w->ph);
    free(w->t);
}

static int bicg_ws_alloc(bicg_ws *w, int64_t n)
{
    size_t sz = (size_t)n * sizeof(double);
    w->r = malloc(sz);
    w->rh = malloc(sz);
    w->p = calloc((size_t)n, sizeof(double));
    w->v = calloc((size_t)n, sizeof(double));
    w->ph = malloc(sz);
    w->t = malloc(sz);
    if (!w->r || !w->rh || !w->p || !w->v || !w->ph || !w->t) {
        bicg_ws_free(w);
        return -1;
    }
    return 0;
}

/* p = r + beta (p - omega v), fused. */
static void bicg_update_p(double *restrict p, const double *restrict r,
                          const double *restrict v, double beta, double omega,
                          int64_t n, int64_t par_min)
{
    SAN_OMP(omp parallel for if(n >= par_min) schedule(static))
    for (int64_t i = 0; i < n; i++)
        p[i] = r[i] + beta * (p[i] - omega * v[i]);
}

/* The state of the recurrence between (re)starts. */
typedef struct {
    double rho, alpha, omega;
} bicg_scalars;

/* (Re)starts from the true residual of x: r = b - A x, shadow r^ = r. */
static double bicg_restart(const kop *op, bicg_ws *w, const double *x,
                           double *R, num_op_stats *xs, bicg_scalars *s)
{
    const int64_t n = op->n;
    double beta = kop_resid(op, x, w->r, R, xs);
    memcpy(w->rh, w->r, (size_t)n * sizeof *w->rh);
    memset(w->p, 0, (size_t)n * sizeof *w->p);
    memset(w->v, 0, (size_t)n * sizeof *w->v);
    s->rho = s->alpha = s->omega = 1;
    return beta;
}

/* One BiCGSTAB step; returns the norm of the new recursive residual, or
 * -1 on breakdown (the caller restarts from the true residual). */
static double bicg_step(const kop *op, bicg_ws *w, double *x,
                        bicg_scalars *s)
{
    const int64_t n = op->n;
    double rho1 = num_vdot(n, w->rh, w->r);
    if (rho1 == 0 || !isfinite(rho1))
        return -1;
    double beta = (rho1 / s->rho) * (s->alpha / s->omega);
    bicg_update_p(w->p, w->r, w->v, beta, s->omega, n, op->op->par_min);
    memcpy(w->ph, w->p, (size_t)n * sizeof *w->ph);
    num_pc_apply(&op->pc, w->ph);
    kop_negapply(op, w->ph, w->v);
    double rv = num_vdot(n, w->rh, w->v);
    if (rv == 0 || !isfinite(rv))
        return -1;
    s->alpha = rho1 / rv;
    num_vaxpy(n, -s->alpha, w->ph, x);
    num_vaxpy(n, -s->alpha, w->v, w->r);                /* r is now s */
    memcpy(w->ph, w->r, (size_t)n * sizeof *w->ph);
    num_pc_apply(&op->pc, w->ph);
    kop_negapply(op, w->ph, w->t);
    double tt = num_vdot(n, w->t, w->t);
    s->omega = tt > 0 ? num_vdot(n, w->t, w->r) / tt : 0;
    num_vaxpy(n, -s->omega, w->ph, x);
    num_vaxpy(n, -s->omega, w->t, w->r);
    s->rho = rho1;
    if (s->omega == 0 || !isfinite(s->omega))
        return -1;
    return num_vnrm2(n, w->r);
}

static int bicgstab_solve(num_ls *c, double *pi)
{
    const int64_t n = c->op->n;
    const double tol = c->tol, maxd = c->op->maxd;
    bicg_ws w;
    bicg_scalars s;
    kop op;
    num_ls_best best;
    num_op_stats xs;
    double R, factor = 1, alarm = HUGE_VAL;
    long it = 0;
    int st = -1;

    if (bicg_ws_alloc(&w, n) < 0)
        return oom(c, "the BiCGSTAB vectors", 6.0 * (double)n);
    num_ls_best_init(&best, n);
    if (kop_init(c, &op, pi) < 0)
        goto done;
    double rn = bicg_restart(&op, &w, pi, &R, &xs, &s);
    double stag = HUGE_VAL;
    long stag_it = 0, near_it = 0;
    num_ls_stall stall;
    num_ls_stall_init(&stall);
    double probe_at = c->probe && c->settle > 0 ? PROBE_FIRST * c->settle : 0;
    double probe_rn = probe_at;     /* the recursive residual's trigger */
    probe_sched sched = { 0, 0, PROBE_GAP / 2, HUGE_VAL };
    c->probes = 0;
    for (;;) {
        if (R <= tol && it > 0) {       /* never the start vector as is */
            st = 0;
            break;
        }
        num_ls_best_offer(&best, pi, R);
        debug_krylov("bicgstab", it, R);
        /* w.ph and w.t are scratch between steps */
        if ((R <= probe_at || screen_due(&sched, it)) && it > 0) {
            double pred;
            if (probe_contract(c, pi, w.ph, w.t, R, &probe_at, &pred) == 0) {
                memcpy(pi, w.ph, (size_t)n * sizeof *pi);
                st = 0;
                break;
            }
            screen_done(&sched, it, pred, probe_at, c->o->tol);
            probe_rn = probe_at;
        }
        if (num_ls_stalled(c, &stall, it, R, SETTLE_ITERS)) {
            R = num_ls_best_restore(&best, pi, R);
            snprintf(c->info->msg, sizeof c->info->msg, "BiCGSTAB stopped at its roundoff "
                     "floor (residual %.2e) after %ld iterations", R, it);
            st = 1;
            break;
        }
        if (R <= DRIFT * stag)
            near_it = it;
        if (R <= 0.5 * stag) {
            stag = R;
            stag_it = it;
        } else if (it - stag_it >= bicg_stagnation(c, R) ||
                   (c->stagnation > 0 && it - stag_it >= WANDER_ITERS &&
                    (it - near_it >= WANDER_ITERS || wandering(pi, n, c->op->par_min)))) {
            R = num_ls_best_restore(&best, pi, R);
            /* named: its best vector goes to the checks, which keep the
             * verdict (ncd17.san over the descriptor: a plateau at 1e-8
             * for 500 iterations, refused; the checks answer it) */
            c->stalled = c->stall_watch;
            snprintf(c->info->msg, sizeof c->info->msg, "BiCGSTAB stagnated at residual "
                     "%.2e after %ld iterations; try --method gmres or iad", R, it);
            st = 1;
            break;
        }
        num_ls_stop why = num_ls_poll(c, it, R);
        if (why) {
            R = num_ls_give_up(c, &best, pi, why, it, R, "try --method auto (or iad, gmres), "
                               "or raise --max-iter");
            st = 1;
            break;
        }
        if (!isfinite(rn)) {
            snprintf(c->info->msg, sizeof c->info->msg, "BiCGSTAB broke "
                     "down after %ld iterations (non-finite residual)", it);
            st = -1;
            break;
        }
        double scale = num_resid_scale(maxd, &xs), target = tol * scale * factor;
        /* Iterate on the recursive residual; look at the true one when it
         * claims convergence, breaks down, or every few steps. */
        for (;;) {
            rn = bicg_step(&op, &w, pi, &s);
            it++;
            num_ls_oracle(c, pi, it);
            if (rn < 0 || rn <= target || rn <= probe_rn * scale || screen_due(&sched, it) ||
                it % SAN_LS_CHECK_EVERY == 0 || num_ls_poll(c, it, rn / scale))
                break;
        }
        /* the recursive residual at the probe's level, the true one not
         * yet: look again when the recursive one has halved (every step
         * had a true residual, a product, on rs 20/9) */
        probe_rn = rn >= 0 && rn <= probe_rn * scale ? 0.5 * rn / scale : probe_at;
        int restart = rn < 0;
        if (rn >= 0 && rn <= target) {
            R = num_op_residual(c->op, pi, &xs);
            if (R <= tol)
                continue;
            if (c->settle > 0 && R <= c->settle && R > 0.5 * alarm) {
                /* a second false alarm below the contract's tol that
                 * did not halve the first's residual: the roundoff
                 * floor (FLOOR_ALARM); the refinement takes the best
                 * vector */
                num_ls_best_offer(&best, pi, R);
                R = num_ls_best_restore(&best, pi, R);
                snprintf(c->info->msg, sizeof c->info->msg, "BiCGSTAB reached its roundoff "
                         "floor (residual %.2e) after %ld iterations", R, it);
                st = 1;
                break;
            }
            if (c->settle > 0 && R <= c->settle)
                alarm = fmin(alarm, R);
            factor *= TARGET_TIGHTEN;
            restart = 1;
        }
        if (kop_refix(&op, pi)) {
            factor = 1;
            restart = 1;
        }
        if (restart)
            rn = bicg_restart(&op, &w, pi, &R, &xs, &s);
        else
            R = num_op_residual(c->op, pi, &xs);
    }
done:
    kop_free(&op);
    num_ls_best_free(&best);
    bicg_ws_free(&w);
    c->info->iterations = it + c->probes;
    return st;
}

int num_ls_gmres(num_ls *c, double *pi)
{
    int nt = blas_threads_begin(c->op);
    int st = gmres_solve(c, pi);
    blas_threads_end(nt);
    return st;
}

int num_ls_bicgstab(num_ls *c, double *pi)
{
    int nt = blas_threads_begin(c->op);
    int st = bicgstab_solve(c, pi);
    blas_threads_end(nt);
    return st;
}
