/*
 * long_run.c - the steady state of a chain with several closed classes
 * (two absorbing outcomes, a failure beside a working cycle): as PRISM
 * answers S=?, the long-run distribution from the initial one,
 *
 *     pi = sum over the closed classes c of P(reach c) pi_c,
 *
 * pi_c the stationary distribution of class c alone, the initial
 * distribution uniform over the states the reachability function accepts
 * (initial.c; san props and san transient start from the same).
 *
 *   1. P(reach c): the expected time in the transient states, one sparse
 *      LU, and the flow it sends into each class (numeric/class_reach.c,
 *      which san props uses too), with its error from one refinement
 *      step.  On the tensor descriptor, which stores no Q, on the rows of
 *      a sparse build beside it (as the passage's solves: passage_rows.c),
 *      its classes matched to the descriptor's by a state's index;
 *   2. each class reached, as a space of its own (space/class_space.c),
 *      solved by the storage's own solver (an_solve, kron_solve),
 *      with the options and checks of a one-class chain;
 *   3. the combined figures: iterations and products summed, residual,
 *      balance and aggregation error the largest, converged when every
 *      class did; the error estimate, relative on a state's
 *      probability, the largest over the classes reached of
 *      e_c + r_c + e_c r_c, e_c the class's own estimate and r_c the
 *      relative error of its reach probability: (1 + e_c)(1 + r_c) - 1
 *      bounds the relative error of P(reach c) pi_c(s) when each factor
 *      is within its own.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "base/services.h"
#include "solver/numeric/class_reach.h"
#include "solver/analysis/initial.h"
#include "solver/numeric/linsolve.h"
#include "solver/analysis/long_run.h"
#include "solver/analysis/steady.h"
#include "solver/kron/kron.h"
#include "solver/space/state_space.h"
#include "solver/analysis/analysis_int.h"

void long_run_free(san_classes *c)
{
    free(c->reach);
    free(c->reach_error);
    free(c->states);
    free(c->first);
    free(c->error);
    memset(c, 0, sizeof *c);
}

/* Step 1 over sp's own rows: reach[] and reach_error[] of sp's classes. */
static san_status reach_rows(const san_space *sp, const san_lumping *L, san_classes *C,
                             san_diag *d)
{
    double *init = malloc((size_t)(sp->n ? sp->n : 1) * sizeof *init);
    if (!init)
        return SAN_E_NOMEM;
    int64_t c = initial_uniform(sp, L, init);
    if (c <= 0) {
        free(init);
        if (c < 0)
            return SAN_E_NOMEM;
        san_diag_add(d, SAN_ERROR, 0, 0, "no reachable state is accepted by the reachability "
                     "function: the long-run answer of several closed classes starts from "
                     "the states it accepts");
        return SAN_E_MODEL;
    }
    C->ninit = c;
    char msg[256];
    int rc = num_class_reach(&sp->q, sp->cls, sp->nclasses, init, C->reach, C->reach_error,
                             &C->residual, msg, sizeof msg);
    free(init);
    if (rc < 0) {
        san_diag_add(d, SAN_ERROR, 0, 0, "the probabilities of reaching the %lld closed "
                     "classes: %s", (long long)sp->nclasses, msg);
        return SAN_E_NUMERIC;
    }
    return SAN_OK;
}

/* Step 1 on the descriptor: a sparse build beside it (what --max-memory
 * leaves), its classes carried to sp's by the index of their first
 * state. */
static san_status reach_beside(const san_analysis_opts *o, const san_space *sp,
                               const san_lumping *L, san_classes *C, san_diag *d)
{
    const double limit = base_budget(o->space.max_memory);
    san_space_opts po = o->space;
    po.states_only = 0;
    po.several_closed = 0;
    po.several_steady = 1;
    po.progress = 0;
    po.max_memory = limit - sp->bytes;
    san_space full;
    san_diag quiet;             /* its warnings were the first build's */
    san_diag_init(&quiet, d->file, NULL, 0);
    san_status st = po.max_memory > 0 ? san_space_build(sp->m, &po, &full, &quiet)
                                      : SAN_E_LIMIT;
    san_diag_clear(&quiet);
    if (st != SAN_OK) {
        san_diag_add(d, SAN_ERROR, 0, 0, "the chain has %lld closed classes: their reach "
                     "probabilities are solved on the sparse generator, which could not be "
                     "built beside the tensor descriptor (%s); raise --max-memory or use "
                     "--storage sparse", (long long)sp->nclasses,
                     st == SAN_E_LIMIT ? "over what --max-memory leaves" : san_status_name(st));
        return st == SAN_E_NOMEM ? SAN_E_NOMEM : SAN_E_LIMIT;
    }
    san_classes F = { 0 };
    int64_t *ord = space_index_order(sp);
    F.reach = calloc((size_t)full.nclasses, sizeof *F.reach);
    F.reach_error = calloc((size_t)full.nclasses, sizeof *F.reach_error);
    if (!ord || !F.reach || !F.reach_error) {
        free(ord);
        long_run_free(&F);
        space_clear(&full);
        return SAN_E_NOMEM;
    }
    st = full.nclasses == sp->nclasses && full.n == sp->n ? reach_rows(&full, L, &F, d)
                                                          : SAN_E_NUMERIC;
    if (st == SAN_OK) {
        char *seen = calloc((size_t)full.nclasses, 1);
        for (int64_t j = 0; seen && j < full.n; j++) {
            const int32_t cf = full.cls[j];
            if (cf < 0 || seen[cf])
                continue;
            seen[cf] = 1;
            const int64_t i = space_index_find(ord, sp->n, full.index[j]);
            const int32_t k = i >= 0 ? sp->cls[i] : -1;
            if (k < 0) {
                st = SAN_E_NUMERIC;
                break;
            }
            C->reach[k] = F.reach[cf];
            C->reach_error[k] = F.reach_error[cf];
        }
        if (!seen)
            st = SAN_E_NOMEM;
        free(seen);
        C->ninit = F.ninit;
        C->residual = F.residual;
    }
    if (st == SAN_E_NUMERIC && d->nerrors == 0)
        san_diag_add(d, SAN_ERROR, 0, 0, "the sparse generator built for the reach "
                     "probabilities found other closed classes than the descriptor's check "
                     "(%lld and %lld): a bug", (long long)full.nclasses,
                     (long long)sp->nclasses);
    free(ord);
    long_run_free(&F);
    space_clear(&full);
    return st;
}

/* Class k's figures into the combined ones (step 3). */
static void combine(san_solve_info *all, const san_solve_info *one, int first)
{
    if (first) {
        *all = *one;
        return;
    }
    all->iterations += one->iterations;
    all->products += one->products;
    all->product_s += one->product_s;
    all->time_s += one->time_s;
    all->refine_cycles += one->refine_cycles;
    all->polish += one->polish;
    all->residual = fmax(all->residual, one->residual);
    all->balance = fmax(all->balance, one->balance);
    all->agg_error = isnan(all->agg_error) ? one->agg_error
                   : isnan(one->agg_error) ? all->agg_error : fmax(all->agg_error, one->agg_error);
    all->lu_correction = fmax(all->lu_correction, one->lu_correction);
    if (all->method != one->method && one->iterations > 0)
        all->method = one->method;      /* the method of the largest solves */
    if (all->converged && !one->converged) {
        all->converged = 0;
        all->status = one->status;
        memcpy(all->msg, one->msg, sizeof all->msg);
    }
    if (!all->note[0] && one->note[0])
        memcpy(all->note, one->note, sizeof all->note);
}

/* Step 2 for class k, its states members[0..m-1]: its distribution
 * scaled by its reach probability into pi, its figures in *info (map:
 * scratch for space_class). */
static san_status solve_class(const san_solve_opts *so, san_analysis *a, int32_t k,
                              const int64_t *members, int64_t m, int64_t *map,
                              san_solve_info *info, san_diag *d)
{
    san_classes *C = &a->classes;
    if (m == 1) {               /* an absorbing state: nothing to solve */
        memset(info, 0, sizeof *info);
        info->method = SAN_M_DIRECT;
        info->converged = 1;
        info->lu_correction = -1;
        info->agg_error = NAN;
        a->sol.pi[members[0]] = C->reach[k];
        C->error[k] = 0;
        return SAN_OK;
    }
    san_space sub;
    if (space_class(&a->sp, members, m, map, &sub) < 0)
        return SAN_E_NOMEM;
    san_solution s1;
    memset(&s1, 0, sizeof s1);
    san_status st;
    if (a->kron) {
        double bytes = 0;
        st = num_ls_status(kron_solve(&sub, so, &s1, &bytes), &s1.info);
        a->kron_bytes = fmax(a->kron_bytes, bytes);
        *info = s1.info;
    } else {
        st = an_solve(&sub, so, &s1);
        *info = s1.info;
    }
    if (st != SAN_OK && st != SAN_E_NOTCONV && st != SAN_E_INTERRUPTED) {
        san_diag_add(d, SAN_ERROR, 0, 0, "the steady state of closed class %lld (%lld "
                     "states): %s", (long long)k + 1, (long long)sub.n,
                     info->msg[0] ? info->msg : san_status_name(st));
    } else if (s1.pi) {
        for (int64_t j = 0; j < m; j++)
            a->sol.pi[members[j]] = C->reach[k] * s1.pi[j];
        C->error[k] = info->converged ? info->error_est : NAN;
    }
    free(s1.pi);
    space_clear(&sub);
    return st;
}

san_status long_run_solve(const san_analysis_opts *o, const san_solve_opts *so,
                          san_analysis *a, san_diag *d)
{
    const san_space *sp = &a->sp;
    const int64_t K = sp->nclasses;
    san_classes *C = &a->classes;
    memset(&a->sol, 0, sizeof a->sol);
    a->sol.info.lu_correction = -1;
    a->sol.pi = calloc((size_t)(sp->n ? sp->n : 1), sizeof *a->sol.pi);
    C->n = K;
    C->reach = calloc((size_t)K, sizeof *C->reach);
    C->reach_error = calloc((size_t)K, sizeof *C->reach_error);
    C->states = calloc((size_t)K, sizeof *C->states);
    C->first = malloc((size_t)K * sizeof *C->first);
    C->error = malloc((size_t)K * sizeof *C->error);
    if (!a->sol.pi || !C->reach || !C->reach_error || !C->states || !C->first || !C->error)
        return SAN_E_NOMEM;
    for (int64_t k = 0; k < K; k++) {
        C->first[k] = -1;
        C->error[k] = NAN;
    }
    for (int64_t i = 0; i < sp->n; i++)
        if (sp->cls[i] >= 0 && C->first[sp->cls[i]] < 0)
            C->first[sp->cls[i]] = i;
    const double t0 = san_now();
    san_status st = a->kron ? reach_beside(o, sp, a->lumping, C, d)
                            : reach_rows(sp, a->lumping, C, d);
    if (st != SAN_OK)
        return st;
    /* the classes' states, class after class (a counting sort) */
    int64_t *start = calloc((size_t)K + 1, sizeof *start);
    int64_t *members = malloc((size_t)(sp->nclosed ? sp->nclosed : 1) * sizeof *members);
    int64_t *map = malloc((size_t)(sp->n ? sp->n : 1) * sizeof *map);
    if (!start || !members || !map) {
        free(start);
        free(members);
        free(map);
        return SAN_E_NOMEM;
    }
    for (int64_t i = 0; i < sp->n; i++) {
        map[i] = -1;
        if (sp->cls[i] >= 0)
            C->states[sp->cls[i]]++;
    }
    for (int64_t k = 0; k < K; k++)
        start[k + 1] = start[k] + C->states[k];
    for (int64_t i = 0; i < sp->n; i++)
        if (sp->cls[i] >= 0)
            members[start[sp->cls[i]]++] = i;
    for (int64_t k = K; k > 0; k--)     /* back to each class's start */
        start[k] = start[k - 1];
    start[0] = 0;
    san_status worst = SAN_OK;
    san_solve_info *all = &a->sol.info, one;
    double est = 0;
    int any = 0;
    for (int32_t k = 0; k < K; k++) {
        if (!(C->reach[k] > 0))
            continue;           /* never reached: probability 0, nothing to solve */
        san_solve_opts left = *so;
        if (so->time_limit > 0)
            left.time_limit = fmax(so->time_limit - (san_now() - t0), 1e-6);
        left.warm = NULL;       /* a neighbour's answer is the whole chain's */
        st = solve_class(&left, a, k, members + start[k], C->states[k], map, &one, d);
        if (st != SAN_OK && st != SAN_E_NOTCONV && st != SAN_E_INTERRUPTED)
            break;
        if (st != SAN_OK && worst == SAN_OK)
            worst = st;
        combine(all, &one, !any);
        any = 1;
        /* (1 + e)(1 + r) - 1, over the classes whose states carry
         * probabilities the estimate speaks of (above 1e-14) */
        if (C->reach[k] > 1e-14) {
            const double e = one.error_est;    /* not converged: the one reached */
            const double r = C->reach_error[k] / C->reach[k];
            est = fmax(est, e + r + e * r);
        }
        if (st == SAN_E_INTERRUPTED)
            break;
    }
    free(start);
    free(members);
    free(map);
    if (st != SAN_OK && st != SAN_E_NOTCONV && st != SAN_E_INTERRUPTED)
        return st;
    all->error_est = est;
    all->status = worst;
    return worst;
}
