/*
 * lumped_time.c - transient and passage analyses on a lumped chain
 * (issue 28): when they are exact, their options over the lumped
 * model, and their answers told back in the original model's terms.
 *
 * Why they are exact: the chain is strongly lumpable by the symmetry,
 * so from ANY initial distribution the lumped process is Markov and
 * P(X_t in B) of every lumped state B is the lumped chain's, from the
 * initial distribution summed into the lumped states (transient.c sums
 * a --from vector so, and weighs a uniform start by the original states
 * each lumped state stands for: lump_state.c).
 *   - passage: the target is a union of lumped states when its
 *     expression is symmetric, which the detector proved (--until is a
 *     hidden result of the model: the detector reads it, and singles
 *     out a replica it reads alone); the target made absorbing keeps the
 *     lumpability, and every figure passage reports (P(T <= t), P(reach),
 *     the mean, the percentiles) is a function of the aggregated
 *     distribution: exact from any initial distribution;
 *   - transient: the results read the replicas symmetrically, but the
 *     marginal of each replica and the throughput of each per-replica
 *     event are told back as the class's share, 1/N of its total, which
 *     is each replica's only when the initial distribution treats the
 *     replicas alike.  The uniform starts (the reachability function,
 *     --initial) are symmetric when their expressions are (proved as
 *     above); a --from vector is checked here, state by state, and an
 *     asymmetric one is solved as written, said once.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lang/lump.h"
#include "solver/analysis/lumped.h"
#include "lang/model_int.h"

/* The lumped model's copy of expression e of m: results are rewritten
 * in order (lump.c), so the same index; NULL when e is not a result. */
static const san_expr *lumped_expr(const san_lumping *L, const san_expr *e)
{
    for (int r = 0; r < L->orig->nres; r++)
        if (L->orig->res[r].expr == e)
            return L->model->res[r].expr;
    return NULL;
}

typedef struct {
    int64_t block, orig;
    double p;
} entry;

static int cmp_entry(const void *x, const void *y)
{
    const entry *a = x, *b = y;
    if (a->block != b->block)
        return (a->block > b->block) - (a->block < b->block);
    return (a->orig > b->orig) - (a->orig < b->orig);
}

/* Equal probabilities within a lumped state: to this relative
 * difference (a vector written by `solve --lump off --vector` holds
 * the symmetric states to the solver's roundoff, ~1e-15 for direct). */
#define SYMMETRIC_TOL 1e-12

/* Does the vector (original indices) give every original state of a
 * lumped state the same probability?  1 yes, 0 no, -1 out of memory.
 * Entries that are not states, or not probabilities, count as
 * symmetric: the analysis reports them as errors either way. */
static int vector_symmetric(const san_lumping *L, const san_transient_opts *o)
{
    const san_model *m = L->orig;
    entry *v = malloc(((size_t)o->init_n + 1) * sizeof *v);
    int *s = malloc(((size_t)m->naut + 1) * sizeof *s);
    int *t = malloc(((size_t)L->model->naut + 1) * sizeof *t);
    int32_t *scratch = malloc(((size_t)lump_max_ns(L) + 1) * sizeof *scratch);
    int ok = v && s && t && scratch ? 1 : -1;
    int64_t n = 0;
    for (int64_t k = 0; ok == 1 && k < o->init_n; k++) {
        if (!(o->init_p[k] >= 0) || !isfinite(o->init_p[k]))
            continue;
        v[n].block = lump_index_map(L, o->init_index[k], s, t, scratch);
        v[n].orig = o->init_index[k];
        v[n].p = o->init_p[k];
        n += v[n].block >= 0;
    }
    if (ok == 1 && n > 0)
        qsort(v, (size_t)n, sizeof *v, cmp_entry);
    /* duplicates of one state add up (as transient.c reads them) */
    int64_t w = 0;
    for (int64_t k = 0; ok == 1 && k < n; k++) {
        if (w > 0 && v[w - 1].block == v[k].block && v[w - 1].orig == v[k].orig)
            v[w - 1].p += v[k].p;
        else
            v[w++] = v[k];
    }
    for (int64_t k = 0; ok == 1 && k < w;) {
        int64_t j = k;
        double lo = HUGE_VAL, hi = 0, count = 0;
        for (; j < w && v[j].block == v[k].block; j++)
            if (v[j].p > 0) {
                lo = fmin(lo, v[j].p);
                hi = fmax(hi, v[j].p);
                count++;
            }
        if (count > 0) {
            san_state_decode(L->model, v[k].block, t);
            double want = exp(lump_state_logcount(L, t));
            if (fabs(count - want) > 0.5 || hi - lo > SYMMETRIC_TOL * hi)
                ok = 0;
        }
        k = j;
    }
    free(v);
    free(s);
    free(t);
    free(scratch);
    return ok;
}

int lump_time_opts(const san_lumping *L, const san_analysis_opts *o, san_analysis_opts *lo,
                   san_diag *d)
{
    *lo = *o;
    const char *what = NULL;
    if (o->tr.initial && !(lo->tr.initial = lumped_expr(L, o->tr.initial)))
        what = "the initial expression";
    else if (o->tr.until && !(lo->tr.until = lumped_expr(L, o->tr.until)))
        what = "the target expression";
    if (what) {
        san_diag_add(d, SAN_NOTE, 0, 0, "not lumped: %s is not one of the model's, so its "
                     "symmetry in %s is not proved", what, san_lumping_summary(L));
        return 0;
    }
    if (o->kind != SAN_ANALYSIS_TRANSIENT || o->tr.init_n == 0)
        return 1;
    int sym = vector_symmetric(L, &o->tr);
    if (sym < 0)
        return -1;
    if (!sym)
        san_diag_add(d, SAN_NOTE, 0, 0, "not lumped: the initial vector (--from) gives the "
                     "replicas of %s different probabilities, so each replica's marginals "
                     "differ from the others'; solved as written", san_lumping_summary(L));
    return sym;
}

/* On failure the solutions not yet told back are freed (over the
 * lumped model) and zeroed: T is then freed over the original model. */
san_status lump_expand_transient(const san_lumping *L, an_time_answer *T)
{
    san_solution *sets[2] = { T->at, T->acc };
    for (int k = 0; k < 2; k++)
        for (int i = 0; sets[k] && i < T->ntimes; i++)
            if (lump_expand_solution(L, &sets[k][i]) != SAN_OK) {
                for (; k < 2; k++, i = 0)
                    for (; sets[k] && i < T->ntimes; i++)
                        space_solution_clear(L->model, &sets[k][i]);
                return SAN_E_NOMEM;
            }
    return SAN_OK;
}
