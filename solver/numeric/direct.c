/*
 * direct.c - pi Q = 0 by sparse LU (SuiteSparse UMFPACK, long indices).
 *
 * Q is singular, so one balance equation is replaced: for the chosen state
 * k, row k of Q^T becomes q_kk e_k^T and the right-hand side q_kk e_k,
 * i.e. the equation "x_k = 1".  For an irreducible chain the result is
 * nonsingular: expanding along row k leaves Q^T without row and column k,
 * a nonsingular M-matrix.  The solution x is pi / pi_k; the dispatcher
 * normalizes it.  Unlike adding the normalization as a dense row, this
 * keeps the sparsity of Q and so the fill of the factors.
 *
 * UMFPACK takes compressed columns; the compressed rows of the modified
 * Q^T, read as columns, are its transpose, so we factorize that and solve
 * with sys = UMFPACK_At, which solves with the transpose of what was
 * factorized: no explicit transpose, and UMFPACK's iterative refinement
 * still works on the right system.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <umfpack.h>
#include "solver/numeric/linsolve.h"

typedef SuiteSparse_long sslong;

/* The modified Q^T (row k reduced to its diagonal) with long indices. */
typedef struct {
    sslong *ap, *ai;
    double *ax;
} lu_input;

static void lu_input_free(lu_input *m)
{
    free(m->ap);
    free(m->ai);
    free(m->ax);
}

static int lu_input_build(const san_csr *qt, int64_t k, lu_input *m)
{
    const int64_t n = qt->n, nnz = qt->rowptr[n];
    m->ap = malloc((size_t)(n + 1) * sizeof *m->ap);
    m->ai = malloc((size_t)nnz * sizeof *m->ai);
    m->ax = malloc((size_t)nnz * sizeof *m->ax);
    if (!m->ap || !m->ai || !m->ax) {
        lu_input_free(m);
        return -1;
    }
    int64_t q = 0;
    for (int64_t j = 0; j < n; j++) {
        m->ap[j] = q;
        for (int64_t p = qt->rowptr[j]; p < qt->rowptr[j + 1]; p++) {
            if (j == k && qt->col[p] != k)
                continue;
            m->ai[q] = qt->col[p];
            m->ax[q] = qt->val[p];
            q++;
        }
    }
    m->ap[n] = q;
    return 0;
}

static const char *umf_status_text(sslong st)
{
    switch (st) {
    case UMFPACK_WARNING_singular_matrix:
        return "the generator is singular even with one state fixed: the "
               "chain is not irreducible";
    case UMFPACK_ERROR_out_of_memory:
        return "out of memory in the LU factorization; try --method auto or "
               "--method iad";
    default:
        return "UMFPACK failed";
    }
}

/* What an in-process factorization is predicted to cost: UMFPACK's
 * flop estimate (its symbolic analysis, an upper bound: 5.4 times the
 * flops done on the first model below) over this rate.  Estimated flops
 * per second of the numeric factorization, measured on the async
 * master/slave models (gen ms --mode async, --lump off) with 2 cores
 * shared by 5 jobs: 8.5e9 at 6 slaves, buffer 40 (54,903 states, 42.7 s),
 * 2.7e9 at 5 and 30 (13,475 states, 2.5 s), 6.1e8 at 4 and 20 (2,915
 * states, 0.18 s).  The rate assumed is the high end, so that only a
 * factorization predicted clearly over the time left is refused (an
 * answer before a refusal); one near the limit runs and may overrun it. */
#define LU_FLOP_RATE 1e10

/* Symbolic and numeric factorization; 2 when auto limits say "too big";
 * -1 with c->final when the numeric factorization is predicted to take
 * longer than max_s seconds (in-process under a time limit). */
static int factorize(num_ls *c, sslong n, const lu_input *m, double maxmem,
                     double maxflops, double max_s, void **num)
{
    double ctrl[UMFPACK_CONTROL], info[UMFPACK_INFO];
    void *sym = NULL;
    umfpack_dl_defaults(ctrl);
    ctrl[UMFPACK_PRL] = 0;
    sslong st = umfpack_dl_symbolic(n, n, m->ap, m->ai, m->ax, &sym, ctrl,
                                    info);
    if (st != UMFPACK_OK) {
        if (maxmem > 0 && st == UMFPACK_ERROR_out_of_memory)
            return 2;
        snprintf(c->info->msg, sizeof c->info->msg, "%s (symbolic, status "
                 "%ld)", umf_status_text(st), (long)st);
        return -1;
    }
    double mem = info[UMFPACK_PEAK_MEMORY_ESTIMATE] *
                 info[UMFPACK_SIZE_OF_UNIT];
    if (maxmem > 0 && (mem > maxmem ||
                       info[UMFPACK_FLOPS_ESTIMATE] > maxflops)) {
        char mb[32], lb[32];
        snprintf(c->info->msg, sizeof c->info->msg, "the LU factorization "
                 "would need an estimated %s and %.2g flops (UMFPACK's "
                 "symbolic analysis), over the limit of %s; try "
                 "--method auto (or gs, iad)", san_format_bytes(mem, mb, sizeof mb),
                 info[UMFPACK_FLOPS_ESTIMATE], san_format_bytes(maxmem, lb, sizeof lb));
        umfpack_dl_free_symbolic(&sym);
        return 2;
    }
    const double need = info[UMFPACK_FLOPS_ESTIMATE] / LU_FLOP_RATE;
    if (need > max_s) {
        snprintf(c->info->msg, sizeof c->info->msg, "the LU factorization would take "
                 "about %.2g s (%.2g flops estimated by UMFPACK's symbolic analysis, at "
                 "%.2g per second), more than the %.2g s left of the time limit; raise "
                 "--time-limit or try --method auto", need, info[UMFPACK_FLOPS_ESTIMATE],
                 LU_FLOP_RATE, max_s);
        c->final = 1;
        umfpack_dl_free_symbolic(&sym);
        return -1;
    }
    if (c->o->interrupt && *c->o->interrupt) {
        snprintf(c->info->msg, sizeof c->info->msg, "interrupted before the factorization");
        umfpack_dl_free_symbolic(&sym);
        return -1;
    }
    st = umfpack_dl_numeric(m->ap, m->ai, m->ax, sym, num, ctrl, info);
    umfpack_dl_free_symbolic(&sym);
    if (st == UMFPACK_OK)
        return 0;
    umfpack_dl_free_numeric(num);
    if (maxmem > 0 && st == UMFPACK_ERROR_out_of_memory)
        return 2;
    char mb[32];
    snprintf(c->info->msg, sizeof c->info->msg, "%s (status %ld, estimated "
             "%s)", umf_status_text(st), (long)st, san_format_bytes(mem, mb, sizeof mb));
    c->final = st == UMFPACK_WARNING_singular_matrix;   /* no method can help */
    return -1;
}

/* The state whose equation is replaced must carry a large probability:
 * x = pi / pi_k, and with pi_k ~ 1e-20 (the largest |q_kk| of an
 * M/M/1/K queue with lambda = 108 mu is at its empty end) the entries
 * span 1e20 and the LU breaks down (a solution summing to -3.6e19).  A
 * few Gauss-Seidel sweeps from the uniform vector find where the mass
 * is; the flow x_k |q_kk| picks the state. */
#define FIX_SWEEPS 6
static int64_t pick_fixed(const san_csr *qt)
{
    const int64_t n = qt->n;
    double *g = malloc((size_t)n * sizeof *g);
    if (!g)
        return num_ls_pick_fixed(qt, NULL);
    for (int64_t i = 0; i < n; i++)
        g[i] = 1.0 / (double)n;
    num_ls_gs_sweeps(qt, g, FIX_SWEEPS);
    int64_t k = num_ls_pick_fixed(qt, g);
    free(g);
    return k;
}

/* A solution of the modified system is sound when it is finite, has no
 * negative entry beyond roundoff, and x_k = 1 is not dwarfed by the
 * rest (then the equation dropped carried next to no flow); else the
 * state with the largest flow in it, for a second try, or -1. */
#define FIX_MIN_SHARE 1e-8
static int64_t refix(const san_csr *qt, const double *x, int64_t k)
{
    const int64_t n = qt->n;
    double mx = 0, mn = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(x[i]))
            return -1;
        mx = x[i] > mx ? x[i] : mx;
        mn = x[i] < mn ? x[i] : mn;
    }
    if (!(mx > 0))
        return -1;
    if (mn >= -1e-10 * mx && x[k] >= FIX_MIN_SHARE * mx)
        return k;
    int64_t j = num_ls_pick_fixed(qt, NULL);
    double best = -1;
    for (int64_t i = 0; i < n; i++) {
        int64_t p = num_ls_diag_pos(qt, i);
        double w = x[i] > 0 && p >= 0 ? x[i] * fabs(qt->val[p]) : 0;
        if (w > best) {
            best = w;
            j = i;
        }
    }
    return j == k ? -1 : j;
}

static int direct_once(num_ls *c, double *pi, double maxmem, double maxflops, double max_s,
                       int64_t k);
static num_lu *lu_timed(num_ls *c, const san_csr *qt, int64_t k, double maxmem,
                        double maxflops, double max_s, int *rc);

/* ---- a factorization that a time limit or an interrupt can end ---- */

/* UMFPACK cannot be stopped from inside, and its symbolic analysis alone
 * took 3 to 34 s on the async master/slave and pipeline models whose LU
 * is then refused as too big (it computes the fill it refuses): no
 * prediction from the sizes holds.  When the caller allows it
 * (san_solve_opts.fork_lu: the san command does), with a time limit or
 * an interrupt flag to watch, the factorization and the solve run in a
 * child process that the parent ends when the time is up or the flag is
 * set.  The answer comes back through shared memory; the child does only
 * the factorization and the solve (no OpenMP, which does not survive a
 * fork of a process that used it). */
typedef struct {
    int st;                 /* direct_once's status */
    int final;
    char msg[sizeof ((san_solve_info *)0)->msg];
} child_out;

/* How often the parent looks at the child, the clock and the flag. */
#define CHILD_POLL_NS 5000000L

static int direct_child(num_ls *c, double *pi, double maxmem, double maxflops, int64_t k)
{
    const int64_t n = c->qt->n;
    const size_t len = sizeof(child_out) + (size_t)n * sizeof(double);
    void *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
        return direct_once(c, pi, maxmem, maxflops, HUGE_VAL, k);
    child_out *out = mem;
    double *x = (double *)((char *)mem + sizeof(child_out));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        munmap(mem, len);
        return direct_once(c, pi, maxmem, maxflops, HUGE_VAL, k);
    }
    if (pid == 0) {
        out->st = direct_once(c, x, maxmem, maxflops, HUGE_VAL, k);
        out->final = c->final;
        memcpy(out->msg, c->info->msg, sizeof out->msg);
        _exit(0);
    }
    int status, st = -1, done = 0;
    const struct timespec pause = { 0, CHILD_POLL_NS };
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) {
            done = 1;
            break;
        }
        if (w < 0 && errno != EINTR)
            break;
        int intr = c->o->interrupt && *c->o->interrupt;
        double t = san_ls_now() - c->t0;
        if (intr || (c->o->time_limit > 0 && t >= c->o->time_limit)) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
            snprintf(c->info->msg, sizeof c->info->msg, intr ? "interrupted during the LU "
                     "factorization" : "time limit of %g s reached during the LU "
                     "factorization; raise --time-limit or try --method auto",
                     c->o->time_limit);
            c->final = 1;
            break;
        }
        nanosleep(&pause, NULL);
    }
    if (done && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        st = out->st;
        c->final = out->final;
        memcpy(c->info->msg, out->msg, sizeof out->msg);
        memcpy(pi, x, (size_t)n * sizeof *pi);
    } else if (done) {
        snprintf(c->info->msg, sizeof c->info->msg, "the LU factorization ended abnormally "
                 "(%s %d; out of memory?); try --method auto",
                 WIFSIGNALED(status) ? "signal" : "status",
                 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    }
    munmap(mem, len);
    return st;
}

/* In a child only when the caller allows it (fork_lu: a command may
 * fork, a library must not behind its caller's back: threads, file
 * descriptors, an embedding interpreter).  In-process, the time limit
 * is kept by prediction: refused before the symbolic analysis when no
 * time is left, and before the numeric factorization when UMFPACK's
 * flop estimate says it would not end in the time left; the interrupt
 * flag is looked at between the two. */
static int direct_run(num_ls *c, double *pi, double maxmem, double maxflops, int64_t k)
{
    const san_solve_opts *o = c->o;
    if (o->fork_lu && (o->time_limit > 0 || o->interrupt))
        return direct_child(c, pi, maxmem, maxflops, k);
    double left = HUGE_VAL;
    if (o->time_limit > 0) {
        left = o->time_limit - (san_ls_now() - c->t0);
        if (!(left > 0)) {
            snprintf(c->info->msg, sizeof c->info->msg, "the time limit was reached before "
                     "the LU factorization; raise --time-limit or try --method auto");
            c->final = 1;
            return -1;
        }
    }
    if (o->interrupt && *o->interrupt) {
        snprintf(c->info->msg, sizeof c->info->msg, "interrupted before the factorization");
        c->final = 1;
        return -1;
    }
    return direct_once(c, pi, maxmem, maxflops, left, k);
}

int num_ls_direct(num_ls *c, double *pi, double maxmem, double maxflops)
{
    int64_t k = pick_fixed(c->qt);
    int st = direct_run(c, pi, maxmem, maxflops, k);
    if (st != 0)
        return st;
    int64_t k2 = refix(c->qt, pi, k);
    if (k2 == k)
        return 0;
    if (k2 >= 0)
        st = direct_run(c, pi, maxmem, maxflops, k2);
    if (st == 0 && refix(c->qt, pi, k2) == k2)
        return 0;
    if (st == 0)
        snprintf(c->info->msg, sizeof c->info->msg, "the LU solution is unsound (negative "
                 "or non-finite entries) with either fixed state: the factorization broke "
                 "down; try --method gmres or iad");
    return st == 2 ? 2 : -1;
}

static int direct_once(num_ls *c, double *pi, double maxmem, double maxflops, double max_s,
                       int64_t k)
{
    const san_csr *qt = c->qt;
    int rc;
    num_lu *f = lu_timed(c, qt, k, maxmem, maxflops, max_s, &rc);
    c->info->iterations = 0;
    if (!f)
        return rc;
    double *b = calloc((size_t)qt->n, sizeof *b);
    if (!b) {
        snprintf(c->info->msg, sizeof c->info->msg, "out of memory for the "
                 "right-hand side");
        c->info->status = SAN_E_NOMEM;
        num_lu_free(f);
        return -1;
    }
    b[k] = qt->val[num_ls_diag_pos(qt, k)];
    int st = num_lu_solve(f, b, pi);
    rc = 0;
    if (st != 0) {
        snprintf(c->info->msg, sizeof c->info->msg, "%s (solve, status %d)",
                 umf_status_text(st), st);
        c->final = st == UMFPACK_WARNING_singular_matrix;
        rc = -1;
    }
    free(b);
    num_lu_free(f);
    return rc;
}

/* ---- the factors kept, for corrections (correct.c) ---- */

struct num_lu {
    lu_input m;
    void *num;
    int64_t n, k;
};

void num_lu_free(num_lu *f)
{
    if (!f)
        return;
    if (f->num)
        umfpack_dl_free_numeric(&f->num);
    lu_input_free(&f->m);
    free(f);
}

/* The LU, its numeric factorization refused (-1) when predicted to take
 * longer than max_s seconds. */
static num_lu *lu_timed(num_ls *c, const san_csr *qt, int64_t k, double maxmem,
                        double maxflops, double max_s, int *rc)
{
    num_lu *f = calloc(1, sizeof *f);
    *rc = -1;
    if (!f || lu_input_build(qt, k, &f->m) < 0) {
        free(f);
        if (maxmem > 0) {
            *rc = 2;
            return NULL;
        }
        snprintf(c->info->msg, sizeof c->info->msg, "out of memory copying "
                 "the generator for UMFPACK (%ld nonzeros)",
                 (long)qt->rowptr[qt->n]);
        c->info->status = SAN_E_NOMEM;
        return NULL;
    }
    f->n = qt->n;
    f->k = k;
    *rc = factorize(c, (sslong)qt->n, &f->m, maxmem, maxflops, max_s, &f->num);
    if (*rc != 0) {
        num_lu_free(f);
        return NULL;
    }
    return f;
}

int num_lu_solve(const num_lu *f, const double *b, double *x)
{
    double ctrl[UMFPACK_CONTROL], info[UMFPACK_INFO];
    umfpack_dl_defaults(ctrl);
    ctrl[UMFPACK_PRL] = 0;
    return (int)umfpack_dl_solve(UMFPACK_At, f->m.ap, f->m.ai, f->m.ax, x, b, f->num, ctrl,
                                 info);
}

num_lu *num_lu_factor(num_ls *c, const san_csr *qt, int64_t k, double maxmem,
                      double maxflops, int *rc)
{
    return lu_timed(c, qt, k, maxmem, maxflops, HUGE_VAL, rc);
}
