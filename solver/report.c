/*
 * report.c - from the generator to the stationary vector and the indices
 * users read: results, marginals, throughputs, most probable states.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "succ.h"
#include "space.h"

/* Q^T restricted to the closed class, renumbered 0..nclosed-1. */
static int closed_transpose(const san_space *sp, int32_t *sub, san_csr *qt)
{
    const san_csr *q = &sp->q;
    if (sp->nclosed == sp->n)
        return san_csr_transpose(q, qt);
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
    int rc = san_csr_transpose(&r, qt);
    san_csr_free(&r);
    return rc;
}

int san_solve(const san_space *sp, const san_solve_opts *o, san_solution *sol)
{
    memset(sol, 0, sizeof *sol);
    sol->pi = calloc(sp->n ? sp->n : 1, sizeof *sol->pi);
    int32_t *sub = sp->nclosed < sp->n ? malloc(sp->n * sizeof *sub) : NULL;
    san_csr qt = { 0 };
    if (!sol->pi || (sp->nclosed < sp->n && !sub) || closed_transpose(sp, sub, &qt) < 0) {
        free(sub);
        snprintf(sol->info.msg, sizeof sol->info.msg, "out of memory for the transposed generator "
                 "(%lld states)", (long long)sp->n);
        return -1;
    }
    double *x = sp->nclosed < sp->n ? calloc(sp->nclosed, sizeof *x) : sol->pi;
    if (!x) {
        free(sub);
        san_csr_free(&qt);
        return -1;
    }
    int rc = san_ctmc_solve(&qt, x, o, &sol->info);
    if (x != sol->pi) {
        for (int64_t i = 0; i < sp->n; i++)
            sol->pi[i] = sub[i] >= 0 ? x[sub[i]] : 0;
        free(x);
    }
    free(sub);
    san_csr_free(&qt);
    return rc;
}

/* ---------------------------------------------------------------- */
/* Indices                                                            */
/* ---------------------------------------------------------------- */

static void keep_top(san_top_state *top, int ntop, int *have, int64_t state, double p)
{
    if (*have == ntop && (ntop == 0 || p <= top[ntop - 1].p))
        return;
    int k = *have < ntop ? (*have)++ : ntop - 1;
    while (k > 0 && top[k - 1].p < p) {
        top[k] = top[k - 1];
        k--;
    }
    top[k].state = state;
    top[k].p = p;
}

int san_solution_indices(const san_space *sp, san_solution *sol, int ntop, san_diag *d)
{
    const san_model *m = sp->m;
    succ_ctx c;
    if (succ_init(&c, m) < 0)
        return -1;
    sol->results = calloc(m->nres + 1, sizeof *sol->results);
    sol->throughput = calloc(m->nev + 1, sizeof *sol->throughput);
    sol->marginal = calloc(m->naut + 1, sizeof *sol->marginal);
    sol->top = calloc(ntop + 1, sizeof *sol->top);
    int *s = calloc(m->naut + 1, sizeof *s);
    int ok = sol->results && sol->throughput && sol->marginal && sol->top && s;
    for (int a = 0; ok && a < m->naut; a++)
        ok = (sol->marginal[a] = calloc(m->aut[a].nstates, sizeof **sol->marginal)) != NULL;
    if (!ok) {
        free(s);
        succ_free(&c);
        return -1;
    }
    /* Compensated (Kahan) sums: millions of small terms. */
    double *res_c = calloc(m->nres + 1, sizeof *res_c);
    for (int64_t i = 0; i < sp->n; i++) {
        double p = sol->pi[i];
        keep_top(sol->top, ntop, &sol->ntop, i, p);
        if (p == 0)
            continue;
        san_state_decode(m, sp->index[i], s);
        for (int a = 0; a < m->naut; a++)
            sol->marginal[a][s[a]] += p;
        for (int r = 0; r < m->nres; r++) {
            if (m->res[r].derived)
                continue;
            double y = p * san_expr_eval(m->res[r].expr, s) - (res_c ? res_c[r] : 0);
            double t = sol->results[r] + y;
            if (res_c)
                res_c[r] = (t - sol->results[r]) - y;
            sol->results[r] = t;
        }
        succ_new_state(&c);
        for (int e = 0; e < m->nev; e++)
            sol->throughput[e] += p * succ_event_rate(&c, e, s);
    }
    free(res_c);
    for (int r = 0; r < m->nres; r++)
        if (m->res[r].derived)
            sol->results[r] = san_expr_eval_ctx(m->res[r].expr, NULL, sol->results);
    for (int r = 0; r < m->nres; r++)
        if (!isfinite(sol->results[r]))
            san_diag_add(d, SAN_WARNING, 0, 0, "result '%s' is not a finite number (%g)",
                         m->res[r].name, sol->results[r]);
    free(s);
    succ_free(&c);
    return 0;
}

void san_solution_free(const san_model *m, san_solution *sol)
{
    free(sol->pi);
    free(sol->results);
    free(sol->throughput);
    if (sol->marginal)
        for (int a = 0; a < m->naut; a++)
            free(sol->marginal[a]);
    free(sol->marginal);
    free(sol->top);
    memset(sol, 0, sizeof *sol);
}
