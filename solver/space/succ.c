/*
 * succ.c - transitions out of a global state; see succ.h.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "solver/space/succ.h"
#include "lang/where.h"
#include "lang/model_int.h"

/* Routing probabilities must sum to 1 within this (constant ones as
 * written, 1/3 to nine digits, and functional ones evaluated). */
#define PROB_SUM_TOL 1e-9

/* Do groups g of automaton a and h of automaton b read the same
 * probability slots, all functional, in the same order? */
static int same_slots(const succ_ctx *c, int a, const struct succ_group *g, int b,
                      const struct succ_group *h)
{
    if (g->event != h->event && c->m->ev[g->event].rate != c->m->ev[h->event].rate)
        return 0;
    if (g->t1 - g->t0 != h->t1 - h->t0)
        return 0;
    for (int k = 0; k < g->t1 - g->t0; k++)
        if (c->pslot[a][g->t0 + k] < 0 || c->pslot[a][g->t0 + k] != c->pslot[b][h->t0 + k])
            return 0;
    return 1;
}

/* Signatures of the groups with functional probabilities (see succ.h). */
static int group_signatures(succ_ctx *c)
{
    const san_model *m = c->m;
    int ngroups = 0, nsig = 0;
    for (int a = 0; a < m->naut; a++)
        ngroups += c->lgstart[a][m->aut[a].nstates];
    int (*rep)[2] = malloc((ngroups + 1) * sizeof *rep);   /* (automaton, group) */
    if (!rep)
        return -1;
    for (int a = 0; a < m->naut; a++)
        for (int i = 0; i < c->lgstart[a][m->aut[a].nstates]; i++) {
            struct succ_group *g = &c->lg[a][i];
            if (!c->functional_prob[g->event] || c->pslot[a][g->t0] < 0)
                continue;
            int k = 0;
            while (k < nsig && !same_slots(c, a, g, rep[k][0], &c->lg[rep[k][0]][rep[k][1]]))
                k++;
            if (k == nsig && same_slots(c, a, g, a, g)) {
                rep[nsig][0] = a;
                rep[nsig++][1] = i;
            }
            if (k < nsig)
                g->sig = k;
        }
    free(rep);
    c->sig_gen = calloc(nsig + 1, sizeof *c->sig_gen);
    return c->sig_gen ? 0 : -1;
}

/* The groups of local transitions of every local state, and the index
 * change of every transition. */
static int local_groups_init(succ_ctx *c)
{
    const san_model *m = c->m;
    c->lg = calloc(m->naut + 1, sizeof *c->lg);
    c->lgstart = calloc(m->naut + 1, sizeof *c->lgstart);
    c->delta = calloc(m->naut + 1, sizeof *c->delta);
    if (!c->lg || !c->lgstart || !c->delta)
        return -1;
    for (int a = 0; a < m->naut; a++) {
        const lang_automaton *A = &m->aut[a];
        int nt = A->first[A->nstates];
        c->lg[a] = malloc((nt + 1) * sizeof **c->lg);
        c->lgstart[a] = malloc((A->nstates + 1) * sizeof **c->lgstart);
        c->delta[a] = malloc((nt + 1) * sizeof **c->delta);
        if (!c->lg[a] || !c->lgstart[a] || !c->delta[a])
            return -1;
        int ng = 0;
        for (int ls = 0; ls < A->nstates; ls++) {
            c->lgstart[a][ls] = ng;
            for (int t = A->first[ls]; t < A->first[ls + 1];) {
                int e = A->tr[t].event, u = t + 1;
                while (u < A->first[ls + 1] && A->tr[u].event == e)
                    u++;
                if (!m->ev[e].sync)
                    c->lg[a][ng++] = (struct succ_group){ e, t, u, -1 };
                t = u;
            }
        }
        c->lgstart[a][A->nstates] = ng;
        for (int ls = 0; ls < A->nstates; ls++)
            for (int t = A->first[ls]; t < A->first[ls + 1]; t++)
                c->delta[a][t] = (int64_t)(A->tr[t].to - ls) * m->stride[a];
    }
    return group_signatures(c);
}

/* The constant rates and probabilities, and the probability slots. */
static int constants_init(succ_ctx *c)
{
    const san_model *m = c->m;
    int ne = m->nev > 0 ? m->nev : 1, ntr = 0;
    c->crate = malloc(ne * sizeof *c->crate);
    c->cprob = calloc(m->naut + 1, sizeof *c->cprob);
    c->pslot = calloc(m->naut + 1, sizeof *c->pslot);
    if (!c->crate || !c->cprob || !c->pslot)
        return -1;
    for (int e = 0; e < m->nev; e++)
        c->crate[e] = san_expr_is_const(m->ev[e].rate) ? san_expr_const(m->ev[e].rate) : NAN;
    for (int a = 0; a < m->naut; a++)
        ntr += m->aut[a].first[m->aut[a].nstates];
    const san_expr **seen = malloc((ntr + 1) * sizeof *seen);
    if (!seen)
        return -1;
    int nslots = 0;
    for (int a = 0; a < m->naut; a++) {
        const lang_automaton *A = &m->aut[a];
        int nt = A->first[A->nstates];
        c->cprob[a] = malloc((nt + 1) * sizeof **c->cprob);
        c->pslot[a] = malloc((nt + 1) * sizeof **c->pslot);
        if (!c->cprob[a] || !c->pslot[a]) {
            free(seen);
            return -1;
        }
        for (int t = 0; t < nt; t++) {
            const san_expr *p = A->tr[t].prob;
            c->pslot[a][t] = -1;
            c->cprob[a][t] = !p ? 1.0 : san_expr_is_const(p) ? san_expr_const(p) : NAN;
            if (!p || san_expr_is_const(p))
                continue;
            int k = 0;
            while (k < nslots && seen[k] != p)
                k++;
            if (k == nslots)
                seen[nslots++] = p;
            c->pslot[a][t] = k;
        }
    }
    free(seen);
    if (local_groups_init(c) < 0)
        return -1;
    c->pslot_val = calloc(nslots + 1, sizeof *c->pslot_val);
    c->pslot_gen = calloc(nslots + 1, sizeof *c->pslot_gen);
    return c->pslot_val && c->pslot_gen ? 0 : -1;
}

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
        const lang_event *E = &m->ev[e];
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
        const lang_automaton *A = &m->aut[a];
        for (int ls = 0; ls < A->nstates; ls++) {
            for (int t = A->first[ls]; t < A->first[ls + 1];) {
                int e = A->tr[t].event, u = t;
                double sum = 0;
                while (u < A->first[ls + 1] && A->tr[u].event == e) {
                    const san_expr *p = A->tr[u].prob;
                    if (p && !san_expr_is_const(p))
                        c->functional_prob[e] = 1;
                    sum += !p ? 1 : san_expr_is_const(p) ? san_expr_const(p) : 1;
                    u++;
                }
                /* Constant probabilities that do not sum to 1 (a `to(++)`
                 * dropped at the end of a block) are an error only where
                 * the event fires: checked there, like functional ones. */
                if (!c->functional_prob[e] && fabs(sum - 1) > PROB_SUM_TOL)
                    c->functional_prob[e] = 1;
                const lang_event *E = &m->ev[e];
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
    c->cnt = calloc(c->maxparts + 1, sizeof *c->cnt);
    if (!c->choice || !c->base || !c->cnt)
        return -1;
    return constants_init(c);
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
    free(c->cnt);
    free(c->syn);
    free(c->rate_slot);
    free(c->slot_val);
    free(c->slot_gen);
    free(c->pbuf);
    for (int a = 0; c->m && a < c->m->naut; a++) {
        if (c->cprob)
            free(c->cprob[a]);
        if (c->pslot)
            free(c->pslot[a]);
    }
    for (int a = 0; c->m && a < c->m->naut; a++) {
        if (c->lg)
            free(c->lg[a]);
        if (c->lgstart)
            free(c->lgstart[a]);
        if (c->delta)
            free(c->delta[a]);
    }
    free(c->lg);
    free(c->lgstart);
    free(c->sig_gen);
    free(c->delta);
    free(c->crate);
    free(c->cprob);
    free(c->pslot);
    free(c->pslot_val);
    free(c->pslot_gen);
    memset(c, 0, sizeof *c);
}

static inline const int32_t *range_of(const succ_ctx *c, int e, int k, int ls)
{
    return &c->range[e][2 * (c->off[e][k] + ls)];
}

double succ_event_rate(succ_ctx *c, int e, const int *s)
{
    const lang_event *E = &c->m->ev[e];
    /* An event that labels no transition (declared but unused, or every
     * transition of it dropped at the end of a block) never fires. */
    if (E->nparts == 0)
        return 0;
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

static inline int push(space_arcs *out, int64_t to, double rate, int e)
{
    if (__builtin_expect(out->n == out->cap, 0)) {
        int cap = out->cap ? 2 * out->cap : 64;
        space_arc *v = realloc(out->v, cap * sizeof *v);
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

/* Probability of outcome t of automaton a; checks are done per event by
 * the caller. */
static inline double prob_at(succ_ctx *c, int a, int t, const int *s)
{
    int slot = c->pslot[a][t];
    if (slot < 0)
        return c->cprob[a][t];
    if (c->pslot_gen[slot] != c->gen) {
        c->pslot_val[slot] = san_expr_eval(c->m->aut[a].tr[t].prob, s);
        c->pslot_gen[slot] = c->gen;
    }
    return c->pslot_val[slot];
}

/* A problem: to the audit (0, the event goes on without what is
 * invalid), or the message and -2. */
static int problem(succ_ctx *c, const succ_problem *p, const int *s, char *err, size_t errlen)
{
    if (c->report) {
        c->report(c->report_ctx, p, s);
        return 0;
    }
    succ_problem_text(c->m, p, s, err, errlen);
    c->err_line = c->err_col = 0;
    succ_problem_where(c->m, p, &c->err_line, &c->err_col);
    return -2;
}

/* Probabilities of the outcomes of participant k, evaluated once into
 * p[]; they must lie in [0, 1] and sum to 1 (audited: invalid ones
 * become 0). */
static int participant_probs(succ_ctx *c, int e, int a, const int32_t *r, const int *s,
                             double *p, char *err, size_t errlen)
{
    double sum = 0, bad = 0;
    int nbad = 0;
    for (int t = r[0]; t < r[1]; t++) {
        double x = prob_at(c, a, t, s);
        p[t - r[0]] = x;
        if (!(x >= 0 && x <= 1)) {
            if (!nbad++)
                bad = x;
            p[t - r[0]] = 0;
        }
        sum += x;
    }
    if (!nbad && fabs(sum - 1) <= PROB_SUM_TOL)
        return 0;
    succ_problem pr = { nbad ? SUCC_PROB_RANGE : SUCC_PROB_SUM, e, a, s[a], nbad ? bad : sum };
    return problem(c, &pr, s, err, errlen);
}

/* Rate of enabled event e in s: 0 (skip), or > 0; -2 when invalid
 * (audited: 0, the event skipped). */
static int event_rate(succ_ctx *c, int e, const int *s, double *rate,
                      char *err, size_t errlen)
{
    const lang_event *E = &c->m->ev[e];
    double x = c->crate[e];
    if (x != x) {
        int slot = c->rate_slot[e];
        if (c->slot_gen[slot] != c->gen) {
            c->slot_val[slot] = san_expr_eval(E->rate, s);
            c->slot_gen[slot] = c->gen;
        }
        x = c->slot_val[slot];
    }
    *rate = x;
    if (x == 0 || (x > 0 && x <= DBL_MAX))
        return 0;
    *rate = 0;
    succ_problem pr = { SUCC_RATE, e, -1, -1, x };
    return problem(c, &pr, s, err, errlen);
}

static const char *step_text(int rel, char *buf, size_t n)
{
    snprintf(buf, n, rel == 1 ? "++" : rel == -1 ? "--" : "%+d", rel);
    return buf;
}

void succ_problem_text(const san_model *m, const succ_problem *p, const int *s, char *buf,
                       size_t n)
{
    char st[512];
    describe(m, s, st, sizeof st);
    const char *ev = m->ev[p->event].name;
    if (p->kind == SUCC_RATE) {
        if (p->value != p->value)
            snprintf(buf, n, "rate of event '%s' is not a number in state (%s)", ev, st);
        else
            snprintf(buf, n, "rate of event '%s' is %s (%g) in state (%s)", ev,
                     isfinite(p->value) ? "negative" : "not finite", p->value, st);
        return;
    }
    const lang_automaton *A = &m->aut[p->aut];
    if (p->kind == SUCC_PROB_RANGE) {
        snprintf(buf, n, "a routing probability of event '%s' from state '%s' of '%s' is "
                 "not in [0, 1] (%g) in state (%s)", ev, A->states[p->from], A->name, p->value,
                 st);
        return;
    }
    int line, col, rel;
    char step[16];
    int len = snprintf(buf, n, "routing probabilities of event '%s' from state '%s' of '%s' "
                       "sum to %.12g, not 1, in state (%s)", ev, A->states[p->from], A->name,
                       p->value, st);
    char sign;
    if (p->value == 0 && len > 0 && (size_t)len < n &&
        where_by(m, p->aut, p->from, p->event, &line, &col, &sign))
        snprintf(buf + len, n - len, ": the to(%c...) at line %d:%d leads to no state here "
                 "(its expression must give a whole number that lands on a state of %s)",
                 sign, line, col, sign == '=' ? "the automaton" : "the block");
    else if (p->value < 1 && len > 0 && (size_t)len < n &&
        where_dropped(m, p->aut, p->from, p->event, &line, &col, &rel))
        snprintf(buf + len, n - len, ": the to(%s) at line %d leaves the block at '%s', "
                 "where '%s' can fire; give that state its own transitions with "
                 "'from %s'", step_text(rel, step, sizeof step), line,
                 A->states[p->from], ev, A->states[p->from]);
}

int succ_problem_where(const san_model *m, const succ_problem *p, int *line, int *col)
{
    if (p->kind == SUCC_RATE)
        return where_rate(m, p->event, line, col);
    return where_trans(m, p->aut, p->from, p->event, line, col);
}

/* A local event of automaton a, its outcomes tr[t0 .. t1). */
static int fire_local(succ_ctx *c, int e, int a, int t0, int t1, const int *s, int64_t idx,
                      space_arcs *out, char *err, size_t errlen)
{
    const lang_automaton *A = &c->m->aut[a];
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
        double p = c->functional_prob[e] ? c->pbuf[t - t0] : c->cprob[a][t];
        int64_t to = idx + (int64_t)(A->tr[t].to - s[a]) * c->m->stride[a];
        if (p > 0 && push(out, to, rate * p, e) < 0)
            goto oom;
    }
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

/* Synchronizing event e in s: enabled when every participant has it
 * from its current state.  Its rate to *rate, and the probabilities of
 * the participants' outcomes to pbuf (participant k's cnt[k] of them from
 * base[k]).  1 when enabled with a positive rate, 0 when not, -1 out of
 * memory, -2 an invalid rate or probability (err). */
static int sync_setup(succ_ctx *c, int e, const int *s, double *rate, char *err,
                      size_t errlen)
{
    const lang_event *E = &c->m->ev[e];
    const int np = E->nparts;
    if (np == 0)
        return 0;
    for (int k = 0; k < np; k++) {
        const int32_t *r = range_of(c, e, k, s[E->parts[k]]);
        if (r[0] == r[1])
            return 0;
    }
    int rc = event_rate(c, e, s, rate, err, errlen);
    if (rc || *rate == 0)
        return rc;
    c->pbuf_used = 0;
    for (int k = 0; k < np; k++) {
        const int32_t *r = range_of(c, e, k, s[E->parts[k]]);
        c->base[k] = c->pbuf_used;
        c->cnt[k] = r[1] - r[0];
        if (r[1] - r[0] > c->pbuf_cap - c->pbuf_used && grow_pbuf(c, r[1] - r[0]) < 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        if (c->functional_prob[e]) {
            rc = participant_probs(c, e, E->parts[k], r, s, c->pbuf + c->base[k], err, errlen);
            if (rc)
                return rc;
        } else {
            for (int t = r[0]; t < r[1]; t++)
                c->pbuf[c->base[k] + t - r[0]] = c->cprob[E->parts[k]][t];
        }
        c->pbuf_used += r[1] - r[0];
    }
    c->pbuf_used = 0;
    return 1;
}

/* The outcome combinations of the participants (after sync_setup): the
 * product of cnt[0..np), or -1 past 63 bits. */
static int64_t combinations(const succ_ctx *c, int np)
{
    int64_t total = 1;
    for (int k = 0; k < np; k++) {
        if (total > INT64_MAX / c->cnt[k])
            return -1;
        total *= c->cnt[k];
    }
    return total;
}

/* Combinations from, from + 1, ... of synchronizing event e in s, the
 * last participant varying fastest, at most max of them (max <= 0: all
 * the rest).  *next: the first one not listed, -1 when none is left.
 * 0, -1 (memory) or -2 (err). */
static int fire_sync(succ_ctx *c, int e, const int *s, int64_t idx, int64_t from, int64_t max,
                     space_arcs *out, int64_t *next, char *err, size_t errlen)
{
    const san_model *m = c->m;
    const lang_event *E = &m->ev[e];
    const int np = E->nparts;
    double rate;
    *next = -1;
    int rc = sync_setup(c, e, s, &rate, err, errlen);
    if (rc <= 0)
        return rc;
    const int64_t total = combinations(c, np);
    if (total < 0) {
        snprintf(err, errlen, "event '%s' has more than 2^63 outcome combinations in one "
                 "state", E->name);
        return -2;
    }
    const int64_t end = max > 0 && total - from > max ? from + max : total;
    /* the odometer at `from`: its mixed-radix digits */
    int64_t rest = from;
    for (int k = np - 1; k >= 0; k--) {
        const int32_t *r = range_of(c, e, k, s[E->parts[k]]);
        c->choice[k] = r[0] + (int)(rest % c->cnt[k]);
        rest /= c->cnt[k];
    }
    for (int64_t at = from; at < end; at++) {
        double p = rate;
        int64_t to = idx;
        int k;
        for (k = 0; k < np; k++) {
            int a = E->parts[k];
            const int32_t *r = range_of(c, e, k, s[a]);
            const lang_trans *t = &m->aut[a].tr[c->choice[k]];
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
    }
    *next = end < total ? end : -1;
    return 0;
}

/* The local events of automaton a in s (its groups leaving s[a]).
 * Constant rates and probabilities take the short way. */
static int fire_locals(succ_ctx *c, int a, const int *s, int64_t idx, space_arcs *out,
                       char *err, size_t errlen)
{
    const struct succ_group *g = c->lg[a] + c->lgstart[a][s[a]];
    const struct succ_group *gend = c->lg[a] + c->lgstart[a][s[a] + 1];
    for (; g < gend; g++) {
        int e = g->event;
        double rate = c->crate[e];
        int ok_rate = rate > 0 && rate <= DBL_MAX;
        if (ok_rate && g->sig >= 0 && c->sig_gen[g->sig] == c->gen) {
            /* probabilities already checked on a replica */
            const int *ps = c->pslot[a];
            const int64_t *dl = c->delta[a];
            for (int t = g->t0; t < g->t1; t++) {
                double p = c->pslot_val[ps[t]];
                if (p > 0 && push(out, idx + dl[t], rate * p, e) < 0)
                    goto oom;
            }
            continue;
        }
        if (!ok_rate || c->functional_prob[e]) {
            int rc = fire_local(c, e, a, g->t0, g->t1, s, idx, out, err, errlen);
            if (rc)
                return rc;
            if (ok_rate && g->sig >= 0)
                c->sig_gen[g->sig] = c->gen;
            continue;
        }
        const double *cp = c->cprob[a];
        const int64_t *dl = c->delta[a];
        for (int t = g->t0; t < g->t1; t++)
            if (cp[t] > 0 && push(out, idx + dl[t], rate * cp[t], e) < 0)
                goto oom;
    }
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

/* Each call starts a new generation of the per-state caches: the state
 * may have changed since the last piece (the class check lists the
 * states of its path in turns), and a piece re-evaluates the few rates
 * and probabilities it needs. */
int succ_enumerate_part(succ_ctx *c, const int *s, int64_t idx, succ_cursor *cur,
                        int64_t max, space_arcs *out, char *err, size_t errlen)
{
    const san_model *m = c->m;
    const int n0 = out->n;
    succ_new_state(c);
    while (cur->item < m->naut + c->nsyn) {
        if (max > 0 && out->n - n0 >= max)
            return 1;
        if (cur->item < m->naut) {
            int rc = fire_locals(c, cur->item, s, idx, out, err, errlen);
            if (rc)
                return rc;
            cur->item++;
            continue;
        }
        int64_t next, room = max > 0 ? max - (out->n - n0) : 0;
        int rc = fire_sync(c, c->syn[cur->item - m->naut], s, idx, cur->done, room, out,
                           &next, err, errlen);
        if (rc)
            return rc;
        if (next >= 0) {
            cur->done = next;
            return 1;
        }
        cur->item++;
        cur->done = 0;
    }
    return 0;
}

/* The events whose arcs from..n of out leave the state, each with the
 * sum of its rates, at most 8 named: "'e1' (1e+308), 'e2' (1e+308)". */
static void leaving_events(const succ_ctx *c, const space_arcs *out, int from, int64_t idx,
                           char *buf, size_t n)
{
    size_t used = 0;
    int shown = 0;
    buf[0] = '\0';
    for (int k = from; k < out->n && used < n; k++) {
        int e = out->v[k].event, seen = 0;
        for (int j = from; j < k && !seen; j++)
            seen = out->v[j].event == e && out->v[j].to != idx;
        if (seen || out->v[k].to == idx)
            continue;
        double sum = 0;
        for (int j = k; j < out->n; j++)
            if (out->v[j].event == e && out->v[j].to != idx)
                sum += out->v[j].rate;
        int w = shown < 8 ? snprintf(buf + used, n - used, "%s'%s' (%g)", shown ? ", " : "",
                                     c->m->ev[e].name, sum)
                          : snprintf(buf + used, n - used, ", ...");
        if (w < 0 || shown++ == 8)
            break;
        used += (size_t)w;
    }
}

/* The diagonal of the generator is minus the sum of the rates leaving a
 * state: finite rates can sum past the largest double (two of 1e308),
 * which the solvers met as "non-finite rate (at Q[0][0])", exit 1.  The
 * model is at fault: -2 naming the state and its events. */
int succ_check_exit_rate(const succ_ctx *c, const int *s, int64_t idx, const space_arcs *out,
                         int from, char *err, size_t errlen)
{
    double sum = 0;
    for (int k = from; k < out->n; k++)
        sum += out->v[k].to != idx ? out->v[k].rate : 0;
    if (sum <= DBL_MAX)
        return 0;
    char st[512], evs[512];
    describe(c->m, s, st, sizeof st);
    leaving_events(c, out, from, idx, evs, sizeof evs);
    snprintf(err, errlen, "the rates leaving state (%s) sum beyond the largest double "
             "(%.3g): events %s", st, DBL_MAX, evs);
    return -2;
}

int succ_enumerate(succ_ctx *c, const int *s, int64_t idx, space_arcs *out,
                   char *err, size_t errlen)
{
    const int from = out->n;
    succ_cursor cur = { 0, 0 };
    int st = succ_enumerate_part(c, s, idx, &cur, 0, out, err, errlen);
    /* whole states only: a fan-out taken in parts (explore's bounded
     * chunks) is not summed here */
    return st ? st : succ_check_exit_rate(c, s, idx, out, from, err, errlen);
}

double succ_fanout(const san_model *m, int *event, double *event_fanout)
{
    int ne = m->nev ? m->nev : 1;
    double *b = malloc(ne * sizeof *b);
    int *mx = calloc(ne, sizeof *mx), *stamp = malloc(ne * sizeof *stamp);
    int *touched = malloc(ne * sizeof *touched), *parts = calloc(ne, sizeof *parts);
    double total = INFINITY;
    if (event)
        *event = -1;
    if (event_fanout)
        *event_fanout = 0;
    if (!b || !mx || !stamp || !touched || !parts)
        goto out;
    for (int e = 0; e < m->nev; e++) {
        b[e] = 1;
        stamp[e] = -1;
    }
    /* per automaton, the longest run of one event's transitions out of
     * one local state (transitions are sorted by source, then event) */
    for (int a = 0; a < m->naut; a++) {
        const lang_automaton *A = &m->aut[a];
        int nt = 0;
        for (int ls = 0; ls < A->nstates; ls++)
            for (int t = A->first[ls]; t < A->first[ls + 1];) {
                int e = A->tr[t].event, u = t;
                while (u < A->first[ls + 1] && A->tr[u].event == e)
                    u++;
                if (stamp[e] != a) {
                    stamp[e] = a;
                    mx[e] = 0;
                    touched[nt++] = e;
                }
                if (u - t > mx[e])
                    mx[e] = u - t;
                t = u;
            }
        for (int k = 0; k < nt; k++) {
            b[touched[k]] *= mx[touched[k]];
            parts[touched[k]]++;
        }
    }
    total = 0;
    for (int e = 0; e < m->nev; e++) {
        if (parts[e] < m->ev[e].nparts)
            continue;           /* a participant never has it: never enabled */
        total += b[e];
        if (event_fanout && b[e] > *event_fanout) {
            *event_fanout = b[e];
            if (event)
                *event = e;
        }
    }
out:
    free(b);
    free(mx);
    free(stamp);
    free(touched);
    free(parts);
    return total;
}
