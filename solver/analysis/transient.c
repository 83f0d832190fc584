/*
 * transient.c - the time-dependent kinds of the pipeline (analyze.c):
 * pi(t) at given times (TRANSIENT) and the time until a set of states is
 * first entered (PASSAGE), over either storage.
 *
 *   1. the operator y = x Q of the storage chosen by the build: the
 *      transposed sparse generator, or the tensor descriptor (vectors on
 *      its positions, mapped from and to the space's numbering);
 *   2. the memory the vectors need, and the products the series need,
 *      both before allocating or starting: a clear refusal past
 *      --max-memory or the step limit;
 *   3. the initial distribution (a vector, an expression, or the states
 *      the reachability function accepts);
 *   4. interval after interval, uniformization (solver/transient/), the
 *      indices of pi(t) (and of its integral) at each time;
 *   5. PASSAGE: the target made absorbing, P(T <= t) at each time (those
 *      within --max-steps), then P(reach) and the mean by solves of
 *      regenerative chains on the generator's rows (passage.c; the
 *      descriptor's built beside it by passage_rows.c when they fit),
 *      else from the closed classes and the series of the expected
 *      sojourn times, checked on the linear system they satisfy; the
 *      percentiles within --max-steps.  What is not computed is said
 *      and left NaN (T->incomplete), never guessed.
 *
 * The uniformization rate is above the exit rate of every reachable
 * state, transient ones included, and every product is checked to keep
 * a distribution (uniform.c's guard): a rate below an exit rate gave
 * probabilities of 1e45 with exit 0.
 *
 * Over MPI ranks (--engine petsc) the same steps run on a chain spread
 * over them (psc_dchain): every vector is the rank's part, the operator
 * its MatMult, every sum or maximum over states reduced (chain_sum,
 * chain_max, and tr_unif's red), the indices computed by the chain;
 * pi at the last time is not gathered.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "base/services.h"
#include "solver/kron/kron.h"
#include "solver/numeric/linsolve.h"
#include "solver/transient/transient.h"
#include "solver/space/state_space.h"
#include "solver/analysis/transient_int.h"
#include "solver/analysis/indices.h"
#include "solver/analysis/passage_int.h"
#include "solver/petsc/petsc_solve.h"
#include "lang/lump.h"
#include "solver/analysis/initial.h"
#include "lang/model_int.h"
#include "solver/analysis/analysis_int.h"


/* Runs planned past this many products say so in a note (stderr). */
#define STEPS_NOTE 1e6

/* The operator of the storage and the positions of the space's states. */
typedef struct {
    num_op op;
    psc_dchain *ch;         /* over MPI ranks: op is the chain's (NULL: serial) */
    san_csr qt;             /* sparse */
    kron_desc d;            /* kron */
    int kron, have_d;
    double *w;              /* kron: num_op_pass scratch */
    int64_t *pos;           /* kron: position of each state (NULL: same) */
    int64_t n;              /* positions */
} top;

static void top_free(top *t)
{
    san_csr_free(&t->qt);
    if (t->have_d)
        kron_free(&t->d);
    free(t->w);
    free(t->pos);
}

/* A figure of this rank's part made the chain's (serial: as it is). */
static double chain_sum(const top *t, double v)
{
    return t->ch ? t->ch->red.sum(v) : v;
}

static double chain_max(const top *t, double v)
{
    return t->ch ? t->ch->red.max(v) : v;
}

/* The states the vectors are over: the space's, or this rank's part. */
static const san_space *states_of(const top *t, const san_analysis *a)
{
    return t->ch ? &t->ch->local : &a->sp;
}

static san_status top_build(top *t, const san_analysis *a, psc_dchain *ch, san_diag *dg)
{
    memset(t, 0, sizeof *t);
    if (ch) {
        t->ch = ch;
        t->op = ch->op;
        t->n = ch->local.n;
        return SAN_OK;
    }
    const san_space *sp = &a->sp;
    t->kron = a->kron;
    if (!t->kron) {
        if (san_csr_transpose(&sp->q, &t->qt) < 0)
            return SAN_E_NOMEM;
        num_op_csr(&t->op, &t->qt, sp->max_rate);
        t->n = sp->n;
        return SAN_OK;
    }
    char msg[256] = "";
    if (kron_build(&t->d, sp, KRON_AUTO, NULL, msg, sizeof msg) < 0) {
        san_diag_add(dg, SAN_ERROR, 0, 0, "tensor descriptor: %s", msg);
        return SAN_E_NOMEM;
    }
    t->have_d = 1;
    t->n = t->d.n;
    t->w = malloc(t->n * sizeof *t->w);
    t->pos = malloc(sp->n * sizeof *t->pos);
    if (!t->w || !t->pos)
        return SAN_E_NOMEM;
    kron_op(&t->op, &t->d, t->w);
    /* the descriptor's maxd is the closed class's scale (a steady state
     * lives there); uniformization needs every reachable state's exit
     * rate below its rate, transient states included: a start state
     * left at rate 10 beside a class left at 1.02 made P = I + Q/L
     * negative there, and the series grew to 1e45 */
    double md = 0;
    for (int64_t i = 0; i < sp->n; i++) {
        t->pos[i] = kron_rank(&t->d, sp->index[i]);
        md = fmax(md, fabs(t->d.diag[t->pos[i]]));
    }
    t->op.maxd = md;
    return SAN_OK;
}

/* Space vector -> positions (zero elsewhere), and back. */
static void to_pos(const top *t, int64_t ns, const double *xs, double *x)
{
    if (!t->pos) {
        memcpy(x, xs, ns * sizeof *x);
        return;
    }
    memset(x, 0, t->n * sizeof *x);
    for (int64_t i = 0; i < ns; i++)
        x[t->pos[i]] = xs[i];
}

static void from_pos(const top *t, int64_t ns, const double *x, double *xs)
{
    if (!t->pos) {
        memcpy(xs, x, ns * sizeof *xs);
        return;
    }
    for (int64_t i = 0; i < ns; i++)
        xs[i] = x[t->pos[i]];
}

/* ---- the initial distribution (space numbering) ---- */

/* Position in the space of a mixed-radix index: the space's states in
 * index order, searched.  Lumped (L): the indices are the original
 * model's, each summed into its lumped state (lump_state.c). */
static san_status init_from_vector(const top *t, const san_space *sp, const san_lumping *L,
                                   const san_transient_opts *o, double *x, san_diag *d)
{
    int64_t *ord = space_index_order(sp);
    int *ls = L ? malloc((L->orig->naut + 1) * sizeof *ls) : NULL;
    int *lt = L ? malloc((L->model->naut + 1) * sizeof *lt) : NULL;
    int32_t *lw = L ? malloc((lump_max_ns(L) + 1) * sizeof *lw) : NULL;
    if (!ord || (L && (!ls || !lt || !lw))) {
        free(ord);
        free(ls);
        free(lt);
        free(lw);
        return SAN_E_NOMEM;
    }
    double sum = 0, found = 0, wanted = 0;
    const char *gone = t->ch ? t->ch->dropped : NULL;
    san_status st = SAN_OK;
    for (int64_t k = 0; k < o->init_n && st == SAN_OK; k++) {
        int64_t key = o->init_index[k];
        if (L)
            key = lump_index_map(L, key, ls, lt, lw);
        int64_t hit = key < 0 ? -1 : space_index_find(ord, sp->n, key);
        if (hit >= 0 && gone && gone[hit])
            hit = -1;           /* a dropped pocket's: not in the chain */
        wanted += o->init_p[k] > 0;
        if (!(o->init_p[k] >= 0) || !isfinite(o->init_p[k])) {
            san_diag_add(d, SAN_ERROR, 0, 0, "initial vector: entry %lld is not a probability "
                         "(%g)", (long long)k + 1, o->init_p[k]);
            st = SAN_E_USAGE;
        } else if (hit < 0 && o->init_p[k] > 0 && !t->ch) {
            san_diag_add(d, SAN_ERROR, 0, 0, "initial vector: state of index %lld is not a "
                         "reachable state", (long long)o->init_index[k]);
            st = SAN_E_USAGE;
        } else if (hit >= 0) {
            x[hit] += o->init_p[k];
            sum += o->init_p[k];
            found += o->init_p[k] > 0;
        }
    }
    free(ord);
    free(ls);
    free(lt);
    free(lw);
    /* over ranks each state is on one: what no rank found is not reachable */
    sum = chain_sum(t, sum);
    if (st == SAN_OK && t->ch && chain_sum(t, found) < wanted) {
        san_diag_add(d, SAN_ERROR, 0, 0, "initial vector: %.0f of its %.0f states of positive "
                     "probability are not reachable states", wanted - chain_sum(t, found),
                     wanted);
        st = SAN_E_USAGE;       /* (st is alike on every rank: the file is) */
    }
    if (st == SAN_OK && !(sum > 0)) {
        san_diag_add(d, SAN_ERROR, 0, 0, "initial vector: no probability on any state");
        st = SAN_E_USAGE;
    }
    if (st == SAN_OK && fabs(sum - 1) > 1e-9)
        san_diag_add(d, SAN_NOTE, 0, 0, "initial vector: sums to %.17g, normalized", sum);
    for (int64_t i = 0; st == SAN_OK && i < sp->n; i++)
        x[i] /= sum;
    return st;
}

/* Uniform over the states where e is non-zero (e NULL: the reachability
 * function).  Lumped (L): over the original states, so each lumped state
 * weighs the original states it stands for (their log count; the
 * largest set to 1 first, as 3^1024 overflows a double). */
static san_status init_uniform(const top *t, const san_space *sp, const san_lumping *L,
                               const san_expr *e, double *x, int64_t *count, san_diag *d)
{
    double lmax;
    int64_t c = initial_marks(sp, L, e, t->ch ? t->ch->dropped : NULL, x, &lmax);
    if (c < 0)
        return SAN_E_NOMEM;
    c = (int64_t)chain_sum(t, (double)c);
    if (c == 0) {
        san_diag_add(d, SAN_ERROR, 0, 0, "%s", e ? "--initial: no reachable state satisfies "
                     "the expression" : "no reachable state is accepted by the reachability "
                     "function: give --initial");
        return SAN_E_USAGE;
    }
    double total = (double)c;
    if (L) {
        lmax = chain_max(t, lmax);
        total = 0;
        for (int64_t i = 0; i < sp->n; i++)
            total += x[i] = exp(x[i] - lmax);
        total = chain_sum(t, total);
    }
    for (int64_t i = 0; i < sp->n; i++)
        x[i] /= total;
    *count = c;
    return SAN_OK;
}

static san_status initial(const top *t, const san_space *sp, const san_lumping *L,
                          const san_transient_opts *o, double *x, int64_t *count, san_diag *d)
{
    memset(x, 0, sp->n * sizeof *x);
    if (o->init_n > 0) {
        san_status st = init_from_vector(t, sp, L, o, x, d);
        *count = 0;
        for (int64_t i = 0; i < sp->n; i++)
            *count += x[i] > 0;
        *count = (int64_t)chain_sum(t, (double)*count);
        return st;
    }
    return init_uniform(t, sp, L, o->initial, x, count, d);
}

/* ---- budgets: memory and steps, before anything is allocated ---- */

static double vectors_needed(const san_analysis_opts *o)
{
    /* v, y, acc, x; xm and the target mask (passage); the integral;
     * the space-numbered copy for the indices */
    return 5 + (o->kind == SAN_ANALYSIS_PASSAGE ? 2 : 0) + (o->tr.rewards ? 2 : 0);
}

/* Before the storage's operator is built: the vectors, the operator
 * (the transposed generator, or the descriptor with its own vectors, as
 * san_kron_estimate_bytes counts it) and the space already held.  The
 * descriptor's vectors may live on the product space when the reachable
 * set fills at least KRON_PRODUCT_MIN_FILL of it: counted at that
 * length. */
static san_status check_memory(const san_analysis_opts *o, const san_analysis *a,
                               const psc_dchain *ch, san_diag *d)
{
    if (ch) {       /* this rank's part: its vectors beside its states and rows */
        const double need = vectors_needed(o) * 8.0 * (double)ch->local.n + ch->held;
        san_status st = need > ch->limit ? SAN_E_LIMIT : SAN_OK;
        if (ch->red.max(st != SAN_OK) > 0) {
            if (st != SAN_OK || ch->rank == 0)
                san_diag_add(d, SAN_ERROR, 0, 0, "the time-dependent analysis needs more than "
                             "--max-memory (%.1f MiB) on %s: %.0f vectors of its states beside "
                             "its rows of the generator; raise it or run more ranks",
                             ch->limit / (1 << 20), st != SAN_OK ? "this rank" : "a rank",
                             vectors_needed(o));
            return SAN_E_LIMIT;
        }
        return SAN_OK;
    }
    const san_space *sp = &a->sp;
    double limit = base_budget(o->space.max_memory);
    double npos = a->kron ? (double)sp->n / KRON_PRODUCT_MIN_FILL : (double)sp->n;
    double op = a->kron ? san_kron_estimate_bytes(sp->m, sp->n)
                        : 12.0 * (double)sp->q.rowptr[sp->n] + 8.0 * (double)(sp->n + 1);
    double need = vectors_needed(o) * 8.0 * npos + op + sp->bytes;
    if (need > limit) {
        san_diag_add(d, SAN_ERROR, 0, 0, "the time-dependent analysis needs ~%.1f MiB (%.0f "
                     "vectors of %.0f states, the %s, the state space), over --max-memory "
                     "(%.1f MiB)", need / (1 << 20), vectors_needed(o), npos,
                     a->kron ? "tensor descriptor" : "transposed generator",
                     limit / (1 << 20));
        return SAN_E_LIMIT;
    }
    return SAN_OK;
}

/* Products the series of every interval need (their right truncation
 * points), refused past max_steps: a stiff model (a large rate times a
 * long time) is told how many before it starts.  A passage (fit not
 * NULL) is not refused: *fit gets the number of times within the
 * limit, P(T <= t) beyond them is not computed (said), and P(reach),
 * the mean and the percentiles below are still answered. */
static san_status plan_steps(const san_transient_opts *o, double rate, double *steps, int *fit,
                             san_diag *d)
{
    double total = 0, prev = 0;
    int within = o->ntimes;
    for (int i = 0; i < o->ntimes; i++) {
        double lam = rate * (o->times[i] - prev);
        /* past the limit lam itself (below the right point) is the count:
         * the right point of lam = 6e12 takes seconds to place */
        const int over = total + lam > o->max_steps;
        int64_t r = over ? 0 : tr_fg_right(lam, o->eps, NULL);
        if (r < 0)
            return SAN_E_NOMEM;
        const double more = over ? lam : (double)r;
        if (within == o->ntimes && total + more > o->max_steps)
            within = i;
        total += more;
        prev = o->times[i];
    }
    *steps = total;
    if (fit) {
        *fit = within;
        if (within < o->ntimes)
            san_diag_add(d, SAN_WARNING, 0, 0, "P(T <= t) from t = %g: not computed: "
                         "uniformization would need over %.3g products (rate %.6g x time %.6g), "
                         "over the limit of %.3g (--max-steps)", o->times[within], total, rate,
                         o->times[o->ntimes - 1], o->max_steps);
        return SAN_OK;
    }
    if (total > o->max_steps) {
        san_diag_add(d, SAN_ERROR, 0, 0, "uniformization would need >= %.3g products (rate %.6g "
                     "x time %.6g): over the limit of %.3g (--max-steps); the model is stiff "
                     "for this horizon: ask for shorter times, or raise the limit",
                     total, rate, o->times[o->ntimes - 1], o->max_steps);
        return SAN_E_LIMIT;
    }
    return SAN_OK;
}

/* ---- the series ---- */

/* The series' failures other than a stop: the guard (a step left the
 * distributions) with what it saw, or the Poisson weights (a parameter
 * L dt past what they can hold, or out of memory).  what: the part of
 * the analysis. */
static san_status series_failed(const tr_unif *u, int rc, const char *what, san_diag *d)
{
    if (rc == SAN_UNIF_DIVERGED) {
        char msg[512];
        tr_unif_diverged_text(u, msg, sizeof msg);
        san_diag_add(d, SAN_ERROR, 0, 0, "%s: %s", what, msg);
        return SAN_E_NUMERIC;
    }
    san_diag_add(d, SAN_ERROR, 0, 0, "%s: the Poisson weights of the series could not be "
                 "computed (out of memory, or rate x interval too large)", what);
    return SAN_E_NOMEM;
}

typedef struct {
    const san_analysis_opts *o;
    san_analysis *a;
    top t;
    tr_unif u;
    double *x, *xs, *integ, *xm, *v, *y, *acc;
    char *absorb;
    int progress;           /* drawn by this process (rank 0 over MPI) */
    int ntimes;             /* times to march to: all of them, or those
                               within --max-steps (passage) */
} run;

static void run_free(run *r)
{
    free(r->x);
    free(r->xs);
    free(r->integ);
    free(r->xm);
    free(r->v);
    free(r->y);
    free(r->acc);
    free(r->absorb);
    top_free(&r->t);
}

static san_status run_alloc(run *r)
{
    const int64_t n = r->t.n, ns = states_of(&r->t, r->a)->n;
    r->x = malloc(n * sizeof *r->x);
    r->v = malloc(n * sizeof *r->v);
    r->y = malloc(n * sizeof *r->y);
    r->acc = malloc(n * sizeof *r->acc);
    r->xs = malloc((ns ? ns : 1) * sizeof *r->xs);
    int ok = r->x && r->v && r->y && r->acc && r->xs;
    if (ok && r->o->tr.rewards)
        ok = (r->integ = calloc(n, sizeof *r->integ)) != NULL;
    if (ok && r->o->kind == SAN_ANALYSIS_PASSAGE)
        ok = (r->xm = malloc(n * sizeof *r->xm)) && (r->absorb = calloc(n, 1));
    return ok ? SAN_OK : SAN_E_NOMEM;
}

/* The target set on the positions; its size. */
static int64_t mark_target(run *r)
{
    const san_space *sp = states_of(&r->t, r->a);
    const san_model *m = sp->m;
    int *s = malloc((m->naut + 1) * sizeof *s);
    const char *gone = r->t.ch ? r->t.ch->dropped : NULL;
    int64_t c = 0;
    for (int64_t i = 0; s && i < sp->n; i++) {
        if (gone && gone[i])
            continue;
        san_state_decode(m, sp->index[i], s);
        if (san_expr_eval(r->o->tr.until, s) != 0) {
            r->absorb[r->t.pos ? r->t.pos[i] : i] = SAN_ABSORB_TARGET;
            c++;
        }
    }
    free(s);
    return s ? (int64_t)chain_sum(&r->t, (double)c) : -1;
}

static double target_mass(const run *r, const double *x)
{
    double s = 0;
    for (int64_t j = 0; j < r->t.n; j++)
        if (r->absorb[j] == SAN_ABSORB_TARGET)
            s += x[j];
    return chain_sum(&r->t, s);
}

/* The indices of a vector on the positions into sol (pi left NULL). */
static san_status indices_of(run *r, const double *x, san_solution *sol, san_diag *d)
{
    if (r->t.ch)
        return r->t.ch->indices(r->t.ch, x, sol, d);
    memset(sol, 0, sizeof *sol);
    sol->info.lu_correction = -1;   /* none made */
    from_pos(&r->t, r->a->sp.n, x, r->xs);
    sol->pi = r->xs;
    san_status st = an_solution_indices(&r->a->sp, sol, 0, d);
    sol->pi = NULL;
    return st;
}

static san_status march(run *r, san_diag *d)
{
    an_time_answer *T = &r->a->tr;
    const san_transient_opts *o = &r->o->tr;
    double prev = 0;
    for (int i = 0; i < r->ntimes; i++) {
        if (r->progress) {
            fprintf(stderr, "\r  transient: t = %g (%d of %d), %ld products   ", o->times[i],
                    i + 1, o->ntimes, r->u.steps);
            fflush(stderr);
        }
        int rc = tr_unif_advance(&r->u, r->x, o->times[i] - prev);
        if (rc < 0 || rc == SAN_UNIF_DIVERGED)
            return series_failed(&r->u, rc, "transient", d);
        if (rc > 0) {
            san_diag_add(d, SAN_ERROR, 0, 0, "stopped at t = %g (%s): %d of %d times done",
                         prev, r->u.interrupt && *r->u.interrupt ? "interrupted"
                         : "time limit", i, o->ntimes);
            return SAN_E_INTERRUPTED;
        }
        prev = o->times[i];
        san_status st = indices_of(r, r->x, &T->at[i], d);
        if (st == SAN_OK && r->integ)
            st = indices_of(r, r->integ, &T->acc[i], d);
        if (st != SAN_OK)
            return st;
        if (T->cdf)
            T->cdf[i] = target_mass(r, r->x);
        T->ntimes = i + 1;
    }
    if (r->progress)
        fprintf(stderr, "\r%70s\r", "");
    return SAN_OK;
}

/* The options of the passage's steady-state solves: solve's, with the
 * interrupt flag and what is left of --time-limit. */
static san_solve_opts solve_opts_of(const run *r)
{
    san_solve_opts so = r->o->solve;
    so.interrupt = r->o->space.interrupt;
    so.progress = r->o->space.progress;
    if (r->u.deadline > 0)
        so.time_limit = fmax(1e-6, r->u.deadline - san_now());
    return so;
}

/* The mean by a steady-state solve on the rows pr (the sparse storage's,
 * or built beside the descriptor): 0 done (T filled), 1 the target can
 * be missed, -1 not applicable or failed: the series instead. */
static int passage_mean_solved(run *r, const passage_rows *pr, san_diag *d)
{
    an_time_answer *T = &r->a->tr;
    const san_space *sp = pr->sp;
    const double *alpha = pr->alpha;
    double nalpha = 0;
    for (int64_t i = 0; i < sp->n; i++)
        nalpha += alpha[i] > 0;
    double extra = nalpha * (double)T->ntarget;
    if (extra > SAN_REGEN_MAX_ENTRIES && extra > (double)sp->q.rowptr[sp->n])
        return -1;
    const san_solve_opts so = solve_opts_of(r);
    an_passage_mean pm;
    int rc = an_passage_mean_solve(sp, alpha, pr->target, &so, &pm);
    if (rc != 0)
        return rc;
    T->mean_info = pm.info;
    if (pm.status != SAN_OK) {
        san_diag_add(d, SAN_NOTE, 0, 0, "mean passage time: the solve of the regenerative chain "
                     "did not converge (%s): by the uniformization series instead",
                     pm.info.msg[0] ? pm.info.msg : san_status_name(pm.status));
        return -1;
    }
    T->mean = pm.mean;
    T->mean_solved = 1;
    T->mean_error_est = pm.rel_error;
    return 0;
}

/* The mean passage time and its check: h, the expected time in each
 * state before absorption, solves h (-Q_TT) = alpha_T; the residual of
 * that system is one more product. */
/* The mean (and P(reach) when not known) by the series.  marked: the
 * states of the closed classes without a target state are absorbing
 * (SAN_ABSORB_MISSED), so no mass can be held legitimately outside: a
 * series whose mass stops moving then has met a passage too long for
 * it, not a target missed. */
static san_status passage_mean(run *r, const double *alpha, int known, int marked,
                               san_diag *d)
{
    an_time_answer *T = &r->a->tr;
    const int64_t n = r->t.n;
    double *h = r->acc;             /* free once the times are done */
    const long before = r->u.steps;
    double reach;
    int rc = tr_unif_mean(&r->u, alpha, r->o->tr.mean_tol, r->o->tr.max_steps, &T->mean,
                           &reach, h);
    T->mean_steps = r->u.steps - before;
    if (rc == 1) {
        san_diag_add(d, SAN_ERROR, 0, 0, "mean passage time: interrupted");
        return SAN_E_INTERRUPTED;
    }
    if (rc < 0 || rc == SAN_UNIF_DIVERGED)
        return series_failed(&r->u, rc, "mean passage time", d);
    if (rc == SAN_UNIF_HELD)
        T->mean = HUGE_VAL;
    /* the series' mass unmoved over a step says "held where the target
     * cannot be reached"; when the target is reached surely, or every
     * state that misses it is absorbing, it only says the passage is too
     * long for the series (mean 1e16: a decay of 1e-16 a product) */
    const int too_long = rc == SAN_UNIF_HELD && ((known && T->reach == 1) || marked);
    if (!known)
        T->reach = too_long ? NAN : reach;
    if (rc == 2 || too_long) {
        if (too_long)
            san_diag_add(d, SAN_WARNING, 0, 0, "%s: not computed: the passage is too long for "
                         "the uniformization series (its mass outside the target moved by "
                         "less than 1e-14 relative in a product, after %ld products)",
                         known ? "mean passage time" : "P(reach) and the mean passage time",
                         T->mean_steps);
        else
            san_diag_add(d, SAN_WARNING, 0, 0, "mean passage time: not computed: the "
                         "uniformization series did not converge within %.3g products "
                         "(--max-steps)", r->o->tr.max_steps);
        T->mean = NAN;
        if (rc == 2 && !known)
            T->reach = NAN;
        T->incomplete = 1;
        return SAN_OK;
    }
    if (!isfinite(T->mean))
        return SAN_OK;
    num_op_apply(&r->t.op, h, r->y);
    double res = 0, amax = 0;
    for (int64_t j = 0; j < n; j++)
        if (!r->absorb[j]) {
            res = fmax(res, fabs(r->y[j] + alpha[j]));
            amax = fmax(amax, alpha[j]);
        }
    res = chain_max(&r->t, res);
    amax = chain_max(&r->t, amax);
    T->mean_resid = amax > 0 ? res / amax : 0;
    return SAN_OK;
}

/* Bisection on [t0, t1] for the level q: xa is pi at t0 (moved along
 * with the left end), xb scratch.  Moving xa makes the bisection cost
 * about two steps' products instead of one per probe (35 probes to
 * 1e-10), for a truncation of eps per move added to the CDF (35 eps:
 * 3.5e-12 at the default). */
static int bisect_level(run *r, double *xa, double *xb, double t0, double t1, double q,
                        double *out)
{
    const size_t bytes = r->t.n * sizeof *xb;
    while (t1 - t0 > 1e-10 * t1) {
        double mid = 0.5 * (t0 + t1);
        memcpy(xb, xa, bytes);
        r->u.ss_at = -1;
        int rc = tr_unif_advance(&r->u, xb, mid - t0);
        if (rc != 0)
            return rc;
        if (target_mass(r, xb) >= q) {
            t1 = mid;
        } else {
            memcpy(xa, xb, bytes);
            t0 = mid;
        }
    }
    *out = t1;
    return 0;
}

/* The products the march to level q takes, planned before it starts as
 * the series' are (plan_steps): a passage long enough for the plan to
 * matter is nearly exponential (a far target is reached after many
 * returns to where it started), its level q near t = -mean ln(1 - q);
 * the march costs rate t products, the bisection of its last step of
 * mean/8 about two steps more.  A plan, not a bound: the march keeps
 * its own count against --max-steps. */
static double percentile_plan(double rate, double mean, double q)
{
    return rate * mean * (-log1p(-q) + 0.25);
}

/* Levels from first on whose plan passes --max-steps: not computed,
 * said before anything is marched (a 70-state chain of mean 2.1e7 once
 * marched 215 s to find its median past the limit).  Returns the first
 * level refused (nlevels: none); *planned gets the plan of the last
 * level kept. */
static int plan_percentiles(run *r, double *planned, san_diag *d)
{
    an_time_answer *T = &r->a->tr;
    const san_transient_opts *o = &r->o->tr;
    *planned = 0;
    for (int i = 0; i < o->nlevels; i++) {
        const double q = o->levels[i];
        if (q >= T->reach * (1 - 1e-9))
            break;              /* infinite: no march */
        const double p = percentile_plan(T->rate, T->mean, q);
        if (p > o->max_steps) {
            san_diag_add(d, SAN_WARNING, 0, 0, "percentiles from %g%%: not computed: the "
                         "march to them would need about %.3g products (rate %.6g x about t "
                         "= -mean ln(1 - %g) = %.3g, and the bisection), over the limit of "
                         "%.3g (--max-steps)", 100 * q, p, T->rate, q, -T->mean * log1p(-q),
                         o->max_steps);
            for (int k = i; k < o->nlevels; k++)
                if (!isinf(T->pct[k]))
                    T->pct[k] = NAN;
            T->incomplete = 1;
            return i;
        }
        *planned = p;
    }
    return o->nlevels;
}

/* The percentiles of T: march forward from one uniformization step,
 * doubling the step up to an eighth of the mean (the CDF crosses each
 * level within a few steps), then bisect the step that crosses it;
 * the levels whose march is planned past --max-steps are refused
 * before it starts (plan_percentiles).  When the target may never be
 * reached the mean is infinite and says nothing of the time scale,
 * though every level below the probability of reaching it has its
 * percentile: the step doubles without end, so that a percentile t
 * costs about 2 t rate products (every level came out NaN there
 * before), and the march's own count is the only bound. */
static san_status passage_percentiles(run *r, const double *alpha, san_diag *d)
{
    an_time_answer *T = &r->a->tr;
    const san_transient_opts *o = &r->o->tr;
    const int64_t n = r->t.n;
    const long before = r->u.steps;
    for (int i = 0; i < o->nlevels; i++)
        T->pct[i] = o->levels[i] >= T->reach * (1 - 1e-9) ? INFINITY : NAN;
    if (isnan(T->reach) && o->nlevels > 0) {
        san_diag_add(d, SAN_WARNING, 0, 0, "percentiles: not computed: P(reach) is not known "
                     "(see above)");
        T->incomplete = 1;
        return SAN_OK;
    }
    const int doubling = !(isfinite(T->mean) && T->mean > 0);
    if (doubling && !(T->reach > 0 && T->rate > 0))
        return SAN_OK;
    double *xa = malloc(n * sizeof *xa), *xb = malloc(n * sizeof *xb);
    double *xc = malloc(n * sizeof *xc);
    if (!xa || !xb || !xc) {
        free(xa);
        free(xb);
        free(xc);
        return SAN_E_NOMEM;
    }
    memcpy(xa, alpha, n * sizeof *xa);
    /* the step starts at one uniformization step and doubles up to an
     * eighth of the mean: a level reached early (most passages short,
     * a few very long) costs about twice its time, not a step of mean/8 */
    const double hmax = doubling ? HUGE_VAL : T->mean / 8;
    double h = fmin(1 / T->rate, hmax);
    double t = 0, planned = 0;
    int rc = 0;
    const int nlevels = doubling ? o->nlevels : plan_percentiles(r, &planned, d);
    T->steps_planned += planned;
    for (int i = 0; i < nlevels && rc == 0; i++) {
        const double q = o->levels[i];
        /* at or above P(reach) (within its rounding) the CDF never gets
         * to q: the percentile, inf{t : P(T <= t) >= q}, is infinite (a
         * march to q = P(reach) stopped at a rounding artefact) */
        if (q >= T->reach * (1 - 1e-9)) {
            T->pct[i] = INFINITY;
            continue;
        }
        if (target_mass(r, xa) >= q) {
            T->pct[i] = t;
            continue;
        }
        for (;;) {
            /* the march's products against --max-steps, before each step
             * (a far target's mean of 1e16 makes a first step of 1e16) */
            const double lam = T->rate * h;
            const double more = lam > 1e15 ? HUGE_VAL : (double)tr_fg_right(lam, r->o->tr.eps,
                                                                            NULL);
            if ((double)(r->u.steps - before) + 2 * more > o->max_steps) {
                for (int k = i; k < nlevels; k++)
                    if (isnan(T->pct[k]) || !isinf(T->pct[k]))
                        T->pct[k] = NAN;
                san_diag_add(d, SAN_WARNING, 0, 0, "percentiles from %g%%: not computed: the "
                             "march to them would pass %.3g products (--max-steps) at t = "
                             "%.6g", 100 * q, o->max_steps, t + h);
                T->incomplete = 1;
                i = nlevels;
                break;
            }
            memcpy(xb, xa, n * sizeof *xb);
            r->u.ss_at = -1;
            if ((rc = tr_unif_advance(&r->u, xb, h)) != 0)
                break;
            if (target_mass(r, xb) >= q) {
                /* the bisection moves its own copy of xa: the march
                 * resumes from xa at t for the next level */
                memcpy(xc, xa, n * sizeof *xc);
                rc = bisect_level(r, xc, xb, t, t + h, q, &T->pct[i]);
                break;
            }
            memcpy(xa, xb, n * sizeof *xa);
            t += h;
            h = fmin(2 * h, hmax);
        }
    }
    T->pct_steps = r->u.steps - before;
    free(xa);
    free(xb);
    free(xc);
    if (rc < 0 || rc == SAN_UNIF_DIVERGED)
        return series_failed(&r->u, rc, "percentiles", d);
    if (rc > 0) {
        san_diag_add(d, SAN_ERROR, 0, 0, "percentiles: %s", r->u.interrupt && *r->u.interrupt
                     ? "interrupted" : "time limit reached");
        return SAN_E_INTERRUPTED;
    }
    return SAN_OK;
}

/* What the closed classes say, without the generator's rows (the
 * descriptor's fallback): every state ends in a closed class, and in
 * one that holds a target state every state reaches it.  1: every class
 * holds one, the target is reached surely; 0: the states of the classes
 * without one are marked SAN_ABSORB_MISSED (entering them is missing the
 * target); -1: no class information (MPI ranks), out of memory. */
static int classes_verdict(run *r)
{
    const san_space *sp = &r->a->sp;
    if (r->t.ch || !sp->in_closed || sp->nclasses < 1 || (sp->nclasses > 1 && !sp->cls))
        return -1;
    char *hit = calloc(sp->nclasses, 1);
    if (!hit)
        return -1;
    for (int64_t i = 0; i < sp->n; i++)
        if (sp->in_closed[i] && r->absorb[r->t.pos ? r->t.pos[i] : i] == SAN_ABSORB_TARGET)
            hit[sp->cls ? sp->cls[i] : 0] = 1;
    int all = 1;
    for (int64_t c = 0; c < sp->nclasses; c++)
        all = all && hit[c];
    for (int64_t i = 0; !all && i < sp->n; i++)
        if (sp->in_closed[i] && !hit[sp->cls ? sp->cls[i] : 0])
            r->absorb[r->t.pos ? r->t.pos[i] : i] = SAN_ABSORB_MISSED;
    free(hit);
    return all;
}

/* What --max-memory leaves beside the descriptor's run for the rows of
 * the passage's solves (check_memory's count of what is held). */
static double rows_room(const run *r)
{
    const san_analysis_opts *o = r->o;
    const san_space *sp = &r->a->sp;
    double limit = base_budget(o->space.max_memory);
    double held = vectors_needed(o) * 8.0 * (double)r->t.n + sp->bytes +
                  san_kron_estimate_bytes(sp->m, sp->n);
    return limit - held;
}

/* PASSAGE after the times: P(reach), the mean, the percentiles.  Both
 * P(reach) and the mean by linear solves on the generator's rows when
 * they are at hand (passage.c): the series' mass cannot tell a target
 * missed from a passage of mean 1e16.  Without rows (MPI ranks, or a
 * descriptor whose rows do not fit): P(reach) = 1 from the classes when
 * it is, else from the series; the mean by the series. */
static san_status passage_figures(run *r, const double *alpha, san_diag *d)
{
    an_time_answer *T = &r->a->tr;
    passage_rows pr;
    int have = 1;
    san_space_opts po = r->o->space;    /* the rows' exploration: what is left of the time */
    if (r->u.deadline > 0)
        po.time_limit = fmax(1e-6, r->u.deadline - san_now());
    if (!r->t.ch)
        have = passage_rows_get(&pr, &r->a->sp, r->t.pos, alpha, r->absorb, &po,
                                r->t.kron ? rows_room(r) : 0, d);
    if (have < 0)
        return SAN_E_NOMEM;
    int known = 0;
    T->reach_how = SAN_REACH_SERIES;
    if (have == 0) {
        san_solve_info info;
        /* the solver's own message (up to its 255 characters) after
         * "the solve of the regenerative chain: ": whole, not cut
         * mid-word ("raise --max-ite") */
        char msg[sizeof info.msg + 128];
        int exact = 0;
        const san_solve_opts so = solve_opts_of(r);
        if (an_passage_reach_solve(pr.sp, pr.alpha, pr.target, &so, &T->reach, &exact, &info,
                                    msg, sizeof msg) == 0) {
            known = 1;
            T->reach_how = exact ? SAN_REACH_GRAPH : SAN_REACH_SOLVE;
            T->reach_info = info;
        } else {
            san_diag_add(d, SAN_NOTE, 0, 0, "P(reach): not solved (%s): by the uniformization "
                         "series instead", msg);
        }
    }
    int marked = 0;
    if (!known) {
        const int v = classes_verdict(r);
        if (v == 1) {
            T->reach = 1;
            known = 1;
            T->reach_how = SAN_REACH_GRAPH;
        }
        marked = v == 0;
    }
    san_status st = SAN_OK;
    if (known && T->reach < 1) {
        T->mean = HUGE_VAL;     /* T = infinity with probability 1 - reach */
    } else {
        /* the regenerative mean wants P(reach) = 1 known (and the
         * target alone marked: classes_verdict may have marked more) */
        int solved = have == 0 && known ? passage_mean_solved(r, &pr, d) : -1;
        if (solved != 0)
            st = passage_mean(r, alpha, known, marked, d);
    }
    if (have == 0)
        passage_rows_free(&pr);
    if (st == SAN_OK && r->o->tr.nlevels > 0)
        st = passage_percentiles(r, alpha, d);
    return st;
}

static san_status alloc_answer(san_analysis *a, const san_analysis_opts *o)
{
    an_time_answer *T = &a->tr;
    T->times = malloc((o->tr.ntimes + 1) * sizeof *T->times);
    T->at = calloc(o->tr.ntimes + 1, sizeof *T->at);
    T->acc = o->tr.rewards ? calloc(o->tr.ntimes + 1, sizeof *T->acc) : NULL;
    T->cdf = o->kind == SAN_ANALYSIS_PASSAGE ? calloc(o->tr.ntimes + 1, sizeof *T->cdf) : NULL;
    /* over MPI ranks no rank holds the whole vector: not kept */
    T->pi_last = o->engine == SAN_ENGINE_PETSC
                     ? NULL : malloc((a->sp.n ? a->sp.n : 1) * sizeof *T->pi_last);
    T->pct = calloc(o->tr.nlevels + 1, sizeof *T->pct);
    if (!T->pct)
        return SAN_E_NOMEM;
    if (!T->times || !T->at || (o->tr.rewards && !T->acc) ||
        (o->kind == SAN_ANALYSIS_PASSAGE && !T->cdf) ||
        (!T->pi_last && o->engine != SAN_ENGINE_PETSC))
        return SAN_E_NOMEM;
    if (o->tr.ntimes)
        memcpy(T->times, o->tr.times, o->tr.ntimes * sizeof *T->times);
    a->have_tr = 1;
    return SAN_OK;
}

static san_status check_times(const san_transient_opts *o, san_diag *d)
{
    for (int i = 0; i < o->ntimes; i++)
        if (!(o->times[i] >= 0) || !isfinite(o->times[i]) || (i && o->times[i] < o->times[i - 1])) {
            san_diag_add(d, SAN_ERROR, 0, 0, "times must be finite, >= 0 and ascending");
            return SAN_E_USAGE;
        }
    return SAN_OK;
}

san_status an_transient(const san_analysis_opts *o, san_analysis *a,
                                  psc_dchain *ch, double deadline, san_diag *d)
{
    const int passage = o->kind == SAN_ANALYSIS_PASSAGE;
    if (passage && !o->tr.until) {
        san_diag_add(d, SAN_ERROR, 0, 0, "passage: no target set (--until)");
        return SAN_E_USAGE;
    }
    san_status st = check_times(&o->tr, d);
    if (st == SAN_OK && o->tr.ntimes == 0 && !passage) {
        san_diag_add(d, SAN_ERROR, 0, 0, "transient: no time given (--time)");
        st = SAN_E_USAGE;
    }
    if (st != SAN_OK)
        return st;
    run r = { .o = o, .a = a, .progress = o->space.progress && (!ch || ch->rank == 0) };
    st = check_memory(o, a, ch, d);
    if (st == SAN_OK)
        st = top_build(&r.t, a, ch, d);
    if (st == SAN_OK)
        st = alloc_answer(a, o);
    an_time_answer *T = &a->tr;
    T->rate = (r.t.op.maxd > 0 ? r.t.op.maxd : 1) * SAN_UNIF_MARGIN;
    T->ss_at = -1;
    if (st == SAN_OK)
        st = plan_steps(&o->tr, T->rate, &T->steps_planned, passage ? &r.ntimes : NULL, d);
    if (!passage)
        r.ntimes = o->tr.ntimes;
    if (r.ntimes < o->tr.ntimes)
        T->incomplete = 1;
    if (st == SAN_OK)
        st = run_alloc(&r);
    if (st == SAN_OK)
        st = initial(&r.t, states_of(&r.t, a), a->lumping, &o->tr, r.xs, &T->ninit, d);
    if (st == SAN_OK && passage && (T->ntarget = mark_target(&r)) < 0)
        st = SAN_E_NOMEM;
    if (st == SAN_OK && passage && T->ntarget == 0)
        san_diag_add(d, SAN_WARNING, 0, 0, "--until: no reachable state satisfies the "
                     "expression: the target is never reached");
    if (st != SAN_OK) {
        run_free(&r);
        return st;
    }
    to_pos(&r.t, states_of(&r.t, a)->n, r.xs, r.x);
    if (passage)
        T->p_init = target_mass(&r, r.x);
    /* the count before starting: on the terminal, and as a note when
     * the run is long enough to matter */
    if (r.progress)
        fprintf(stderr, "  uniformization: rate %.6g, ~%.0f products planned\n", T->rate,
                T->steps_planned);
    if (T->steps_planned >= STEPS_NOTE)
        san_diag_add(d, SAN_NOTE, 0, 0, "uniformization: rate %.6g, ~%.0f products planned "
                     "(Fox-Glynn eps %.1e per interval)", T->rate, T->steps_planned, o->tr.eps);
    r.u = (tr_unif){ .op = &r.t.op, .rate = T->rate, .eps = o->tr.eps, .ss_tol = o->tr.ss_tol,
                      .absorb = r.absorb, .interrupt = o->space.interrupt, .deadline = deadline,
                      .red = ch ? &ch->red : NULL,
                      .v = r.v, .y = r.y, .acc = r.acc, .xm = r.xm, .integ = r.integ,
                      .ss_at = -1 };
    double *alpha = NULL;
    if (passage && (alpha = malloc(r.t.n * sizeof *alpha)))
        memcpy(alpha, r.x, r.t.n * sizeof *alpha);
    if (passage && !alpha)
        st = SAN_E_NOMEM;
    if (st == SAN_OK)
        st = march(&r, d);
    if (st == SAN_OK && T->pi_last)
        from_pos(&r.t, a->sp.n, r.x, T->pi_last);
    if (st == SAN_OK && ch && o->engine_keep_vector)    /* for san_engine_vector */
        st = ch->keep(ch, r.x, &a->engine, d);
    T->trunc = r.u.trunc_sum;
    T->ss_at = r.u.ss_at;
    if (st == SAN_OK && passage) {
        r.u.ss_at = -1;
        T->mean_error_est = NAN;
        st = passage_figures(&r, alpha, d);
    }
    T->steps = r.u.steps;
    T->product_s = r.t.op.product_s;
    free(alpha);
    run_free(&r);
    return st;
}

void an_transient_free(const san_model *m, an_time_answer *T)
{
    for (int i = 0; T->at && i < T->ntimes; i++)
        space_solution_clear(m, &T->at[i]);
    for (int i = 0; T->acc && i < T->ntimes; i++)
        space_solution_clear(m, &T->acc[i]);
    free(T->at);
    free(T->acc);
    free(T->times);
    free(T->cdf);
    free(T->pct);
    free(T->pi_last);
    memset(T, 0, sizeof *T);
}
