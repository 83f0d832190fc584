/*
 * lump_state.c - the states of a lumped chain in the original model's
 * terms (issue 28): which lumped state an original state falls in, and
 * how many original states one lumped state stands for.
 *
 * The time-dependent analyses need both: an initial distribution given
 * over the original states (a --from vector, a uniform start) is summed
 * into the lumped states, which is exact for every aggregated quantity
 * by strong lumpability (the lumped process is Markov from any initial
 * distribution).  A uniform start over original states puts on a
 * lumped state the mass of all the original states it stands for: the
 * multinomial N! / prod_s n_s! of each class (the other automata are
 * kept as they are, a factor 1).
 */
#include <math.h>
#include "lang/lump.h"
#include "lang/model_int.h"

int lump_max_ns(const san_lumping *L)
{
    int ns = 1;
    for (int c = 0; c < L->nclass; c++)
        ns = L->cls[c].ns > ns ? L->cls[c].ns : ns;
    return ns;
}

void lump_state_map(const san_lumping *L, const int *s, int *t, int32_t *scratch)
{
    const san_model *m = L->orig;
    for (int a = 0; a < m->naut; a++)
        if (L->aut_class[a] < 0)
            t[L->aut_map[a]] = s[a];
    for (int c = 0; c < L->nclass; c++) {
        const lump_class *C = &L->cls[c];
        for (int k = 0; k < C->ns; k++)
            scratch[k] = 0;
        for (int k = 0; k < C->n; k++)
            scratch[s[C->members[k]]]++;
        t[C->counter] = (int)lump_rank(C, scratch);
    }
}

/* lgamma is within a few ulps of log((n)!); the log of a multinomial of
 * 1,024 replicas is at most ~1,125 (3 states), whose ulp is 2.3e-13:
 * the weights come out within ~1e-12 relative, below the 1e-10 the
 * tests ask of the lumped answers (exact integers are no option: 3^1024
 * states overflow a double). */
double lump_state_logcount(const san_lumping *L, const int *t)
{
    double lw = 0;
    for (int c = 0; c < L->nclass; c++) {
        const lump_class *C = &L->cls[c];
        const int32_t *v = C->occ + (int64_t)t[C->counter] * C->ns;
        lw += lgamma(C->n + 1.0);
        for (int k = 0; k < C->ns; k++)
            lw -= lgamma(v[k] + 1.0);
    }
    return lw;
}

int64_t lump_index_map(const san_lumping *L, int64_t idx, int *s, int *t, int32_t *scratch)
{
    const san_model *m = L->orig;
    if (idx < 0 || (m->product_fits && idx >= m->product))
        return -1;
    san_state_decode(m, idx, s);
    lump_state_map(L, s, t, scratch);
    return san_state_encode(L->model, t);
}
