/*
 * succ.c - transitions out of a global state; see succ.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "succ.h"

int succ_init(succ_ctx *c, const san_model *m)
{
    memset(c, 0, sizeof *c);
    c->m = m;
    int ne = m->nev > 0 ? m->nev : 1;
    c->range = calloc(ne, sizeof *c->range);
    c->off = calloc(ne, sizeof *c->off);
    c->functional_prob = calloc(ne, 1);
    if (!c->range || !c->off || !c->functional_prob)
        return -1;
    for (int e = 0; e < m->nev; e++) {
        const san_event *E = &m->ev[e];
        if (E->nparts > c->maxparts)
            c->maxparts = E->nparts;
        c->off[e] = calloc(E->nparts + 1, sizeof **c->off);
        if (!c->off[e])
            return -1;
        for (int k = 0; k < E->nparts; k++)
            c->off[e][k + 1] = c->off[e][k] + m->aut[E->parts[k]].nstates;
        c->range[e] = calloc(2 * (size_t)c->off[e][E->nparts] + 1, sizeof **c->range);
        if (!c->range[e])
            return -1;
    }
    /* One pass over every automaton's transitions fills the ranges: they
     * are sorted by (source, event), so each (source, event) run is
     * contiguous. */
    for (int a = 0; a < m->naut; a++) {
        const san_automaton *A = &m->aut[a];
        for (int ls = 0; ls < A->nstates; ls++) {
            for (int t = A->first[ls]; t < A->first[ls + 1];) {
                int e = A->tr[t].event, u = t;
                while (u < A->first[ls + 1] && A->tr[u].event == e) {
                    if (A->tr[u].prob && !san_expr_is_const(A->tr[u].prob))
                        c->functional_prob[e] = 1;
                    u++;
                }
                const san_event *E = &m->ev[e];
                for (int k = 0; k < E->nparts; k++)
                    if (E->parts[k] == a) {
                        int32_t *r = &c->range[e][2 * (c->off[e][k] + ls)];
                        r[0] = t;
                        r[1] = u;
                    }
                t = u;
            }
        }
    }
    c->syn = calloc(ne, sizeof *c->syn);
    c->rate_slot = calloc(ne, sizeof *c->rate_slot);
    c->slot_val = calloc(ne, sizeof *c->slot_val);
    c->slot_gen = calloc(ne, sizeof *c->slot_gen);
    if (!c->syn || !c->rate_slot || !c->slot_val || !c->slot_gen)
        return -1;
    /* one slot per run of events sharing a rate expression: the copies
     * of a replicated event are consecutive and share theirs */
    for (int e = 0, nslots = 0; e < m->nev; e++)
        c->rate_slot[e] = e > 0 && m->ev[e - 1].rate == m->ev[e].rate ? c->rate_slot[e - 1]
                                                                      : nslots++;
    c->gen = 1;
    for (int e = 0; e < m->nev; e++)
        if (m->ev[e].sync)
            c->syn[c->nsyn++] = e;
    c->choice = calloc(c->maxparts + 1, sizeof *c->choice);
    c->base = calloc(c->maxparts + 1, sizeof *c->base);
    return c->choice && c->base ? 0 : -1;
}

void succ_free(succ_ctx *c)
{
    if (c->m)
        for (int e = 0; e < c->m->nev; e++) {
            if (c->range)
                free(c->range[e]);
            if (c->off)
                free(c->off[e]);
        }
    free(c->range);
    free(c->off);
    free(c->functional_prob);
    free(c->choice);
    free(c->base);
    free(c->syn);
    free(c->rate_slot);
    free(c->slot_val);
    free(c->slot_gen);
    free(c->pbuf);
    memset(c, 0, sizeof *c);
}

static inline const int32_t *range_of(const succ_ctx *c, int e, int k, int ls)
{
    return &c->range[e][2 * (c->off[e][k] + ls)];
}

double succ_event_rate(succ_ctx *c, int e, const int *s)
{
    const san_event *E = &c->m->ev[e];
    for (int k = 0; k < E->nparts; k++) {
        const int32_t *r = range_of(c, e, k, s[E->parts[k]]);
        if (r[0] == r[1])
            return 0;
    }
    int slot = c->rate_slot[e];
    if (c->slot_gen[slot] != c->gen) {
        c->slot_val[slot] = san_expr_eval(E->rate, s);
        c->slot_gen[slot] = c->gen;
    }
    return c->slot_val[slot];
}

void succ_new_state(succ_ctx *c)
{
    c->gen++;
}

static int push(san_arcs *out, int64_t to, double rate, int e)
{
    if (out->n == out->cap) {
        int cap = out->cap ? 2 * out->cap : 64;
        san_arc *v = realloc(out->v, cap * sizeof *v);
        if (!v)
            return -1;
        out->v = v;
        out->cap = cap;
    }
    out->v[out->n].to = to;
    out->v[out->n].rate = rate;
    out->v[out->n].event = e;
    out->n++;
    return 0;
}

static int grow_pbuf(succ_ctx *c, int need)
{
    int cap = c->pbuf_cap ? c->pbuf_cap : 64;
    while (cap - c->pbuf_used < need)
        cap *= 2;
    double *p = realloc(c->pbuf, cap * sizeof *p);
    if (!p)
        return -1;
    c->pbuf = p;
    c->pbuf_cap = cap;
    return 0;
}

static void describe(const san_model *m, const int *s, char *buf, size_t n)
{
    san_state_name(m, s, buf, n);
}

/* Probability of one outcome; checks are done per event by the caller. */
static inline double prob_of(const san_trans *t, const int *s)
{
    return t->prob ? san_expr_eval(t->prob, s) : 1.0;
}

/* Probabilities of the outcomes of participant k, evaluated once into
 * p[]; functional ones must lie in [0, 1] and sum to 1. */
static int participant_probs(const succ_ctx *c, int e, int a, const int32_t *r, const int *s,
                             double *p, char *err, size_t errlen)
{
    const san_automaton *A = &c->m->aut[a];
    double sum = 0;
    int bad = 0;
    for (int t = r[0]; t < r[1]; t++) {
        double x = prob_of(&A->tr[t], s);
        p[t - r[0]] = x;
        bad |= !(x >= 0 && x <= 1);
        sum += x;
    }
    if (!bad && fabs(sum - 1) <= 1e-12)
        return 0;
    char st[512];
    describe(c->m, s, st, sizeof st);
    if (bad)
        snprintf(err, errlen, "a routing probability of event '%s' in automaton '%s' is not in "
                 "[0, 1] in state (%s)", c->m->ev[e].name, A->name, st);
    else
        snprintf(err, errlen, "routing probabilities of event '%s' in automaton '%s' sum to %.15g, "
                 "not 1, in state (%s)", c->m->ev[e].name, A->name, sum, st);
    return -2;
}

/* Rate of enabled event e in s: 0 (skip), or > 0; -2 when invalid. */
static int event_rate(succ_ctx *c, int e, const int *s, double *rate,
                      char *err, size_t errlen)
{
    const san_event *E = &c->m->ev[e];
    int slot = c->rate_slot[e];
    if (c->slot_gen[slot] != c->gen) {
        c->slot_val[slot] = san_expr_eval(E->rate, s);
        c->slot_gen[slot] = c->gen;
    }
    *rate = c->slot_val[slot];
    if (*rate == 0 || (*rate > 0 && isfinite(*rate)))
        return 0;
    char st[512];
    describe(c->m, s, st, sizeof st);
    snprintf(err, errlen, "rate of event '%s' is %s (%g) in state (%s)", E->name,
             isfinite(*rate) ? "negative" : "not finite", *rate, st);
    return -2;
}

/* A local event of automaton a, its outcomes tr[t0 .. t1). */
static int fire_local(succ_ctx *c, int e, int a, int t0, int t1, const int *s, int64_t idx,
                      san_arcs *out, char *err, size_t errlen)
{
    const san_automaton *A = &c->m->aut[a];
    double rate;
    int rc = event_rate(c, e, s, &rate, err, errlen);
    if (rc || rate == 0)
        return rc;
    if (c->functional_prob[e]) {
        int32_t r[2] = { t0, t1 };
        c->pbuf_used = 0;
        if (t1 - t0 > c->pbuf_cap && grow_pbuf(c, t1 - t0) < 0)
            goto oom;
        rc = participant_probs(c, e, a, r, s, c->pbuf, err, errlen);
        if (rc)
            return rc;
    }
    for (int t = t0; t < t1; t++) {
        double p = c->functional_prob[e] ? c->pbuf[t - t0] : prob_of(&A->tr[t], s);
        int64_t to = idx + (int64_t)(A->tr[t].to - s[a]) * c->m->stride[a];
        if (p > 0 && push(out, to, rate * p, e) < 0)
            goto oom;
    }
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

/* A synchronizing event: enabled when every participant has it from its
 * current state; every combination of their outcomes. */
static int fire_sync(succ_ctx *c, int e, const int *s, int64_t idx, san_arcs *out,
                     char *err, size_t errlen)
{
    const san_model *m = c->m;
    const san_event *E = &m->ev[e];
    int k;
    for (k = 0; k < E->nparts; k++) {
        const int32_t *r = range_of(c, e, k, s[E->parts[k]]);
        if (r[0] == r[1])
            return 0;
    }
    if (E->nparts == 0)
        return 0;
    double rate;
    int rc = event_rate(c, e, s, &rate, err, errlen);
    if (rc || rate == 0)
        return rc;
    /* Outcome probabilities, once per participant, then every
     * combination of the participants' outcomes, odometer-wise. */
    int np = E->nparts;
    for (k = 0; k < np; k++) {
        const int32_t *r = range_of(c, e, k, s[E->parts[k]]);
        c->base[k] = c->pbuf_used;
        if (r[1] - r[0] > c->pbuf_cap - c->pbuf_used && grow_pbuf(c, r[1] - r[0]) < 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        if (c->functional_prob[e]) {
            int rc = participant_probs(c, e, E->parts[k], r, s, c->pbuf + c->base[k], err, errlen);
            if (rc)
                return rc;
        } else {
            const san_automaton *A = &m->aut[E->parts[k]];
            for (int t = r[0]; t < r[1]; t++)
                c->pbuf[c->base[k] + t - r[0]] = prob_of(&A->tr[t], s);
        }
        c->pbuf_used += r[1] - r[0];
        c->choice[k] = r[0];
    }
    c->pbuf_used = 0;
    for (;;) {
        double p = rate;
        int64_t to = idx;
        for (k = 0; k < np; k++) {
            int a = E->parts[k];
            const int32_t *r = range_of(c, e, k, s[a]);
            const san_trans *t = &m->aut[a].tr[c->choice[k]];
            p *= c->pbuf[c->base[k] + c->choice[k] - r[0]];
            to += (int64_t)(t->to - s[a]) * m->stride[a];
        }
        if (p > 0 && push(out, to, p, e) < 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        for (k = np - 1; k >= 0; k--) {
            const int32_t *r = range_of(c, e, k, s[E->parts[k]]);
            if (++c->choice[k] < r[1])
                break;
            c->choice[k] = r[0];
        }
        if (k < 0)
            break;
    }
    return 0;
}

int succ_enumerate(succ_ctx *c, const int *s, int64_t idx, san_arcs *out,
                   char *err, size_t errlen)
{
    const san_model *m = c->m;
    succ_new_state(c);      /* cached rates belong to the last state */
    /* Local events: walk the transitions leaving each automaton's current
     * state (grouped by event), so only enabled events cost anything. */
    for (int a = 0; a < m->naut; a++) {
        const san_automaton *A = &m->aut[a];
        int end = A->first[s[a] + 1];
        for (int t = A->first[s[a]]; t < end;) {
            int e = A->tr[t].event, u = t + 1;
            while (u < end && A->tr[u].event == e)
                u++;
            if (!m->ev[e].sync) {
                int rc = fire_local(c, e, a, t, u, s, idx, out, err, errlen);
                if (rc)
                    return rc;
            }
            t = u;
        }
    }
    for (int k = 0; k < c->nsyn; k++) {
        int rc = fire_sync(c, c->syn[k], s, idx, out, err, errlen);
        if (rc)
            return rc;
    }
    return 0;
}
