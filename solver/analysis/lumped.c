/*
 * lumped.c - a lumped model's answer told in the original model's terms
 * (issue 28): the marginal of each member of a class is the expected
 * share of the class in each local state, E[n_s] / N (the members are
 * interchangeable, so each has it); a family of per-member events fired
 * as one lumped event, so each member's event has 1/N of its throughput;
 * the derived results are evaluated again over the original events.
 */
#include <stdlib.h>
#include <string.h>
#include "lang/lump.h"
#include "solver/analysis/lumped.h"
#include "lang/expr.h"
#include "lang/model_int.h"
#include "solver/space/solution.h"

static double *member_marginal(const lump_class *C, const double *counter)
{
    double *p = calloc((size_t)C->ns, sizeof *p);
    if (!p)
        return NULL;
    for (int64_t k = 0; k < C->nk; k++)
        if (counter[k] != 0)
            for (int s = 0; s < C->ns; s++)
                p[s] += counter[k] * C->occ[k * C->ns + s];
    for (int s = 0; s < C->ns; s++)
        p[s] /= C->n;
    return p;
}

san_status lump_expand_solution(const san_lumping *L, san_solution *sol)
{
    const san_model *m = L->orig, *lm = L->model;
    double **marg = NULL, *thr = NULL;
    if (sol->marginal) {
        marg = calloc((size_t)m->naut + 1, sizeof *marg);
        if (!marg)
            return SAN_E_NOMEM;
        for (int a = 0; a < m->naut; a++) {
            int c = L->aut_class[a];
            const double *src = sol->marginal[L->aut_map[a]];
            if (c >= 0 && L->cls[c].members[0] != a) {
                /* the class's first member has it: one sum per class */
                const lump_class *C = &L->cls[c];
                marg[a] = malloc((size_t)C->ns * sizeof **marg);
                if (marg[a])
                    memcpy(marg[a], marg[C->members[0]], (size_t)C->ns * sizeof **marg);
            } else if (c >= 0) {
                marg[a] = member_marginal(&L->cls[c], src);
            } else {
                marg[a] = malloc((size_t)m->aut[a].nstates * sizeof **marg);
                if (marg[a])
                    memcpy(marg[a], src, (size_t)m->aut[a].nstates * sizeof **marg);
            }
            if (!marg[a]) {
                for (int b = 0; b < a; b++)
                    free(marg[b]);
                free(marg);
                return SAN_E_NOMEM;
            }
        }
    }
    if (sol->throughput) {
        thr = malloc(((size_t)m->nev + 1) * sizeof *thr);
        if (!thr) {
            for (int a = 0; marg && a < m->naut; a++)
                free(marg[a]);
            free(marg);
            return SAN_E_NOMEM;
        }
        for (int e = 0; e < m->nev; e++)
            thr[e] = sol->throughput[L->ev_map[e]] / L->ev_div[e];
    }
    if (sol->marginal) {
        for (int a = 0; a < lm->naut; a++)
            free(sol->marginal[a]);
        free(sol->marginal);
        sol->marginal = marg;
    }
    if (thr) {
        free(sol->throughput);
        sol->throughput = thr;
        if (sol->results) {
            san_diag quiet;
            san_diag_init(&quiet, NULL, NULL, 0);
            lang_results_derive(m, sol->results, thr, &quiet);
            san_diag_clear(&quiet);
        }
    }
    return SAN_OK;
}
