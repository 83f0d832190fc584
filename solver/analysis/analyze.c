/*
 * analyze.c - the one analysis pipeline: a compiled model in, its state
 * space, its solution and its indices out.  Every subcommand that
 * solves goes through here (solve, sweep, compare, size-buffer, grain,
 * the fuzzers), so that they agree on everything: the storage chosen,
 * the fallback to the tensor descriptor, the time limit, the checks.
 *
 *   1. the reachable states: with the sparse generator (storage sparse
 *      or auto), or numbered only (kron);
 *   2. auto storage: a sparse build over the memory limit (SAN_E_LIMIT,
 *      a status, not a message) is done again without the generator,
 *      and solved over the tensor descriptor, with a note;
 *   3. the tensor path's class check (the sparse build made its own);
 *   4. the solve, with what is left of the time limit (several closed
 *      classes: each class's, weighed by its reach probability from the
 *      initial distribution, long_run.c);
 *   5. the indices (results, marginals, throughputs, top states) and
 *      the other storage's estimated size.
 *
 * space_only stops after step 3: the exports want the chain, not its
 * solution.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "base/services.h"
#include "solver/analysis/estimate.h"
#include "solver/analysis/indices.h"
#include "solver/analysis/steady.h"
#include "solver/kron/kron.h"
#include "solver/numeric/linsolve.h"
#include "solver/analysis/transient_int.h"
#include "solver/petsc/petsc_solve.h"
#include "solver/analysis/lumped.h"
#include "solver/space/idmap.h"
#include "solver/analysis/storage_choice.h"
#include "solver/analysis/long_run.h"
#include "lang/model_int.h"
#include "solver/analysis/analysis_int.h"

void san_analysis_opts_default(san_analysis_opts *o)
{
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    san_solve_opts_default(&o->solve);
    san_space_opts_default(&o->space);
    o->storage = SAN_STORAGE_AUTO;
    o->tr.eps = 1e-13;
    o->tr.ss_tol = 1e-15;
    o->tr.max_steps = 1e8;
    o->tr.mean_tol = 1e-12;
}

int san_engine_rank(int *size)
{
    return psc_rank(size);
}

san_status san_engine_vector(const san_analysis *a,
                             int (*row)(void *ctx, int64_t index, double p), void *ctx)
{
    return a->engine ? psc_vector(a->engine, row, ctx) : SAN_E_USAGE;
}

void an_analysis_clear(san_analysis *a)
{
    psc_vector_free(a->engine);
    if (a->have_tr)
        an_transient_free(a->m, &a->tr);
    if (a->have_sol)
        space_solution_clear(a->m, &a->sol);
    if (a->have_space)
        space_clear(&a->sp);
    san_lumping_free(a->lumping);
    long_run_free(&a->classes);
    memset(a, 0, sizeof *a);
}

/* Seconds left of a limit counted from t0 (0: no limit; at least 1 us
 * when the limit is set, so that 0 does not turn it off). */
static double time_left(double limit, double t0)
{
    if (!(limit > 0))
        return 0;
    double left = limit - (san_now() - t0);
    return left > 1e-6 ? left : 1e-6;
}

/* The indices of a solve stopped by the time limit are what its report
 * shows (the best vector's results, with its residual): they get
 * INDICES_GRACE seconds past the limit, enough for a model of 10^5
 * states (milliseconds), and are given up on one of 10^7 (every event's
 * rate in every state: seconds), so that the run ends near its limit. */
#define INDICES_GRACE 0.5

/* Probabilities below the smallest normal double are answers, not
 * failures: a tandem queue of capacity 127 has states of 1e-305 to
 * 1e-312, which the sweeps reach as subnormals (holding a few digits
 * of noise) or as 0.  The states of the closed class (all positive in
 * truth) below DBL_MIN are set to 0 and counted for the report; what
 * they carry (under n 2.2e-308) changes no index. */
static void flush_underflow(const san_space *sp, const san_classes *C, san_solution *sol)
{
    int64_t k = 0;
    for (int64_t i = 0; i < sp->n; i++) {
        if (sp->in_closed && !sp->in_closed[i])
            continue;
        if (C->n > 1 && !(C->reach[sp->cls[i]] > 0))
            continue;           /* a closed class never reached: 0 in truth */
        if (sol->pi[i] < DBL_MIN) {
            sol->pi[i] = 0;
            k++;
        }
    }
    sol->info.underflow = k;
}

static double indices_deadline(const san_analysis_opts *o, double t0)
{
    if (!(o->time_limit > 0))
        return 0;
    return fmax(t0 + o->time_limit, san_now()) + INDICES_GRACE;
}

/* The diagnostics of tmp into d; tmp is freed. */
static void diag_move(san_diag *d, san_diag *tmp)
{
    for (int i = 0; i < tmp->n; i++)
        san_diag_add(d, tmp->items[i].sev, tmp->items[i].line, tmp->items[i].col, "%s",
                     tmp->items[i].msg);
    san_diag_clear(tmp);
}

/* Step 2's prediction (storage_choice.c): auto storage, for a steady
 * state by auto's method (the model's; a named method keeps "sparse
 * when it fits": gs, sor, direct and ml have no descriptor version)
 * over more than STORAGE_SMALL_PRODUCT product states, numbers the
 * reachable states without Q (what the tensor path needs anyway),
 * estimates Q's nonzeros from a sample of them and the descriptor from
 * their count, and picks.  The states-only space is kept in a->sp for
 * kron, freed for sparse (its build explores again: tss9, 1,987,983
 * states, 0.26 s of a 0.94 s sparse build, idle).  Below the threshold
 * sparse is built at once (rule "small"). */
static san_status choose_storage(const san_model *m, const san_analysis_opts *o,
                                 const san_space_opts *po, san_analysis *a, san_diag *d,
                                 double *t_spent)
{
    san_storage_choice *c = &a->choice;
    memset(c, 0, sizeof *c);
    c->budget = base_budget(o->space.max_memory);
    if (m->product_fits && m->product <= STORAGE_SMALL_PRODUCT) {
        c->rule = SAN_PICK_SMALL;
        c->pick = SAN_STORAGE_SPARSE;
        return SAN_OK;
    }
    san_space_opts so = *po;
    so.states_only = 1;
    san_diag tmp;       /* the sparse build would say it again */
    san_diag_init(&tmp, d->file, NULL, 0);
    san_status st = san_space_build(m, &so, &a->sp, &tmp);
    if (st != SAN_OK) {
        diag_move(d, &tmp);
        return st;
    }
    a->have_space = 1;
    c->states = (double)a->sp.n;
    c->nonzeros = est_nonzeros_of(m, a->sp.index, a->sp.n);
    if (!(c->nonzeros > 0))             /* not sampled: one a state at least */
        c->nonzeros = c->states;
    c->kron_bytes = san_kron_estimate_bytes(m, a->sp.n);
    c->map_bytes = idmap_estimate(m, c->states, c->budget);
    storage_predict(c);
    storage_rule(c);
    if (c->pick == SAN_STORAGE_SPARSE) {
        *t_spent = a->sp.t_explore;
        space_clear(&a->sp);
        a->have_space = 0;
        san_diag_clear(&tmp);
    } else {
        diag_move(d, &tmp);
    }
    return SAN_OK;
}

/* Steps 1 to 3. */
static san_status build(const san_model *m, const san_analysis_opts *o, double t0,
                        san_analysis *a, san_diag *d)
{
    san_space_opts po = o->space;
    po.time_limit = time_left(o->time_limit, t0);
    /* pi(t) and passage times are defined whatever the closed classes
     * (an absorbing success beside an absorbing failure), and so is the
     * chain an export writes (space_only: no steady state is asked); a
     * steady state from the reachability function is not, unless from
     * the initial distribution: each closed class weighed by the
     * probability of reaching it (long_run.c) */
    po.several_closed = o->kind != SAN_ANALYSIS_STEADY || o->space_only;
    po.several_steady = !po.several_closed;
    a->kron = o->storage == SAN_STORAGE_KRON;
    san_status st;
    double t_predict = 0;       /* a states-only exploration done for nothing */
    if (o->storage == SAN_STORAGE_AUTO && o->kind == SAN_ANALYSIS_STEADY &&
        o->solve.method == SAN_M_AUTO) {
        st = choose_storage(m, o, &po, a, d, &t_predict);
        if (st != SAN_OK)
            return st;
        a->kron = a->choice.pick == SAN_STORAGE_KRON;
    }
    if (!a->kron) {
        san_diag tmp;
        san_diag_init(&tmp, d->file, NULL, 0);
        po.time_limit = time_left(o->time_limit, t0);
        st = san_space_build(m, &po, &a->sp, &tmp);
        if (st != SAN_E_LIMIT || o->storage != SAN_STORAGE_AUTO) {
            diag_move(d, &tmp);
            a->have_space = st == SAN_OK;
            a->sp.t_explore += t_predict;       /* the report counts it */
            return st;
        }
        san_diag_clear(&tmp);
        san_diag_add(d, SAN_NOTE, 0, 0, "the sparse generator does not fit in --max-memory: "
                     "solving over the tensor descriptor (--storage kron)");
        a->kron = a->fell_back = 1;
        if (a->choice.rule != SAN_PICK_NONE) {
            a->choice.rule = SAN_PICK_FELL_BACK;
            a->choice.pick = SAN_STORAGE_KRON;
        }
    }
    if (!a->have_space) {
        po.states_only = 1;
        po.time_limit = time_left(o->time_limit, t0);
        st = san_space_build(m, &po, &a->sp, d);
        if (st != SAN_OK)
            return st;
        a->have_space = 1;
    }
    double t = san_now();
    base_progress p;
    base_progress_init(&p, po.progress, 0);
    base_progress_draw(&p, 1, "  checking the classes of %lld states", (long long)a->sp.n);
    po.time_limit = time_left(o->time_limit, t0);
    st = san_kron_check_classes(&a->sp, &po, d);
    base_progress_end(&p, 1);
    a->sp.t_check = san_now() - t;
    if (st != SAN_OK) {
        space_clear(&a->sp);
        a->have_space = 0;
    }
    return st;
}

/* The solvers name the limit they were given ("time limit of 0.0093 s
 * reached ..."), which is what the exploration left of --time-limit:
 * the user asked 0.01 s and read of another limit.  Their message is
 * kept but for that number, which becomes the limit asked. */
static void name_time_limit(san_solve_info *info, double asked)
{
    static const char head[] = "time limit of ";
    const char *rest = strstr(info->msg, " s reached");
    if (!(asked > 0) || strncmp(info->msg, head, sizeof head - 1) || !rest)
        return;
    char buf[sizeof info->msg];
    snprintf(buf, sizeof buf, "the time limit of %g s (--time-limit)%s", asked, rest + 2);
    memcpy(info->msg, buf, sizeof buf);
}

/* Step 4 on a's space and storage: the solve, with what is left of the
 * time limit and of --max-memory beside the space. */
static san_status solve_space(const san_analysis_opts *o, double t0, san_analysis *a,
                              san_diag *d)
{
    san_solve_opts so = o->solve;
    if (o->time_limit > 0)
        so.time_limit = so.time_limit > 0 ? fmin(so.time_limit, time_left(o->time_limit, t0))
                                          : time_left(o->time_limit, t0);
    /* the solve has what --max-memory leaves beside the space */
    const double limit = base_budget(o->space.max_memory);
    so.max_memory = fmax(limit - a->sp.bytes, 1);
    san_status st;
    if (o->time_limit > 0 && san_now() - t0 >= o->time_limit) {
        san_diag_add(d, SAN_ERROR, 0, 0, "the time limit was reached before the solve (after "
                     "%.1f s of exploration and checks); raise --time-limit", a->t_space);
        return SAN_E_INTERRUPTED;
    }
    const double ts = san_now();
    if (a->sp.nclasses > 1)     /* several closed classes: each on its own */
        st = long_run_solve(o, &so, a, d);
    else if (a->kron)
        st = num_ls_status(kron_solve(&a->sp, &so, &a->sol, &a->kron_bytes), &a->sol.info);
    else
        st = an_solve(&a->sp, &so, &a->sol);
    a->t_solve += san_now() - ts;
    if (so.time_limit != o->solve.time_limit)
        name_time_limit(&a->sol.info, o->time_limit);
    a->ranks = 1;
    a->have_sol = 1;
    return st;
}

/* auto picked kron by its prediction (faster, or smaller and nearly as
 * fast: the sparse generator fits too) and the descriptor's methods did
 * not converge: the sparse path, whose auto has more to fall back on
 * (ILU(0), ml, a direct solve), is built and solved instead, rule
 * "retried".  cluster64 (--lump off) is one the descriptor does not
 * answer (BiCGSTAB, then iad, stagnate; exit 1 on main).  1: a now
 * holds the sparse space, ready for solve_space. */
static int retry_sparse(const san_analysis_opts *o, double t0, san_analysis *a)
{
    san_storage_choice *c = &a->choice;
    const volatile int *intr = o->solve.interrupt;
    if (!a->kron || c->pick != SAN_STORAGE_KRON || a->sp.nclasses > 1 ||
        (c->rule != SAN_PICK_FASTER && c->rule != SAN_PICK_SMALLER) || (intr && *intr) ||
        (o->time_limit > 0 && san_now() - t0 >= o->time_limit))
        return 0;
    san_space_opts po = o->space;
    po.time_limit = time_left(o->time_limit, t0);
    san_space sp;
    san_diag tmp;       /* the states-only build said it all already */
    san_diag_init(&tmp, NULL, NULL, 0);
    const double t = san_now();
    san_status st = san_space_build(a->m, &po, &sp, &tmp);
    san_diag_clear(&tmp);
    a->t_space += san_now() - t;
    if (st != SAN_OK)
        return 0;       /* the descriptor's answer stays */
    space_solution_clear(a->m, &a->sol);
    space_clear(&a->sp);
    a->sp = sp;
    a->have_sol = 0;
    a->kron = 0;
    a->kron_bytes = 0;
    c->pick = SAN_STORAGE_SPARSE;
    c->rule = SAN_PICK_RETRIED;
    return 1;
}

/* What the PETSc engine found (its psc_answer: the engine, a layer
 * below, never sees an analysis) into a, which holds nothing else yet
 * but its model and lumping; the engine is named once it has made the
 * counts (ranks), as the reports read it. */
static void take_engine_answer(san_analysis *a, const psc_answer *e)
{
    a->sp = e->sp;
    a->sol = e->sol;
    a->have_space = e->have_space;
    a->have_sol = e->have_sol;
    a->have_indices = e->have_indices;
    a->ranks = e->ranks;
    a->nonzeros = e->nonzeros;
    a->rank_bytes = e->rank_bytes;
    a->t_space = e->t_space;
    a->t_solve = e->t_solve;
    a->engine = e->kept;
    a->engine_used = e->ranks > 0 ? SAN_ENGINE_PETSC : SAN_ENGINE_SERIAL;
}

/* --engine petsc: the steady state over the ranks, or the chain over
 * them for pi(t) and passage times (an_transient over its parts). */
static san_status analyze_petsc(const san_model *m, const san_analysis_opts *o, double t0,
                                san_analysis *a, san_diag *d)
{
    psc_answer e;
    if (o->kind == SAN_ANALYSIS_STEADY) {
        san_status st = psc_analyze(m, o, &e, d);    /* every rank its part */
        take_engine_answer(a, &e);
        return st;
    }
    psc_dchain *ch = NULL;
    san_status st = psc_chain(m, o, &e, &ch, d);
    take_engine_answer(a, &e);
    if (st != SAN_OK || !ch)
        return st;
    const double ts = san_now();
    st = an_transient(o, a, ch, o->time_limit > 0 ? t0 + o->time_limit : 0, d);
    a->t_solve = san_now() - ts;
    a->rank_bytes = psc_chain_free(ch);
    return st;
}

static san_status analyze_model(const san_model *m, const san_analysis_opts *o,
                                san_analysis *a, san_diag *d)
{
    const double t0 = san_now();
    a->m = m;
    if (o->engine == SAN_ENGINE_PETSC)          /* solver/petsc/, over the ranks */
        return analyze_petsc(m, o, t0, a, d);
    san_status st = build(m, o, t0, a, d);
    a->t_space = san_now() - t0;
    if (st != SAN_OK || o->space_only)
        return st;
    if (o->kind != SAN_ANALYSIS_STEADY) {       /* pi(t), passage times */
        double ts = san_now();
        st = an_transient(o, a, NULL, o->time_limit > 0 ? t0 + o->time_limit : 0, d);
        a->t_solve = san_now() - ts;
        return st;
    }
    st = solve_space(o, t0, a, d);
    if (st == SAN_E_NOTCONV && retry_sparse(o, t0, a))
        st = solve_space(o, t0, a, d);
    if (st == SAN_E_INTERRUPTED && !a->have_sol)
        return st;
    /* a solve stopped early (not converged, interrupted, time limit)
     * keeps its best vector: its indices are reported with it */
    if (st != SAN_OK && st != SAN_E_NOTCONV && st != SAN_E_INTERRUPTED)
        return st;
    flush_underflow(&a->sp, &a->classes, &a->sol);
    if (a->sol.info.method == SAN_M_AUTO)       /* a one-state class needs no method */
        a->sol.info.method = SAN_M_DIRECT;
    san_status is = solution_indices_until(&a->sp, &a->sol, o->ntop, indices_deadline(o, t0), d);
    if (is != SAN_OK)
        return is;
    a->have_indices = 1;
    a->nonzeros = a->kron ? 0 : a->sp.q.rowptr[a->sp.n];
    /* the other storage's size is a remark: not made past the time
     * limit (over the descriptor it lists the transitions of up to
     * 4096 states again, seconds on large fan-outs) */
    const san_storage_choice *c = &a->choice;
    if (c->states > 0)          /* predicted: the same figures as the choice */
        a->other_bytes = a->kron ? c->m_sparse : c->m_kron;
    else if (!(o->time_limit > 0 && san_now() - t0 >= o->time_limit))
        a->other_bytes = a->kron ? est_sparse_bytes_of(m, a->sp.index, a->sp.n)
                                 : san_kron_estimate_bytes(m, a->sp.n);
    return st;
}

/* A model's own bytes (lang_model_bytes: its tabulated functions, code,
 * automata and syntax tree) are held through the whole run: --max-memory
 * less them is what the space, the checks and the solve share.  A model
 * that holds the whole budget is refused before anything is built; a
 * refusal below names what was left, and the note says why. */
static san_status analyze_within(const san_model *m, double held, const san_analysis_opts *o,
                                 san_analysis *a, san_diag *d)
{
    const double budget = base_budget(o->space.max_memory);
    char hb[32], bb[32];
    san_format_bytes(held, hb, sizeof hb);
    san_format_bytes(budget, bb, sizeof bb);
    if (held >= budget) {
        a->m = m;
        san_diag_add(d, SAN_ERROR, 0, 0, "the compiled model (its tabulated functions and "
                     "code) holds %s, over the memory limit of %s; raise --max-memory", hb, bb);
        return SAN_E_LIMIT;
    }
    san_analysis_opts lo = *o;
    lo.space.max_memory = budget - held;
    san_status st = analyze_model(m, &lo, a, d);
    if (st == SAN_E_LIMIT && held > 0) {
        char lb[32];
        san_diag_add(d, SAN_NOTE, 0, 0, "the compiled model (its tabulated functions and code) "
                     "holds %s of the memory limit of %s: the chain had %s", hb, bb,
                     san_format_bytes(budget - held, lb, sizeof lb));
    }
    return st;
}

/* The exports and the Python package's states() and generator() (space_only)
 * give the chain the solve would solve: the lumped one when lumped, its
 * space over the lumped model (a->sp.m, occupancy states), a->lumping
 * saying what was lumped. */
static san_status space_lumped(const san_model *m, const san_analysis_opts *o, san_analysis *a,
                               san_diag *d)
{
    memset(a, 0, sizeof *a);
    san_lumping *L = NULL;
    san_status st = san_model_lump(m, &L, d);
    if (st != SAN_OK)
        return st;
    const double held = lang_model_bytes(m) + (L ? lang_model_bytes(san_lumping_model(L)) : 0);
    st = analyze_within(L ? san_lumping_model(L) : m, held, o, a, d);
    a->lumping = L;
    a->m = m;
    return st;
}

/* A model with interchangeable replicas is solved on its lumped chain,
 * its indices told back in m's terms: the steady state always, the
 * transient and passage analyses when that is exact (lumped_time.c
 * says when; else as written, with a note).  space_only lumps too
 * (space_lumped). */
san_status san_analyze(const san_model *m, const san_analysis_opts *o, san_analysis *a,
                       san_diag *d)
{
    /* a caller built against another layout would be read wrong: the
     * nested space, solve and transient options are covered by the size */
    char msg[192];
    if (BASE_OPTS_FOREIGN(o, "analysis", "san_analysis_opts_default", msg, sizeof msg)) {
        memset(a, 0, sizeof *a);
        san_diag_add(d, SAN_ERROR, 0, 0, "%s", msg);
        return SAN_E_USAGE;
    }
    if (o->space_only && o->lump != SAN_LUMP_OFF)
        return space_lumped(m, o, a, d);
    memset(a, 0, sizeof *a);
    const double held = lang_model_bytes(m);
    if (o->lump == SAN_LUMP_OFF || o->space_only)
        return analyze_within(m, held, o, a, d);
    san_lumping *L = NULL;
    san_status st = san_model_lump(m, &L, d);
    if (st != SAN_OK)
        return st;
    if (!L)
        return analyze_within(m, held, o, a, d);
    san_analysis_opts lo = *o;
    if (o->kind != SAN_ANALYSIS_STEADY) {
        int ok = lump_time_opts(L, o, &lo, d);
        if (ok <= 0) {
            san_lumping_free(L);
            if (ok < 0) {
                san_diag_add(d, SAN_ERROR, 0, 0, "out of memory while lumping the replicas");
                return SAN_E_NOMEM;
            }
            return analyze_within(m, held, o, a, d);
        }
    }
    a->lumping = L;     /* transient.c weighs the initial states by it */
    st = analyze_within(san_lumping_model(L), held + lang_model_bytes(san_lumping_model(L)),
                        &lo, a, d);
    /* sol and tr are over the lumped model until expanded; freed so if not */
    san_status es = SAN_OK;
    if (a->have_sol && (es = lump_expand_solution(L, &a->sol)) != SAN_OK) {
        space_solution_clear(a->m, &a->sol);
        a->have_sol = a->have_indices = 0;
    }
    if (a->have_tr && es == SAN_OK)
        es = lump_expand_transient(L, &a->tr);
    else if (a->have_tr) {
        an_transient_free(a->m, &a->tr);
        a->have_tr = 0;
    }
    a->m = m;       /* the report says what was lumped (a->lumping) */
    if (es != SAN_OK) {
        san_diag_add(d, SAN_ERROR, 0, 0, "out of memory while mapping the lumped answer back");
        return SAN_E_NOMEM;
    }
    return st;
}
