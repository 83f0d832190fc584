/*
 * solve.c - the steady state of a space's chain over its sparse
 * generator: the closed class only (transient states get 0), the
 * aggregation's partitions by automata and groups (from the model), a
 * neighbour's answer as the first guess, then the numerical core
 * (numeric/linsolve.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "solver/analysis/steady.h"
#include "solver/numeric/linsolve.h"
#include "solver/space/partition_space.h"
#include "solver/space/solution.h"
#include "solver/space/space_int.h"

/* Q^T restricted to the closed class, renumbered 0..nclosed-1: 0, -1
 * out of memory, -2 interrupted (num_csr_transpose). */
static int closed_transpose(const san_space *sp, int32_t *sub, san_csr *qt,
                            const volatile int *interrupt)
{
    const san_csr *q = &sp->q;
    if (sp->nclosed == sp->n)
        return num_csr_transpose(q, qt, interrupt);
    int64_t k = 0, nnz = 0;
    for (int64_t i = 0; i < sp->n; i++)
        sub[i] = sp->in_closed[i] ? (int32_t)k++ : -1;
    for (int64_t i = 0; i < sp->n; i++)
        if (sub[i] >= 0)
            nnz += q->rowptr[i + 1] - q->rowptr[i];   /* closed: no edge leaves */
    san_csr r = { k, malloc((k + 1) * sizeof(int64_t)), malloc((nnz ? nnz : 1) * sizeof(int32_t)),
                  malloc((nnz ? nnz : 1) * sizeof(double)) };
    if (!r.rowptr || !r.col || !r.val) {
        san_csr_free(&r);
        return -1;
    }
    int64_t p = 0;
    r.rowptr[0] = 0;
    for (int64_t i = 0; i < sp->n; i++) {
        if (sub[i] < 0)
            continue;
        for (int64_t t = q->rowptr[i]; t < q->rowptr[i + 1]; t++) {
            r.col[p] = sub[q->col[t]];
            r.val[p++] = q->val[t];
        }
        r.rowptr[sub[i] + 1] = p;
    }
    int rc = num_csr_transpose(&r, qt, interrupt);
    san_csr_free(&r);
    return rc;
}

/* Interrupted while transposing, before the first iteration: the
 * uniform vector over the closed class is the best one, returned as a
 * stop with no error estimate, as the numerical core does past its
 * time limit before its first iteration. */
static san_status interrupted_early(const san_space *sp, const san_solve_opts *o,
                                    san_solution *sol, double t0)
{
    for (int64_t i = 0; i < sp->n; i++)
        sol->pi[i] = sp->nclosed == sp->n || sp->in_closed[i] ? 1.0 / (double)sp->nclosed : 0;
    sol->info.method = o ? o->method : SAN_M_AUTO;
    sol->info.residual = HUGE_VAL;
    sol->info.time_s = san_now() - t0;
    snprintf(sol->info.msg, sizeof sol->info.msg, "interrupted before the first iteration "
             "(transposing the generator)");
    return sol->info.status = SAN_E_INTERRUPTED;
}

/* The first guess from a neighbour's answer, over the closed class
 * (sub: its numbering, NULL when it is every state); x stays zero
 * (uniform) when nothing matches or memory is short. */
static void warm_guess(const san_warm *w, const san_space *sp, const int32_t *sub, double *x)
{
    double *full = sub ? malloc(sp->n * sizeof *full) : x;
    if (!full || !(san_warm_map(w, sp, full) > 0)) {
        if (full != x)
            free(full);
        return;
    }
    if (full != x) {
        for (int64_t i = 0; i < sp->n; i++)
            if (sub[i] >= 0)
                x[sub[i]] = full[i];
        free(full);
    }
}

san_status an_solve(const san_space *sp, const san_solve_opts *o, san_solution *sol)
{
    const double t0 = san_now();
    memset(sol, 0, sizeof *sol);
    sol->info.lu_correction = -1;   /* none made */
    if (num_solve_opts_foreign(o, &sol->info) < 0)
        return sol->info.status;
    sol->pi = calloc(sp->n ? sp->n : 1, sizeof *sol->pi);
    int32_t *sub = sp->nclosed < sp->n ? malloc(sp->n * sizeof *sub) : NULL;
    san_csr qt = { 0 };
    const int tr = sol->pi && (sp->nclosed == sp->n || sub)
                       ? closed_transpose(sp, sub, &qt, o ? o->interrupt : NULL) : -1;
    if (tr == -2) {
        free(sub);
        return interrupted_early(sp, o, sol, t0);
    }
    if (tr < 0) {
        free(sub);
        snprintf(sol->info.msg, sizeof sol->info.msg, "out of memory for the transposed generator "
                 "(%lld states)", (long long)sp->n);
        return sol->info.status = SAN_E_NOMEM;
    }
    double *x = sp->nclosed < sp->n ? calloc(sp->nclosed, sizeof *x) : sol->pi;
    int64_t *idx = sp->nclosed < sp->n ? malloc(sp->nclosed * sizeof *idx) : sp->index;
    if (!x || !idx) {
        if (x != sol->pi)
            free(x);
        if (idx != sp->index)
            free(idx);
        free(sub);
        san_csr_free(&qt);
        snprintf(sol->info.msg, sizeof sol->info.msg, "out of memory for the vectors");
        return sol->info.status = SAN_E_NOMEM;
    }
    if (idx != sp->index)
        for (int64_t i = 0; i < sp->n; i++)
            if (sub[i] >= 0)
                idx[sub[i]] = sp->index[i];
    if (o && o->warm)
        warm_guess(o->warm, sp, sub, x);
    num_parts parts;
    memset(&parts, 0, sizeof parts);
    if (o && o->time_limit > 0)
        parts.deadline = t0 + o->time_limit;
    if (o)
        parts.interrupt = o->interrupt;
    /* the transposed copy is made: the numerical core has what is left */
    san_solve_opts left;
    if (o)
        left = *o;
    else
        san_solve_opts_default(&left);
    left.max_memory = num_ls_budget(o) - (12.0 * (double)qt.rowptr[qt.n] + 8.0 * (double)qt.n);
    if (left.max_memory < 1)
        left.max_memory = 1;
    const double budget = 0.25 * left.max_memory;
    if (space_parts_add_model(&parts, sp->m, qt.n, idx, budget) < 0 ||
        num_parts_add_csr(&parts, &qt, budget) < 0) {
        num_parts_free(&parts);
        memset(&parts, 0, sizeof parts);    /* no aggregation check but the chain's */
    }
    /* the time limit counts from this call: the transposed copy and the
     * partitions took some of it (seconds on 10^8 nonzeros) */
    if (left.time_limit > 0)
        left.time_limit = fmax(left.time_limit - (san_now() - t0), 1e-6);
    int rc = num_ctmc_solve_parts(&qt, x, &left, &sol->info, parts.n ? &parts : NULL);
    num_parts_free(&parts);
    if (idx != sp->index)
        free(idx);
    if (x != sol->pi) {
        for (int64_t i = 0; i < sp->n; i++)
            sol->pi[i] = sub[i] >= 0 ? x[sub[i]] : 0;
        free(x);
    }
    free(sub);
    san_csr_free(&qt);
    return num_ls_status(rc, &sol->info);
}

