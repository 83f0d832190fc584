/*
 * terms.c - the terms of the descriptor (kron.h): one per synchronizing
 * event, one per automaton for its local events together
 * (kron_plan_terms); a term's levels (participants, the automata its
 * functions read), its functions (tables.c) and its participants'
 * moves, by destination and by source.
 */
#include <stdlib.h>
#include <string.h>
#include "solver/kron/kron_int.h"
#include "lang/model_int.h"

static void mark_deps(kron_term *t, const san_expr *e)
{
    if (!e || san_expr_is_const(e))
        return;
    int nd;
    const int *dep = san_expr_deps(e, &nd);
    for (int i = 0; i < nd; i++)
        if (t->kind[dep[i]] == KRON_FREE)
            t->kind[dep[i]] = KRON_DEP;
        else if (t->kind[dep[i]] >= 0)
            t->dstride[dep[i]] = -1;    /* participant read by a function */
}

/* Position of event e among the term's events, or -1. */
static inline int term_index(const kron_term *t, int e)
{
    for (int i = 0; i < t->nev; i++)
        if (t->evs[i] == e)
            return i;
    return -1;
}

/* Levels: participants, dependencies (of every event of the term);
 * table strides; L.  Returns the size of the term's tables (past
 * table_max: some size beyond it). */
int64_t kron_term_levels(kron_term *t, const san_model *m, int64_t table_max)
{
    const lang_event *E = &m->ev[t->ev];
    for (int a = 0; a < m->naut; a++) {
        t->kind[a] = KRON_FREE;
        t->dstride[a] = 0;
    }
    for (int k = 0; k < E->nparts; k++)
        t->kind[E->parts[k]] = k;
    for (int i = 0; i < t->nev; i++)
        mark_deps(t, m->ev[t->evs[i]].rate);
    for (int k = 0; k < E->nparts; k++) {
        const lang_automaton *A = &m->aut[E->parts[k]];
        for (int i = 0; i < A->ntr; i++)
            if (term_index(t, A->tr[i].event) >= 0)
                mark_deps(t, A->tr[i].prob);
    }
    int64_t size = 1;
    t->L = 0;
    for (int a = m->naut - 1; a >= 0; a--) {
        int dep = t->kind[a] == KRON_DEP || t->dstride[a] == -1;
        t->dstride[a] = dep ? size : 0;
        if (dep)
            size = size > table_max ? size : size * m->aut[a].nstates;
    }
    for (int a = 0; a < m->naut; a++)
        if (t->kind[a] != KRON_FREE)
            t->L = a;
    return size;
}

/* The moves of participant k, by destination (in) and by source (out).
 * rfn[i], rc[i]: the functional rate (index into fprob) and constant
 * factor that the moves of the term's i-th event carry (-1 and 1 but in
 * merged terms).  With one participant, a self-loop is no move at all
 * (the walk would skip it: nothing moved). */
static int term_part(kron_term *t, const san_model *m, int k, int64_t size,
                     tab_cache *tc, const int32_t *rfn, const double *rc)
{
    const lang_automaton *A = &m->aut[m->ev[t->ev].parts[k]];
    int ns = A->nstates, nm = 0, put = 0;
    kron_part *in = &t->in[k], *out = &t->out[k];
    in->ptr = calloc(ns + 2, sizeof *in->ptr);
    out->ptr = calloc(ns + 2, sizeof *out->ptr);
    for (int i = 0; i < A->ntr; i++)
        nm += term_index(t, A->tr[i].event) >= 0;
    in->mv = malloc((nm + 1) * sizeof *in->mv);
    out->mv = malloc((nm + 1) * sizeof *out->mv);
    kron_fn *fp = realloc(t->fprob, (t->nfp + nm + 1) * sizeof *fp);
    if (fp)
        t->fprob = fp;
    if (!in->ptr || !out->ptr || !in->mv || !out->mv || !fp)
        return -1;
    for (int u = 0; u < ns; u++)
        for (int i = A->first[u]; i < A->first[u + 1]; i++) {
            const lang_trans *tr = &A->tr[i];
            const int j = term_index(t, tr->event);
            if (j < 0 || (t->np == 1 && tr->to == u))
                continue;
            kron_move mv = { 0, -1, rfn[j], rc[j] };
            if (tr->prob && !san_expr_is_const(tr->prob)) {
                if (kron_fn_make(&t->fprob[t->nfp], tr->prob, t, size, tc, m) < 0)
                    return -1;
                mv.fp = t->nfp++;
            } else if (tr->prob) {
                mv.p *= kron_finite(san_expr_const(tr->prob));
            }
            if (mv.p == 0)
                continue;       /* dropped, as on the sparse path */
            mv.other = tr->to;
            out->mv[put++] = mv;
            out->ptr[u + 1]++;
            in->ptr[tr->to + 1]++;
        }
    for (int u = 0; u < ns; u++) {
        out->ptr[u + 1] += out->ptr[u];
        in->ptr[u + 1] += in->ptr[u];
    }
    /* in: the same moves regrouped by destination, other = source */
    int32_t *pos = malloc((ns + 1) * sizeof *pos);
    if (!pos)
        return -1;
    memcpy(pos, in->ptr, (ns + 1) * sizeof *pos);
    for (int u = 0; u < ns; u++)
        for (int32_t j = out->ptr[u]; j < out->ptr[u + 1]; j++) {
            kron_move mv = out->mv[j];
            int w = mv.other;
            mv.other = u;
            in->mv[pos[w]++] = mv;
        }
    free(pos);
    return 0;
}

void kron_term_free(kron_term *t)
{
    for (int k = 0; t->in && k < t->np; k++) {
        free(t->in[k].ptr);
        free(t->in[k].mv);
        free(t->out[k].ptr);
        free(t->out[k].mv);
    }
    free(t->in);
    free(t->out);
    free(t->kind);
    free(t->dstride);
    free(t->fprob);
    free(t->evs);
    kron_rmap_free(t->rg);
}

/* The term of events evs[0 .. nev-1]: one event, or local events of one
 * automaton merged (plan_terms).  A merged term's rate is 1; each move
 * carries its event's rate, folded into p when constant. */
int kron_term_build(kron_term *t, const san_model *m, const int *evs, int nev,
                    tab_cache *tc)
{
    memset(t, 0, sizeof *t);
    t->ev = evs[0];
    t->nev = nev;
    t->np = m->ev[t->ev].nparts;
    t->evs = malloc(nev * sizeof *t->evs);
    t->kind = malloc(m->naut * sizeof *t->kind);
    t->dstride = calloc(m->naut, sizeof *t->dstride);
    t->in = calloc(t->np + 1, sizeof *t->in);
    t->out = calloc(t->np + 1, sizeof *t->out);
    int32_t *rfn = malloc(nev * sizeof *rfn);
    double *rc = malloc(nev * sizeof *rc);
    int rcode = -1;
    if (!t->evs || !t->kind || !t->dstride || !t->in || !t->out || !rfn || !rc)
        goto out;
    memcpy(t->evs, evs, nev * sizeof *evs);
    int64_t size = kron_term_levels(t, m, tc->table_max);
    for (int i = 0; i < nev; i++) {
        rfn[i] = -1;
        rc[i] = 1;
    }
    if (nev == 1) {
        if (kron_fn_make(&t->rate, m->ev[t->ev].rate, t, size, tc, m) < 0)
            goto out;
    } else {
        kron_fn_make(&t->rate, NULL, t, size, tc, m);   /* the constant 1 */
        t->fprob = malloc(nev * sizeof *t->fprob);
        if (!t->fprob)
            goto out;
        for (int i = 0; i < nev; i++) {
            const san_expr *r = m->ev[evs[i]].rate;
            if (!r || san_expr_is_const(r)) {
                rc[i] = r ? kron_finite(san_expr_const(r)) : 1.0;
                continue;
            }
            if (kron_fn_make(&t->fprob[t->nfp], r, t, size, tc, m) < 0)
                goto out;
            rfn[i] = t->nfp++;
        }
    }
    rcode = 0;
    for (int k = 0; rcode == 0 && k < t->np; k++)
        rcode = term_part(t, m, k, size, tc, rfn, rc);
out:
    free(rfn);
    free(rc);
    return rcode;
}

/* Which events make one term.  Every event is a term of its own, except
 * the local events of an automaton (events with one participant: a
 * synchronizing event with a single participant is a local one for Q):
 * those are merged into one term, in event order, as long as no function
 * of the merged term would lose its table: its tables over the union of
 * their dependencies stay within table_max entries, or they are tables
 * per state (read at the last level, bigger than the nleaves of a
 * vector: see kron_fn_make).  An event that would break this keeps a
 * term of its own.  tev receives the events term by term (term i:
 * tev[tstart[i] .. tstart[i+1])), terms in the order of their first
 * events.  Returns the number of terms, or -1 (out of memory). */
int kron_plan_terms(const san_model *m, int64_t nleaves, int64_t table_max,
                    int *tev, int *tstart)
{
    char *done = calloc(m->nev + 1, 1);
    kron_term g = { 0 };
    g.kind = malloc((m->naut + 1) * sizeof *g.kind);
    g.dstride = malloc((m->naut + 1) * sizeof *g.dstride);
    int nt = -1;
    if (!done || !g.kind || !g.dstride)
        goto out;
    int put = 0;
    nt = 0;
    for (int e = 0; e < m->nev; e++) {
        if (done[e])
            continue;
        tstart[nt++] = put;
        tev[put++] = e;
        done[e] = 1;
        if (m->ev[e].nparts != 1)
            continue;
        const int a = m->ev[e].parts[0];
        g.ev = e;
        g.evs = tev + tstart[nt - 1];
        for (int f = e + 1; f < m->nev; f++) {
            if (done[f] || m->ev[f].nparts != 1 || m->ev[f].parts[0] != a)
                continue;
            tev[put] = f;       /* tried as the group's next event */
            g.nev = put + 1 - tstart[nt - 1];
            const int64_t size = kron_term_levels(&g, m, table_max);
            if (size <= table_max || (g.L == m->naut - 1 && size > nleaves)) {
                done[f] = 1;
                put++;
            }
        }
    }
    tstart[nt] = put;
out:
    free(done);
    free(g.kind);
    free(g.dstride);
    return nt;
}

double kron_term_bytes(const kron_term *t, const san_model *m)
{
    double b = sizeof *t + (4.0 + 8.0) * m->naut + 4.0 * t->nev;
    for (int k = 0; k < t->np; k++) {
        int ns = m->aut[m->ev[t->ev].parts[k]].nstates;
        b += 2 * (4.0 * (ns + 2) + sizeof(kron_move) * t->in[k].ptr[ns]);
    }
    return b + sizeof(kron_fn) * t->nfp + (t->rg ? t->rg->bytes : 0);
}
