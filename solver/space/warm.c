/*
 * warm.c - a solved distribution kept to start another solve from.
 *
 * The variants of a sweep differ in a rate (same states), or in a
 * buffer size or a number of slaves (some automata gain or lose states,
 * or the model gains an automaton).  A variant's answer is a good first
 * guess for its neighbour's when the states are matched by what they
 * mean: automata by name, local states by name within them.  A new
 * state whose every local state has a counterpart takes the old
 * probability of that global state; the others (a buffer level that did
 * not exist, a new automaton) take the mean of the matched ones.  The
 * solve then only has to correct the difference, and its answer is
 * verified like any other: a guess can only cost time, never accuracy.
 */
#include <stdlib.h>
#include <string.h>
#include "san.h"
#include "lang/model_int.h"
#include "solver/space/space_int.h"

struct san_warm {
    int naut;
    char **aut;             /* automaton names */
    int *nstates;
    char ***state;          /* local state names */
    int64_t *stride;        /* mixed-radix strides of the old model */
    int64_t n;
    int64_t *index;         /* old global indices, ascending */
    double *pi;             /* their probabilities, same order */
};

void san_warm_free(san_warm *w)
{
    if (!w)
        return;
    for (int a = 0; a < w->naut; a++) {
        for (int k = 0; w->state && w->state[a] && k < w->nstates[a]; k++)
            free(w->state[a][k]);
        free(w->state ? w->state[a] : NULL);
        free(w->aut ? w->aut[a] : NULL);
    }
    free(w->aut);
    free(w->nstates);
    free(w->state);
    free(w->stride);
    free(w->index);
    free(w->pi);
    free(w);
}

typedef struct {
    int64_t idx;
    double p;
} entry;

static int by_index(const void *a, const void *b)
{
    int64_t x = ((const entry *)a)->idx, y = ((const entry *)b)->idx;
    return x < y ? -1 : x > y;
}

static int copy_names(san_warm *w, const san_model *m)
{
    w->naut = m->naut;
    w->aut = calloc(m->naut + 1, sizeof *w->aut);
    w->nstates = calloc(m->naut + 1, sizeof *w->nstates);
    w->state = calloc(m->naut + 1, sizeof *w->state);
    w->stride = malloc((m->naut + 1) * sizeof *w->stride);
    if (!w->aut || !w->nstates || !w->state || !w->stride)
        return -1;
    for (int a = 0; a < m->naut; a++) {
        const lang_automaton *A = &m->aut[a];
        w->stride[a] = m->stride[a];
        w->nstates[a] = A->nstates;
        w->aut[a] = strdup(A->name);
        w->state[a] = calloc(A->nstates + 1, sizeof **w->state);
        if (!w->aut[a] || !w->state[a])
            return -1;
        for (int k = 0; k < A->nstates; k++)
            if (!(w->state[a][k] = strdup(A->states[k])))
                return -1;
    }
    return 0;
}

san_warm *san_warm_new(const san_space *sp, const double *pi)
{
    san_warm *w = calloc(1, sizeof *w);
    entry *e = malloc((size_t)(sp->n ? sp->n : 1) * sizeof *e);
    if (!w || !e || !sp->m->product_fits || copy_names(w, sp->m) < 0)
        goto fail;
    for (int64_t i = 0; i < sp->n; i++)
        e[i] = (entry){ sp->index[i], pi[i] };
    qsort(e, (size_t)sp->n, sizeof *e, by_index);
    w->n = sp->n;
    w->index = malloc((size_t)(sp->n ? sp->n : 1) * sizeof *w->index);
    w->pi = malloc((size_t)(sp->n ? sp->n : 1) * sizeof *w->pi);
    if (!w->index || !w->pi)
        goto fail;
    for (int64_t i = 0; i < sp->n; i++) {
        w->index[i] = e[i].idx;
        w->pi[i] = e[i].p;
    }
    free(e);
    return w;
fail:
    free(e);
    san_warm_free(w);
    return NULL;
}

double san_warm_bytes(const san_warm *w)
{
    return w ? 16.0 * (double)w->n + 64.0 * w->naut : 0;
}

/* For each automaton of m, its number in w (-1: none), and for each of
 * its local states the old one of the same name (-1: none). */
static int match(const san_warm *w, const san_model *m, int *oa, int **ol)
{
    for (int a = 0; a < m->naut; a++) {
        oa[a] = -1;
        for (int b = 0; b < w->naut && oa[a] < 0; b++)
            if (!strcmp(m->aut[a].name, w->aut[b]))
                oa[a] = b;
        ol[a] = malloc((m->aut[a].nstates + 1) * sizeof **ol);
        if (!ol[a])
            return -1;
        for (int k = 0; k < m->aut[a].nstates; k++) {
            ol[a][k] = -1;
            for (int j = 0; oa[a] >= 0 && j < w->nstates[oa[a]] && ol[a][k] < 0; j++)
                if (!strcmp(m->aut[a].states[k], w->state[oa[a]][j]))
                    ol[a][k] = j;
        }
    }
    return 0;
}

/* The old probability of new global state s, or -1 when it has no
 * counterpart.  A new automaton (a slave added) matches in its first
 * state only; old automata the new model lacks are taken in their first
 * state (a slave removed was idle). */
static double lookup(const san_warm *w, const san_model *m, const int *oa, int *const *ol,
                     const int *s)
{
    int64_t idx = 0;
    for (int a = 0; a < m->naut; a++) {
        if (oa[a] < 0) {
            if (s[a] != 0)
                return -1;      /* a new automaton counts only in its first state */
            continue;
        }
        int l = ol[a][s[a]];
        if (l < 0)
            return -1;
        idx += (int64_t)l * w->stride[oa[a]];
    }
    int64_t lo = 0, hi = w->n - 1;
    while (lo <= hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (w->index[mid] == idx)
            return w->pi[mid];
        if (w->index[mid] < idx)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

double san_warm_map(const san_warm *w, const san_space *sp, double *x)
{
    const san_model *m = sp->m;
    int *oa = malloc((m->naut + 1) * sizeof *oa);
    int **ol = calloc(m->naut + 1, sizeof *ol);
    int *s = malloc((m->naut + 1) * sizeof *s);
    double frac = 0;
    if (!oa || !ol || !s || match(w, m, oa, ol) < 0)
        goto done;
    int64_t hit = 0;
    double sum = 0;
    for (int64_t i = 0; i < sp->n; i++) {
        san_state_decode(m, sp->index[i], s);
        x[i] = lookup(w, m, oa, ol, s);
        if (x[i] >= 0) {
            hit++;
            sum += x[i];
        }
    }
    if (hit == 0 || !(sum > 0)) {
        for (int64_t i = 0; i < sp->n; i++)
            x[i] = 0;
        goto done;
    }
    const double mean = sum / (double)hit;
    for (int64_t i = 0; i < sp->n; i++)
        if (x[i] < 0)
            x[i] = mean;
    frac = (double)hit / (double)sp->n;
done:
    for (int a = 0; ol && a < m->naut; a++)
        free(ol[a]);
    free(ol);
    free(oa);
    free(s);
    return frac;
}
