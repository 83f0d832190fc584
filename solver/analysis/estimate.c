/*
 * estimate.c - memory of the sparse generator and of the tensor
 * descriptor, estimated without building the state space; see estimate.h.
 *
 * The state count: the states the reachability function accepts, counted
 * over the automata the function reads (the others are free, each of
 * their combinations is accepted alike).  Under partial reachability
 * those are only where the exploration starts: a bounded breadth-first
 * exploration from them gives the exact count when the space is small,
 * else the product space is the (upper) bound.
 *
 * The nonzeros per state: the distinct successors of a state other than
 * itself, plus the diagonal, as solver/space/ writes the rows of Q;
 * averaged over every accepted state when there are few, else over a
 * sample drawn with a fixed seed (the output is deterministic).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lang/expr.h"
#include "solver/space/idmap.h"
#include "solver/space/reach_walk.h"
#include "solver/space/succ.h"
#include "solver/analysis/estimate.h"
#include "lang/model_int.h"

#define SAMPLES 4096            /* states whose successors are counted */
#define COUNT_EVALS 33554432.0 /* reachability evaluations to count */
#define COUNT_WORK (8 * WORK)   /* and instructions spent in them */
#define TRIES (1 << 20)         /* random states tried when not counted */
#define EXPLORE_LIMIT (1 << 18) /* states explored under partial reachability */
#define ARCS_PER_STATE_MAX 1e6  /* transitions out of one state, at most */
#define ARCS_BUDGET 3e7         /* transitions enumerated in all */
#define WORK 134217728.0        /* instructions of the expression machine
                                   spent on counting, and on the rows */

const char *san_estimate_basis_name(san_estimate_basis b)
{
    return b == SAN_EST_DECLARED ? "declared" : b == SAN_EST_REACHABLE ? "reachable" : "product";
}

typedef struct {
    const san_model *m;
    int *dep, ndep;         /* automata the reachability function reads */
    int *fre, nfre;         /* the others */
    int counted;            /* accepted is known */
    int64_t accepted;
    int64_t *res;           /* reservoir of accepted combinations of the dep */
    int nres;               /*   automata, as indices (free automata at 0) */
    int64_t *all;           /* every accepted combination, while at most */
    int64_t nall, capall;   /*   EXPLORE_LIMIT (else all is NULL) */
    uint64_t rng;
    succ_ctx c;
    int c_ready;
    space_arcs arcs;
    int64_t *to;            /* distinct successors of the last row */
    int tocap;
    double arcs_done;
    int64_t samples;        /* states sampled, at most */
    int64_t explore_limit;  /* states explored, at most */
    int *s;
} est;

/* What an est holds (a zeroed est holds nothing). */
static void est_free(est *x)
{
    if (x->c_ready)
        succ_free(&x->c);
    free(x->arcs.v);
    free(x->to);
    free(x->res);
    free(x->all);
    free(x->s);
    free(x->dep);
    free(x->fre);
}

static uint64_t rnd(est *x)
{
    uint64_t z = (x->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int rnd_below(est *x, int n)
{
    return (int)((double)(rnd(x) >> 11) * 0x1p-53 * n);
}

/* Instructions to evaluate e once, roughly (a tabulated function is one
 * lookup); *visits bounds the walk through the functions it calls. */
static double expr_cost(const san_expr *e, int *visits)
{
    if (!e || e->is_const || e->tab)
        return 1;
    if (++*visits > 100000)
        return WORK;
    double c = 0;
    for (int i = 0; i < e->ncode && c < WORK; i++) {
        const xins *x = &e->code[i];
        c += 1;
        if (x->op == X_NB || x->op == X_SUMRW || x->op == X_PRODRW)
            c += x->n;
        else if (x->op == X_CALL)
            c += expr_cost(e->calls[x->a], visits);
    }
    return c;
}

/* Work of the rows of one state, at most: every event's rate and
 * probabilities evaluated, every automaton visited. */
static double state_cost(const san_model *m)
{
    int visits = 0;
    double c = m->naut + 1;
    for (int e = 0; e < m->nev && c < WORK; e++)
        c += m->ev[e].nparts + expr_cost(m->ev[e].rate, &visits);
    for (int a = 0; a < m->naut && c < WORK; a++)
        for (int t = 0; t < m->aut[a].ntr && c < WORK; t++)
            if (m->aut[a].tr[t].prob)
                c += expr_cost(m->aut[a].tr[t].prob, &visits);
    return c;
}

/* Next combination of the automata in aut[0..n) (the last varies
 * fastest); 0 after the last one. */
static int odometer(const san_model *m, int *s, const int *aut, int n)
{
    for (int i = n - 1; i >= 0; i--) {
        if (++s[aut[i]] < m->aut[aut[i]].nstates)
            return 1;
        s[aut[i]] = 0;
    }
    return 0;
}

static int64_t encode_part(const san_model *m, const int *s, const int *aut, int n)
{
    int64_t idx = 0;
    for (int i = 0; i < n; i++)
        idx += (int64_t)s[aut[i]] * m->stride[aut[i]];
    return idx;
}

/* A uniformly random accepted state (counted: from the reservoir). */
static int64_t random_accepted(est *x, int i)
{
    int64_t idx = x->res[i % x->nres];
    for (int k = 0; k < x->nfre; k++) {
        int a = x->fre[k];
        idx += (int64_t)rnd_below(x, x->m->aut[a].nstates) * x->m->stride[a];
    }
    return idx;
}

/* A uniformly random product state. */
static int64_t random_state(est *x)
{
    int64_t idx = 0;
    for (int a = 0; a < x->m->naut; a++)
        idx += (int64_t)rnd_below(x, x->m->aut[a].nstates) * x->m->stride[a];
    return idx;
}

/* One accepted combination of the automata the function reads:
 * counted, drawn into the reservoir, and kept while they are few. */
static int count_take(reach_walk *w, int64_t idx, const int *state)
{
    est *x = w->ctx;
    const int64_t n = x->accepted++;
    (void)state;
    if (n < SAMPLES) {
        x->res[n] = idx;
    } else {
        int64_t j = (int64_t)((double)(rnd(x) >> 11) * 0x1p-53 * (n + 1));
        if (j < SAMPLES)
            x->res[j] = idx;
    }
    if (x->all && x->nall == x->capall) {
        int64_t cap = 2 * x->capall;
        int64_t *v = cap <= EXPLORE_LIMIT ? realloc(x->all, cap * sizeof *v) : NULL;
        if (!v)
            free(x->all);
        x->all = v;
        x->capall = cap;
    }
    if (x->all)
        x->all[x->nall++] = idx;
    return 0;
}

/* Count the accepted states over the automata the function reads, and
 * keep a uniform sample of the accepted combinations (reservoir).  The
 * walk (reach_walk.h) skips the boxes where the function is surely 0,
 * so a small reachable set in a huge product is counted exactly (rs
 * N=28 R=8: 4.8 M states of 2^28); it gives up past COUNT_EVALS
 * evaluations, or WORK instructions of them. */
static int count_accepted(est *x)
{
    const san_model *m = x->m;
    int visits = 0;
    double cost = expr_cost(m->reach, &visits);
    x->res = malloc(SAMPLES * sizeof *x->res);
    x->capall = 1024;
    x->all = malloc(x->capall * sizeof *x->all);
    if (!x->res || !x->all)
        return -1;
    x->accepted = 0;
    reach_walk w = { .m = m, .aut = x->dep, .naut = x->ndep,
                     .max_evals = (int64_t)fmin(COUNT_EVALS, COUNT_WORK / cost),
                     .take = count_take, .ctx = x };
    int rc = reach_walk_run(&w);
    if (rc == -3) {             /* too long: not counted */
        x->accepted = x->nall = 0;
        return 0;
    }
    if (rc < 0)
        return -1;
    double dep_product = 1;
    for (int k = 0; k < x->ndep; k++)
        dep_product *= m->aut[x->dep[k]].nstates;
    x->nres = x->accepted < SAMPLES ? (int)x->accepted : SAMPLES;
    x->accepted *= (int64_t)(m->product / (int64_t)dep_product);
    x->counted = 1;
    return 0;
}

/* Every accepted state into *list (the caller knows there are at most
 * max, and then count_accepted kept their combinations); the count, or
 * -1 when out of memory. */
static int64_t all_accepted(est *x, int64_t **list, int64_t max)
{
    const san_model *m = x->m;
    int64_t n = 0, *v = malloc((max ? max : 1) * sizeof *v);
    int *t = calloc(m->naut + 1, sizeof *t);
    if (!v || !t || !x->all) {
        free(v);
        free(t);
        return -1;
    }
    for (int64_t i = 0; i < x->nall; i++) {
        do {
            if (n < max)
                v[n++] = x->all[i] + encode_part(m, t, x->fre, x->nfre);
        } while (odometer(m, t, x->fre, x->nfre));
    }
    free(t);
    *list = v;
    return n;
}

/* Up to SAMPLES random states the function accepts, tried among TRIES
 * random product states (the count is unknown: the function reads too
 * many automata); none found: random product states. */
static int64_t sampled_accepted(est *x, int64_t **list)
{
    int64_t n = 0, *v = malloc(x->samples * sizeof *v);
    int visits = 0;
    double tries = fmin(TRIES, WORK / expr_cost(x->m->reach, &visits));
    if (!v)
        return -1;
    if (x->counted) {
        for (; n < x->samples; n++)
            v[n] = random_accepted(x, (int)n);
    } else {
        for (int t = 0; t < tries && n < x->samples; t++) {
            int64_t idx = random_state(x);
            san_state_decode(x->m, idx, x->s);
            if (san_expr_eval(x->m->reach, x->s) != 0)
                v[n++] = idx;
        }
        if (n == 0)
            for (; n < x->samples; n++)
                v[n] = random_state(x);
    }
    *list = v;
    return n;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The distinct successors of idx other than itself into x->to; their
 * count, -1 when a rate or probability is invalid there (the state is
 * left out), -2 when out of memory. */
static int successors(est *x, int64_t idx)
{
    char err[512];
    san_state_decode(x->m, idx, x->s);
    x->arcs.n = 0;
    int rc = succ_enumerate(&x->c, x->s, idx, &x->arcs, err, sizeof err);
    x->arcs_done += x->arcs.n;
    if (rc == -1)
        return -2;
    if (rc)
        return -1;
    if (x->arcs.n > x->tocap) {
        int cap = 2 * x->arcs.n;
        int64_t *t = realloc(x->to, cap * sizeof *t);
        if (!t)
            return -2;
        x->to = t;
        x->tocap = cap;
    }
    int n = 0;
    for (int k = 0; k < x->arcs.n; k++)
        if (x->arcs.v[k].to != idx)
            x->to[n++] = x->arcs.v[k].to;
    if (n > 1)
        qsort(x->to, n, sizeof *x->to, cmp_i64);
    int u = 0;
    for (int k = 0; k < n; k++)
        if (u == 0 || x->to[k] != x->to[u - 1])
            x->to[u++] = x->to[k];
    return u;
}

/* Nonzeros over the states of list (all of the basis when every = 1). */
static int rows_of(est *x, const int64_t *list, int64_t n, int every, san_estimate *e)
{
    double sum = 0;
    int64_t done = 0;
    for (int64_t i = 0; i < n && (i == 0 || x->arcs_done < ARCS_BUDGET); i++) {
        int k = successors(x, list[i]);
        if (k == -2)
            return -1;
        if (k >= 0) {
            sum += k + 1;
            done++;
        }
    }
    if (done == 0) {
        snprintf(e->why_nonzeros, sizeof e->why_nonzeros, "no sampled state has valid rates");
        return 0;
    }
    e->nonzeros_known = 1;
    e->sampled = done;
    e->nonzeros_per_state = sum / done;
    e->nonzeros_exact = every && done == n;
    return 0;
}

/* Partial reachability: breadth-first from the accepted states, up to
 * x->explore_limit states.  complete: the seeds are every accepted state. */
static int explore(est *x, const int64_t *seeds, int64_t nseeds, int complete, san_estimate *e)
{
    int bits = 2;
    while (((int64_t)1 << bits) < 4 * x->explore_limit)
        bits++;
    const uint64_t cap = (uint64_t)1 << bits, mask = cap - 1;
    uint64_t *set = calloc(cap, sizeof *set);
    int64_t *list = malloc(x->explore_limit * sizeof *list), n = 0;
    int rc = -1, full = 0, bad = 0;
    if (!set || !list)
        goto out;
    double sum = 0;
    int64_t done = 0;
    for (int64_t i = 0, head = -1; !full; i++) {
        int k = 0;
        const int64_t *next;
        if (head < 0) {         /* the seeds first */
            if (i == nseeds) {
                head = 0;
                continue;
            }
            next = &seeds[i];
            k = 1;
        } else {
            if (head == n)
                break;
            if (x->arcs_done > ARCS_BUDGET) {
                full = 1;
                break;
            }
            k = successors(x, list[head++]);
            if (k == -2)
                goto out;
            if (k < 0) {
                bad = 1;
                continue;
            }
            sum += k + 1;
            done++;
            next = x->to;
        }
        for (int j = 0; j < k; j++) {
            uint64_t key = (uint64_t)next[j] + 1, h = (key * 0x9e3779b97f4a7c15ull) >> (64 - bits);
            while (set[h] && set[h] != key)
                h = (h + 1) & mask;
            if (set[h])
                continue;
            if (n == x->explore_limit) {
                full = 1;
                break;
            }
            set[h] = key;
            list[n++] = next[j];
        }
    }
    rc = 0;
    if (complete && !full) {
        e->basis = SAN_EST_REACHABLE;
        e->states = n;
    } else if (full) {
        e->states_at_least = n;
    }
    if (done) {
        e->nonzeros_known = 1;
        e->sampled = done;
        e->nonzeros_per_state = sum / done;
        e->nonzeros_exact = complete && !full && !bad;
    } else {
        snprintf(e->why_nonzeros, sizeof e->why_nonzeros, "no explored state has valid rates");
    }
out:
    free(set);
    free(list);
    return rc;
}

/* The sparse path's peak (solver/space/, then solver/analysis/solve.c):
 *   exploring: the index and the row pointer of each state (16 bytes),
 *     each nonzero of Q (column and value, 12 bytes), and the map from
 *     index to state number (idmap.h: 4 bytes per product state, or a
 *     hash table of 12 bytes a slot at most half full);
 *   solving: the map is gone; the transpose (8 bytes a state, 12 a
 *     nonzero), the vector (8) and the class flag (1) are added. */
double est_sparse_bytes(const san_model *m, double n, double nnz)
{
    double map = idmap_estimate(m, n, san_default_max_memory());
    double exploring = 16 * n + 12 * nnz + map, solving = 33 * n + 24 * nnz;
    return exploring > solving ? exploring : solving;
}

san_status san_estimate_memory(const san_model *m, san_estimate *e)
{
    memset(e, 0, sizeof *e);
    if (!m->product_fits) {
        snprintf(e->why, sizeof e->why, "the product space (%s states) does not fit in 64 "
                 "bits: too large to estimate", m->product_str);
        return SAN_OK;
    }
    est x;
    memset(&x, 0, sizeof x);
    x.m = m;
    x.rng = 0x5a4e5f657374ull;     /* fixed: the same output every run */
    int rc = -1, nd = 0;
    const int *deps = san_expr_is_const(m->reach) ? NULL : san_expr_deps(m->reach, &nd);
    int64_t *list = NULL, nlist = 0;
    x.s = calloc(m->naut + 1, sizeof *x.s);
    x.dep = malloc((m->naut + 1) * sizeof *x.dep);
    x.fre = malloc((m->naut + 1) * sizeof *x.fre);
    char *is_dep = calloc(m->naut + 1, 1);
    if (!x.s || !x.dep || !x.fre || !is_dep)
        goto out;
    for (int k = 0; k < nd; k++)
        is_dep[deps[k]] = 1;
    for (int a = 0; a < m->naut; a++) {
        if (is_dep[a])
            x.dep[x.ndep++] = a;
        else
            x.fre[x.nfre++] = a;
    }
    if (count_accepted(&x) < 0)
        goto out;
    if (x.counted && x.accepted == 0) {
        snprintf(e->why, sizeof e->why, "the reachability function accepts no state");
        rc = 0;
        goto out;
    }
    e->basis = !m->partial && x.counted ? SAN_EST_DECLARED : SAN_EST_PRODUCT;
    e->states = e->basis == SAN_EST_DECLARED ? x.accepted : m->product;

    int worst;
    double worst_fanout, bound = succ_fanout(m, &worst, &worst_fanout);
    double work = WORK / state_cost(m);
    x.samples = work < SAMPLES ? (int64_t)work : SAMPLES;
    x.explore_limit = work < EXPLORE_LIMIT ? (int64_t)work : EXPLORE_LIMIT;
    if (bound > ARCS_PER_STATE_MAX) {
        snprintf(e->why_nonzeros, sizeof e->why_nonzeros, "one state can have up to %.3g "
                 "transitions (event '%s': %.3g outcomes), too many to sample", bound,
                 worst >= 0 ? m->ev[worst].name : "?", worst_fanout);
    } else if (x.samples < 1) {
        snprintf(e->why_nonzeros, sizeof e->why_nonzeros, "the rates and probabilities are "
                 "too long to evaluate here");
    } else {
        if (succ_init(&x.c, m) < 0)
            goto out;
        x.c_ready = 1;
        int every = 0;
        int64_t max = m->partial ? x.explore_limit : x.samples;
        if (x.counted && x.accepted <= max) {
            nlist = all_accepted(&x, &list, x.accepted);
            every = 1;
        } else {
            nlist = sampled_accepted(&x, &list);
        }
        if (nlist < 0)
            goto out;
        if (m->partial ? explore(&x, list, nlist, every, e) < 0
                       : rows_of(&x, list, nlist, every, e) < 0)
            goto out;
    }
    if (e->nonzeros_known) {
        e->nonzeros = e->nonzeros_per_state * (double)e->states;
        e->sparse_bytes = est_sparse_bytes(m, (double)e->states, e->nonzeros);
    }
    e->kron_bytes = san_kron_estimate_bytes(m, e->states);
    e->over_sparse_limit = e->states >= INT32_MAX - 1;
    e->ok = 1;
    rc = 0;
out:
    if (rc < 0) {
        memset(e, 0, sizeof *e);
        snprintf(e->why, sizeof e->why, "out of memory while estimating");
    }
    est_free(&x);
    free(is_dep);
    free(list);
    return rc < 0 ? SAN_E_NOMEM : SAN_OK;
}

double est_nonzeros_of(const san_model *m, const int64_t *index, int64_t n)
{
    est x;
    memset(&x, 0, sizeof x);
    x.m = m;
    const int64_t k = n < SAMPLES ? n : SAMPLES;
    int64_t *list = malloc((k ? k : 1) * sizeof *list);
    x.s = calloc(m->naut + 1, sizeof *x.s);
    double nnz = 0;
    san_estimate e;
    memset(&e, 0, sizeof e);
    if (list && x.s && succ_fanout(m, NULL, NULL) <= ARCS_PER_STATE_MAX && succ_init(&x.c, m) == 0) {
        x.c_ready = 1;
        for (int64_t i = 0; i < k; i++)     /* evenly spaced over the space */
            list[i] = index[(int64_t)((double)i * n / k)];
        if (rows_of(&x, list, k, k == n, &e) == 0 && e.nonzeros_known)
            nnz = e.nonzeros_per_state * (double)n;
    }
    est_free(&x);
    free(list);
    return nnz;
}

double est_sparse_bytes_of(const san_model *m, const int64_t *index, int64_t n)
{
    double nnz = est_nonzeros_of(m, index, n);
    return nnz > 0 ? est_sparse_bytes(m, (double)n, nnz) : 0;
}
