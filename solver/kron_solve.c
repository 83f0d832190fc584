/*
 * kron_solve.c - pi Q = 0 over the Kronecker descriptor (kron.c): power,
 * Jacobi, GMRES(m) and BiCGSTAB with the Jacobi preconditioner, under
 * the contract of the sparse path (linsolve.c): the same convergence
 * rule ||pi Q||_inf / max_j |q_jj| <= tol, the same stopping reasons and
 * messages, the best vector on early stops, the residual recomputed on
 * the returned normalized vector, progress on stderr.
 *
 * The iterations follow stationary.c and krylov.c line for line where
 * they can; what differs is the operator: one product x Q is a walk of
 * the descriptor, and there is no row access, hence no Gauss-Seidel and
 * no ILU(0) (the Jacobi preconditioner stands in for it).  Vectors are
 * indexed by the descriptor's positions (sorted mixed-radix order, or
 * the whole product space); the answer is mapped back to the space's
 * numbering at the end.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include "kron.h"
#include "linsolve.h"

#define JACOBI_DEFAULT_WEIGHT 0.9
#define UNIFORMIZATION_MARGIN 1.0001
#define DEFAULT_RESTART 30
#define TARGET_TIGHTEN 0.1
#define HAPPY_BREAKDOWN 1e-14
#define REFIX_RATIO 100.0
#define MAX_REFIX 16
/* Loops shorter than this stay on one thread: waking the team costs
 * more than the loop, and idle OpenMP threads spinning on two cores
 * starve OpenBLAS's own threads. */
#define PAR_MIN 50000
/* cblas takes int lengths: longer vectors go in chunks of this. */
#define BLAS_CHUNK (1L << 30)

/* One solve in progress: the sparse path's context plus the operator. */
typedef struct {
    san_ls ls;              /* clock, options, info (ls.qt unused) */
    const kron_desc *d;
    int64_t n;              /* vector length */
    double *w;              /* scratch vector for products */
} ksolve;

/* ------------------------------------------------------------------ */
/* Vectors (64-bit lengths; cblas in chunks)                            */
/* ------------------------------------------------------------------ */

static double vsum(const double *x, int64_t n)
{
    double s = 0;
    SAN_OMP(omp parallel for schedule(static) reduction(+:s) if(n >= PAR_MIN))
    for (int64_t i = 0; i < n; i++)
        s += x[i];
    return s;
}

static void vscale(double *x, int64_t n, double a)
{
    SAN_OMP(omp parallel for schedule(static) if(n >= PAR_MIN))
    for (int64_t i = 0; i < n; i++)
        x[i] *= a;
}

static double vdot(int64_t n, const double *x, const double *y)
{
    double s = 0;
    for (int64_t i = 0; i < n; i += BLAS_CHUNK) {
        int len = (int)(n - i < BLAS_CHUNK ? n - i : BLAS_CHUNK);
        s += cblas_ddot(len, x + i, 1, y + i, 1);
    }
    return s;
}

static void vaxpy(int64_t n, double a, const double *x, double *y)
{
    for (int64_t i = 0; i < n; i += BLAS_CHUNK) {
        int len = (int)(n - i < BLAS_CHUNK ? n - i : BLAS_CHUNK);
        cblas_daxpy(len, a, x + i, 1, y + i, 1);
    }
}

static double vnrm2(int64_t n, const double *x)
{
    if (n <= BLAS_CHUNK)
        return cblas_dnrm2((int)n, x, 1);
    double s = 0;
    for (int64_t i = 0; i < n; i += BLAS_CHUNK) {
        int len = (int)(n - i < BLAS_CHUNK ? n - i : BLAS_CHUNK);
        double t = cblas_dnrm2(len, x + i, 1);
        s += t * t;
    }
    return sqrt(s);
}

/* max_j |(x Q)_j| and sum(x) in one product: the normalized residual. */
static double kresid(ksolve *c, const double *x, double *sum)
{
    kron_mult(c->d, x, c->w);
    const double *restrict w = c->w;
    double m = 0, s = 0;
    SAN_OMP(omp parallel for schedule(static) reduction(max:m) reduction(+:s) if(c->n >= PAR_MIN))
    for (int64_t j = 0; j < c->n; j++) {
        double t = fabs(w[j]);
        m = t > m ? t : m;
        s += x[j];
    }
    if (sum)
        *sum = s;
    if (!(s > 0) || !(c->d->maxd > 0) || m != m)
        return HUGE_VAL;
    return m / (c->d->maxd * s);
}

/* ------------------------------------------------------------------ */
/* Power and Jacobi                                                     */
/* ------------------------------------------------------------------ */

/* y = (x + (x Q) / Lambda) / sx (power), or (x - w (x Q) / q_jj) / sx
 * (Jacobi), from xq = x Q; returns max |xq_j|, *ysum = sum(y). */
static double update_pass(const ksolve *c, const double *restrict x,
                          const double *restrict xq, double *restrict y,
                          int jacobi, double a, double sx, double *ysum)
{
    const double *restrict dg = c->d->diag;
    const double inv = 1.0 / sx;
    double m = 0, s = 0;
    SAN_OMP(omp parallel for schedule(static) reduction(max:m) reduction(+:s) if(c->n >= PAR_MIN))
    for (int64_t j = 0; j < c->n; j++) {
        double t = xq[j], step;
        if (jacobi)
            step = dg[j] != 0 ? -a * t / dg[j] : 0;
        else
            step = t * a;
        double yj = inv * (x[j] + step);
        y[j] = yj;
        s += yj;
        t = fabs(t);
        m = t > m ? t : m;
    }
    *ysum = s;
    return m;
}

static const char *hint_for(void)
{
    return "try --method gmres or bicgstab, or raise --max-iter";
}

static int two_buffer_iterate(ksolve *c, double *pi, int jacobi, double a)
{
    san_ls *ls = &c->ls;
    const int64_t n = c->n;
    double *y = malloc(n * sizeof *y), *x = pi, sx, sy, res = -1;
    san_ls_best best;
    long it = 0;
    int st;
    if (!y) {
        snprintf(ls->info->msg, sizeof ls->info->msg, "out of memory for a "
                 "second vector of %lld states", (long long)n);
        return -1;
    }
    san_ls_best_init(&best, n);
    sx = vsum(x, n);
    for (;;) {
        kron_mult(c->d, x, c->w);
        double m = update_pass(c, x, c->w, y, jacobi, a, sx, &sy);
        res = m / (c->d->maxd * sx);
        if (res <= ls->tol) {
            st = 0;
            break;
        }
        if (!isfinite(sy) || !(sy > 0)) {
            if (!best.x || !(best.res < HUGE_VAL)) {
                snprintf(ls->info->msg, sizeof ls->info->msg, "%s diverged after %ld "
                         "iterations (the iterate overflowed)",
                         san_method_name(ls->info->method), it);
                st = -1;
                break;
            }
            san_ls_best_restore(&best, x, HUGE_VAL);
            snprintf(ls->info->msg, sizeof ls->info->msg, "%s diverged after %ld "
                     "iterations; returning the best vector (residual %.2e)",
                     san_method_name(ls->info->method), it, best.res);
            st = 1;
            break;
        }
        if (it % SAN_LS_CHECK_EVERY == 0)
            san_ls_best_offer(&best, x, res);
        double *t = x;
        x = y;
        y = t;
        sx = sy;
        it++;
        san_ls_stop why = san_ls_poll(ls, it, res);
        if (why) {
            res = kresid(c, x, NULL);
            res = san_ls_best_restore(&best, x, res);
            san_ls_stop_msg(ls, why, it, res, hint_for());
            st = 1;
            break;
        }
    }
    if (x != pi)
        memcpy(pi, x, n * sizeof *pi);
    free(x == pi ? y : x);
    san_ls_best_free(&best);
    ls->info->iterations = it;
    return st;
}

/* ------------------------------------------------------------------ */
/* The nonsingular system of the Krylov methods (as in krylov.c)       */
/* ------------------------------------------------------------------ */

/* A x = b: A = -Q^T with row k replaced by (-q_kk) e_k, b = -q_kk e_k. */
typedef struct {
    ksolve *c;
    int64_t k;
    double dk;
    int none;               /* no preconditioner */
    int refixes;
    double *dinv;           /* 1 / A_jj, 0 where A_jj = 0 (states
                               outside the chain, on the product space) */
} kop;

static void kop_apply(const kop *op, const double *x, double *y)
{
    kron_mult(op->c->d, x, y);
    vscale(y, op->c->n, -1.0);
    y[op->k] = op->dk * x[op->k];
}

/* r = b - A x; *R the true normalized residual of x, *sx its sum;
 * returns ||r||_2. */
static double kop_resid(const kop *op, const double *x, double *r,
                        double *R, double *sx)
{
    ksolve *c = op->c;
    kron_mult(c->d, x, r);
    double m = 0, s = 0, r2 = 0;
    const int64_t k = op->k;
    SAN_OMP(omp parallel for schedule(static) reduction(max:m) reduction(+:s, r2) if(c->n >= PAR_MIN))
    for (int64_t j = 0; j < c->n; j++) {
        double t = r[j];
        r2 += j == k ? 0 : t * t;
        s += x[j];
        t = fabs(t);
        m = t > m ? t : m;
    }
    r[k] = op->dk * (1 - x[k]);
    r2 += r[k] * r[k];
    *sx = s;
    *R = s > 0 && m == m ? m / (c->d->maxd * s) : HUGE_VAL;
    return sqrt(r2);
}

static void kop_prec(const kop *op, double *x)
{
    if (op->none)
        return;
    const double *restrict d = op->dinv;
    SAN_OMP(omp parallel for schedule(static) if(op->c->n >= PAR_MIN))
    for (int64_t j = 0; j < op->c->n; j++)
        x[j] *= d[j];
}

/* The fixed state: the largest flow x_j |q_jj| (states outside the chain
 * have x_j = 0 and are never chosen). */
static int64_t pick_fixed(const ksolve *c, const double *x)
{
    int64_t best = 0;
    double bw = -1;
    for (int64_t j = 0; j < c->n; j++) {
        double w = fabs(c->d->diag[j]) * x[j];
        if (w > bw) {
            bw = w;
            best = j;
        }
    }
    return best;
}

static int kop_init(ksolve *c, kop *op, double *x)
{
    memset(op, 0, sizeof *op);
    op->c = c;
    op->none = c->ls.o->precond == SAN_PC_NONE;
    op->k = pick_fixed(c, x);
    op->dk = -c->d->diag[op->k];
    op->dinv = malloc(c->n * sizeof *op->dinv);
    if (!op->dinv) {
        snprintf(c->ls.info->msg, sizeof c->ls.info->msg, "out of memory for "
                 "the diagonal (%lld states)", (long long)c->n);
        return -1;
    }
    const double *dg = c->d->diag;
    SAN_OMP(omp parallel for schedule(static) if(c->n >= PAR_MIN))
    for (int64_t j = 0; j < c->n; j++)
        op->dinv[j] = dg[j] != 0 ? -1.0 / dg[j] : 0;
    if (x[op->k] > 0)
        vscale(x, c->n, 1.0 / x[op->k]);
    return 0;
}

/* Moves k to the largest flow when that dwarfs the current one. */
static int kop_refix(kop *op, double *x)
{
    const int64_t n = op->c->n;
    if (op->refixes >= MAX_REFIX)
        return 0;
    int64_t jb = pick_fixed(op->c, x);
    double wb = fabs(op->c->d->diag[jb]) * x[jb], wk = op->dk * x[op->k];
    if (jb == op->k || !(wb > 0) || (wk > 0 && wb <= REFIX_RATIO * wk))
        return 0;
    op->k = jb;
    op->dk = -op->c->d->diag[jb];
    op->refixes++;
    vscale(x, n, 1.0 / x[jb]);
    return 1;
}

static int oom(ksolve *c, const char *what, double doubles)
{
    snprintf(c->ls.info->msg, sizeof c->ls.info->msg, "out of memory for %s "
             "(%.2f GB); try --method power", what, doubles * 8 / 1073741824.0);
    return -1;
}

/* ------------------------------------------------------------------ */
/* GMRES(m)                                                             */
/* ------------------------------------------------------------------ */

typedef struct {
    int m;
    double *V, *H, *cs, *sn, *g, *h2;
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

/* CGS2 of V[:, j+1] against V[:, 0..j] into column j of H (n <= INT_MAX:
 * the caller checks, the basis is two dgemv calls). */
static double arnoldi_orth(gmres_ws *ws, int64_t n, int j)
{
    double *V = ws->V, *w = V + (size_t)(j + 1) * n;
    double *h = ws->H + (size_t)j * (ws->m + 1), *h2 = ws->h2;
    for (int pass = 0; pass < 2; pass++) {
        double *hh = pass == 0 ? h : h2;
        cblas_dgemv(CblasColMajor, CblasTrans, (int)n, j + 1, 1.0, V, (int)n,
                    w, 1, 0.0, hh, 1);
        cblas_dgemv(CblasColMajor, CblasNoTrans, (int)n, j + 1, -1.0, V,
                    (int)n, hh, 1, 1.0, w, 1);
    }
    for (int i = 0; i <= j; i++)
        h[i] += h2[i];
    double hn = vnrm2(n, w);
    h[j + 1] = hn;
    if (hn > 0)
        vscale(w, n, 1.0 / hn);
    return hn;
}

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

static void gmres_update(gmres_ws *ws, const kop *op, double *x, double *z,
                         int64_t n, int j)
{
    const int ld = ws->m + 1;
    double *g = ws->g;
    for (int i = j - 1; i >= 0; i--) {
        double t = g[i];
        for (int l = i + 1; l < j; l++)
            t -= ws->H[i + (size_t)l * ld] * g[l];
        g[i] = ws->H[i + (size_t)i * ld] != 0 ? t / ws->H[i + (size_t)i * ld] : 0;
    }
    cblas_dgemv(CblasColMajor, CblasNoTrans, (int)n, j, 1.0, ws->V, (int)n,
                g, 1, 0.0, z, 1);
    kop_prec(op, z);
    vaxpy(n, 1.0, z, x);
}

static int gmres_cycle(ksolve *c, gmres_ws *ws, const kop *op, double *x,
                       double *z, double beta, double target, double sx,
                       long *it, san_ls_stop *why, int *hit)
{
    const int64_t n = c->n;
    int j = 0;
    vscale(ws->V, n, 1.0 / beta);
    memset(ws->g, 0, (size_t)(ws->m + 1) * sizeof *ws->g);
    ws->g[0] = beta;
    *hit = 0;
    while (j < ws->m) {
        double *vj = ws->V + (size_t)j * n, *w = vj + n;
        memcpy(z, vj, n * sizeof *z);
        kop_prec(op, z);
        kop_apply(op, z, w);
        double wn = vnrm2(n, w);
        double hn = arnoldi_orth(ws, n, j);
        double est = givens_step(ws, j);
        j++;
        (*it)++;
        *why = san_ls_poll(&c->ls, *it, est / (c->d->maxd * sx));
        if (est <= target)
            *hit = 1;
        if (*hit || hn <= HAPPY_BREAKDOWN * wn || *why)
            break;
    }
    gmres_update(ws, op, x, z, n, j);
    return j;
}

static int kron_gmres(ksolve *c, double *pi)
{
    san_ls *ls = &c->ls;
    const int64_t n = c->n;
    int m = ls->o->restart > 0 ? ls->o->restart : DEFAULT_RESTART;
    gmres_ws ws;
    kop op;
    san_ls_best best;
    double *z, factor = 1, R, sx;
    san_ls_stop why = SAN_LS_GO;
    long it = 0;
    int st = -1, hit = 0;

    if (n > INT32_MAX) {
        snprintf(ls->info->msg, sizeof ls->info->msg, "GMRES is limited to 2^31 "
                 "states (its basis would not fit anyway); use --method bicgstab");
        return -1;
    }
    if (m > n)
        m = (int)n;
    if (gmres_ws_alloc(&ws, n, m) < 0)
        return oom(c, "the GMRES basis; a smaller --restart needs less",
                   (double)(m + 1) * (double)n);
    san_ls_best_init(&best, n);
    z = malloc(n * sizeof *z);
    if (!z) {
        st = oom(c, "a GMRES vector", (double)n);
        goto done;
    }
    if (kop_init(c, &op, pi) < 0)
        goto done_op;
    for (;;) {
        if (it > 0 && kop_refix(&op, pi))
            factor = 1;
        double beta = kop_resid(&op, pi, ws.V, &R, &sx);
        if (R <= ls->tol) {
            st = 0;
            break;
        }
        san_ls_best_offer(&best, pi, R);
        if (!isfinite(beta)) {
            snprintf(ls->info->msg, sizeof ls->info->msg, "GMRES broke down "
                     "after %ld iterations (non-finite residual)", it);
            st = -1;
            break;
        }
        if (why) {
            R = san_ls_best_restore(&best, pi, R);
            san_ls_stop_msg(ls, why, it, R, "try --restart 60, or raise --max-iter");
            st = 1;
            break;
        }
        if (beta == 0) {
            R = san_ls_best_restore(&best, pi, R);
            snprintf(ls->info->msg, sizeof ls->info->msg, "GMRES stagnated "
                     "at residual %.2e after %ld iterations (roundoff "
                     "floor above tol)", R, it);
            st = 1;
            break;
        }
        if (hit)
            factor *= TARGET_TIGHTEN;
        gmres_cycle(c, &ws, &op, pi, z, beta, ls->tol * c->d->maxd * sx * factor,
                    sx, &it, &why, &hit);
    }
done_op:
    free(op.dinv);
done:
    free(z);
    san_ls_best_free(&best);
    gmres_ws_free(&ws);
    ls->info->iterations = it;
    return st;
}

/* ------------------------------------------------------------------ */
/* BiCGSTAB                                                             */
/* ------------------------------------------------------------------ */

typedef struct {
    double *r, *rh, *p, *v, *ph, *t;
} bicg_ws;

typedef struct {
    double rho, alpha, omega;
} bicg_scalars;

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
    w->p = calloc(n, sizeof(double));
    w->v = calloc(n, sizeof(double));
    w->ph = malloc(sz);
    w->t = malloc(sz);
    if (!w->r || !w->rh || !w->p || !w->v || !w->ph || !w->t) {
        bicg_ws_free(w);
        return -1;
    }
    return 0;
}

static double bicg_restart(const kop *op, bicg_ws *w, const double *x,
                           double *R, double *sx, bicg_scalars *s)
{
    const int64_t n = op->c->n;
    double beta = kop_resid(op, x, w->r, R, sx);
    memcpy(w->rh, w->r, n * sizeof *w->rh);
    memset(w->p, 0, n * sizeof *w->p);
    memset(w->v, 0, n * sizeof *w->v);
    s->rho = s->alpha = s->omega = 1;
    return beta;
}

static double bicg_step(const kop *op, bicg_ws *w, double *x, bicg_scalars *s)
{
    const int64_t n = op->c->n;
    double rho1 = vdot(n, w->rh, w->r);
    if (rho1 == 0 || !isfinite(rho1))
        return -1;
    double beta = (rho1 / s->rho) * (s->alpha / s->omega), om = s->omega;
    double *restrict p = w->p;
    const double *restrict r = w->r, *restrict v = w->v;
    SAN_OMP(omp parallel for schedule(static) if(n >= PAR_MIN))
    for (int64_t i = 0; i < n; i++)
        p[i] = r[i] + beta * (p[i] - om * v[i]);
    memcpy(w->ph, w->p, n * sizeof *w->ph);
    kop_prec(op, w->ph);
    kop_apply(op, w->ph, w->v);
    double rv = vdot(n, w->rh, w->v);
    if (rv == 0 || !isfinite(rv))
        return -1;
    s->alpha = rho1 / rv;
    vaxpy(n, s->alpha, w->ph, x);
    vaxpy(n, -s->alpha, w->v, w->r);
    memcpy(w->ph, w->r, n * sizeof *w->ph);
    kop_prec(op, w->ph);
    kop_apply(op, w->ph, w->t);
    double tt = vdot(n, w->t, w->t);
    s->omega = tt > 0 ? vdot(n, w->t, w->r) / tt : 0;
    vaxpy(n, s->omega, w->ph, x);
    vaxpy(n, -s->omega, w->t, w->r);
    s->rho = rho1;
    if (s->omega == 0 || !isfinite(s->omega))
        return -1;
    return vnrm2(n, w->r);
}

static int kron_bicgstab(ksolve *c, double *pi)
{
    san_ls *ls = &c->ls;
    const double tol = ls->tol, maxd = c->d->maxd;
    bicg_ws w;
    bicg_scalars s;
    kop op;
    san_ls_best best;
    double R, sx, factor = 1;
    long it = 0;
    int st = -1;

    if (bicg_ws_alloc(&w, c->n) < 0)
        return oom(c, "the BiCGSTAB vectors", 6.0 * (double)c->n);
    san_ls_best_init(&best, c->n);
    if (kop_init(c, &op, pi) < 0)
        goto done;
    double rn = bicg_restart(&op, &w, pi, &R, &sx, &s);
    for (;;) {
        if (R <= tol) {
            st = 0;
            break;
        }
        san_ls_best_offer(&best, pi, R);
        san_ls_stop why = san_ls_poll(ls, it, R);
        if (why) {
            R = san_ls_best_restore(&best, pi, R);
            san_ls_stop_msg(ls, why, it, R, "try --method gmres, or raise --max-iter");
            st = 1;
            break;
        }
        if (!isfinite(rn)) {
            snprintf(ls->info->msg, sizeof ls->info->msg, "BiCGSTAB broke "
                     "down after %ld iterations (non-finite residual)", it);
            st = -1;
            break;
        }
        double target = tol * maxd * sx * factor;
        for (;;) {
            rn = bicg_step(&op, &w, pi, &s);
            it++;
            if (rn < 0 || rn <= target || it % SAN_LS_CHECK_EVERY == 0 ||
                san_ls_poll(ls, it, rn / (maxd * sx)))
                break;
        }
        int restart = rn < 0;
        if (rn >= 0 && rn <= target) {
            R = kresid(c, pi, &sx);
            if (R <= tol)
                continue;
            factor *= TARGET_TIGHTEN;
            restart = 1;
        }
        if (kop_refix(&op, pi)) {
            factor = 1;
            restart = 1;
        }
        if (restart)
            rn = bicg_restart(&op, &w, pi, &R, &sx, &s);
        else
            R = kresid(c, pi, &sx);
    }
done:
    free(op.dinv);
    san_ls_best_free(&best);
    bicg_ws_free(&w);
    ls->info->iterations = it;
    return st;
}

/* ------------------------------------------------------------------ */
/* Dispatch, final checks, the public entry points                      */
/* ------------------------------------------------------------------ */

/* Vectors each method holds besides the descriptor and pi: the product
 * scratch, the best copy, and its own. */
static double method_vectors(san_method m, int restart)
{
    switch (m) {
    case SAN_M_POWER:
    case SAN_M_JACOBI:   return 3;
    case SAN_M_BICGSTAB: return 9;
    default:             return (restart > 0 ? restart : DEFAULT_RESTART) + 5;
    }
}

/* auto: BiCGSTAB when its vectors fit in the memory left, else the power
 * method.  Not GMRES: with only the Jacobi preconditioner, GMRES(30)
 * stagnates on some models (a 766-state pipeline stays at 3.8e-4 for
 * 20000 iterations, on the sparse path too) where BiCGSTAB converges in
 * under 100 iterations. */
static san_method auto_method(const ksolve *c)
{
    double room = san_default_max_memory() - c->d->bytes - 8.0 * c->n * 2;
    if (method_vectors(SAN_M_BICGSTAB, 0) * 8.0 * c->n <= room)
        return SAN_M_BICGSTAB;
    return SAN_M_POWER;
}

static int run_method(ksolve *c, double *pi)
{
    san_solve_info *info = c->ls.info;
    if (info->method == SAN_M_AUTO)
        info->method = auto_method(c);
    switch (info->method) {
    case SAN_M_POWER:
        return two_buffer_iterate(c, pi, 0, 1.0 / (UNIFORMIZATION_MARGIN * c->d->maxd));
    case SAN_M_JACOBI: {
        double w = c->ls.o->omega;
        if (!(w > 0 && w < 2) || w == 1.0)
            w = JACOBI_DEFAULT_WEIGHT;
        return two_buffer_iterate(c, pi, 1, w);
    }
    case SAN_M_GMRES:    return kron_gmres(c, pi);
    case SAN_M_BICGSTAB: return kron_bicgstab(c, pi);
    default:
        snprintf(info->msg, sizeof info->msg, "method %s needs the sparse "
                 "generator (--storage sparse); over the Kronecker descriptor "
                 "use power, jacobi, gmres or bicgstab",
                 san_method_name(info->method));
        return -1;
    }
}

/* The final vector, judged as the sparse path judges it (linsolve.c),
 * with the residual recomputed over the descriptor. */
static int finish(ksolve *c, double *pi, int st)
{
    san_ls_neg neg;
    if (san_ls_normalize(pi, c->n, c->ls.info, &neg) < 0)
        return -1;
    c->ls.info->residual = kresid(c, pi, NULL);
    return san_ls_verdict(st, c->ls.info, c->ls.o->tol, &neg);
}

/* Uniform over the chain's states (the closed class when known), zero
 * on the product space's extra states. */
static void initial_vector(const kron_desc *d, const san_space *sp, double *x)
{
    memset(x, 0, d->n * sizeof *x);
    double u = 1.0 / (double)(sp->nclosed > 0 ? sp->nclosed : sp->n);
    if (d->n == sp->n && sp->nclosed == sp->n) {
        for (int64_t i = 0; i < d->n; i++)
            x[i] = u;
        return;
    }
    for (int64_t i = 0; i < sp->n; i++)
        if (!sp->in_closed || sp->in_closed[i])
            x[kron_rank(d, sp->index[i])] = u;
}

static int solve_on(ksolve *c, const san_space *sp, double *x, san_solution *sol)
{
    int st = run_method(c, x);
    san_ls_progress_end(&c->ls);
    if (st >= 0)
        st = finish(c, x, st);
    if (st >= 0)
        for (int64_t i = 0; i < sp->n; i++)
            sol->pi[i] = x[kron_rank(c->d, sp->index[i])];
    return st;
}

int san_kron_solve_mode(const san_space *sp, const san_solve_opts *o,
                        san_solution *sol, double *descriptor_bytes, int mode)
{
    san_solve_opts dflt;
    double t0 = san_ls_now();
    memset(sol, 0, sizeof *sol);
    if (!o) {
        san_solve_opts_default(&dflt);
        o = &dflt;
    }
    san_solve_info *info = &sol->info;
    info->method = o->method;
    info->residual = HUGE_VAL;
    sol->pi = calloc(sp->n ? sp->n : 1, sizeof *sol->pi);
    if (!sol->pi || sp->n <= 0) {
        snprintf(info->msg, sizeof info->msg, sp->n <= 0 ? "no states" : "out of memory");
        return -1;
    }
    kron_desc d;
    if (kron_build(&d, sp, (kron_mode)mode, info->msg, sizeof info->msg) < 0)
        return -1;
    if (descriptor_bytes)
        *descriptor_bytes = d.bytes + 8.0 * d.n;
    ksolve c = { { 0 }, &d, d.n, malloc(d.n * sizeof(double)) };
    double *x = malloc(d.n * sizeof *x);
    int st = -1;
    if (!c.w || !x) {
        snprintf(info->msg, sizeof info->msg, "out of memory for vectors of %lld states",
                 (long long)d.n);
    } else if (sp->n == 1) {
        sol->pi[0] = 1;
        info->residual = 0;
        st = 0;
    } else {
        c.ls.o = o;
        c.ls.info = info;
        c.ls.maxd = d.maxd;
        c.ls.tol = o->tol * (1 - 1e-6);
        c.ls.t0 = t0;
        c.ls.last_print = t0;
        c.ls.clock_skip = 1;
        initial_vector(&d, sp, x);
        st = solve_on(&c, sp, x, sol);
    }
    free(x);
    free(c.w);
    kron_free(&d);
    info->converged = st == 0;
    if (st == 0)
        info->msg[0] = '\0';
    info->time_s = san_ls_now() - t0;
    return st;
}

int san_kron_solve(const san_space *sp, const san_solve_opts *o, san_solution *sol,
                   double *descriptor_bytes)
{
    return san_kron_solve_mode(sp, o, sol, descriptor_bytes, KRON_AUTO);
}

double san_kron_estimate_bytes(const san_model *m, int64_t reachable)
{
    double n = (double)reachable, vec = n;
    double tree = 0;
    if (m->product_fits && n < KRON_PRODUCT_MIN_FILL * (double)m->product)
        tree = 14.0 * n;        /* explicit levels: ~12 bytes a state */
    else if (m->product_fits)
        vec = (double)m->product;
    /* the diagonal, pi, the answer in the space's numbering, and the
     * vectors of BiCGSTAB (the largest method that auto falls back on
     * before the power method) */
    return kron_terms_bytes(m) + tree + 8.0 * vec * (1 + 1 + 9) + 8.0 * n;
}
