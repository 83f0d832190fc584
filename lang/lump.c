/*
 * lump.c - the lumped model (issue 28): each class of interchangeable
 * automata (lump_detect.c) becomes one counter automaton whose local
 * states are the occupancy vectors n (how many members are in each
 * local state), ranked combinatorially; the rest of the model is kept.
 *
 *   - an event of all members moves the counter by the members' one
 *     transition each: n -> sum_s n_s e_{t(s)};
 *   - a family of per-member events e[1..N] becomes one event of rate
 *     rate x m(n), m(n) the members able to fire it (sum of n_s over the
 *     states that have it), routing n -> n - e_s + e_t with probability
 *     n_s / m(n) x p(s -> t): the lumped chain's rates are the sums of
 *     the original rates over each class of states (strong lumpability
 *     by the symmetry);
 *   - a family whose rate reads its firing member's own state (st C[k]
 *     in the rate of e[k:N]) fires at sum_s rate(s) n_s, rate(s) the
 *     rate with the member's state read as s, over the states s that
 *     have the event; its routing from s is rate(s) n_s p(s -> t) over
 *     that sum (each member in s fires at rate(s));
 *   - expressions read the members through counts and sums of rewards
 *     only (the detector proved it): each such read becomes a table
 *     lookup over the counter's states.
 * The lumped model is built directly; the original product space is
 * never enumerated.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lang/expr.h"
#include "lang/lump.h"
#include "lang/model_int.h"

typedef struct {
    const san_model *m;
    san_lumping *L;
    lang_oom *oom;
    san_model *out;
    int *fam;               /* per original event: family or -1 */
    int *fam_rep;           /* per original event: its family's first event */
    san_expr **memo;        /* rewritten pool expressions, by pool index */
    const san_expr **ptr;   /* the pool sorted by address */
    int *ptr_idx;
} builder;

/* ---- occupancy vectors ---- */

/* binom[(n) * (s + 1) + r] = C(n, r), n <= N + s, r <= s */
static int64_t *binomials(lang_oom *oom, int N, int s)
{
    int rows = N + s + 1;
    int64_t *b = lang_calloc(oom, (size_t)rows * (s + 1), sizeof *b);
    for (int n = 0; n < rows; n++) {
        b[n * (s + 1)] = 1;
        for (int r = 1; r <= s && r <= n; r++)
            b[n * (s + 1) + r] = b[(n - 1) * (s + 1) + r - 1] +
                                 (r <= n - 1 ? b[(n - 1) * (s + 1) + r] : 0);
    }
    return b;
}

/* The rank of occupancy vector v (ns entries summing to N) in the order
 * of enumerate(): lexicographic, v[0] descending first. */
static int64_t occ_rank(const int32_t *v, int ns, int N, const int64_t *binom)
{
    int64_t k = 0;
    int R = N;
    for (int j = 0; j < ns - 1; j++) {
        int r = ns - 1 - j;
        if (R > v[j])
            k += binom[(size_t)(R - v[j] - 1 + r) * (ns + 1) + r];
        R -= v[j];
    }
    return k;
}

int64_t lump_rank(const lump_class *C, const int32_t *v)
{
    return occ_rank(v, C->ns, C->n, C->binom);
}

/* Every occupancy vector, in rank order. */
static void enumerate(lump_class *C, lang_oom *oom)
{
    int ns = C->ns;
    C->occ = lang_calloc(oom, (size_t)C->nk * ns, sizeof *C->occ);
    int32_t *v = C->occ;
    v[0] = C->n;
    for (int64_t k = 1; k < C->nk; k++) {
        int32_t *w = v + ns;
        memcpy(w, v, (size_t)ns * sizeof *v);
        int j = ns - 2;
        while (j >= 0 && w[j] == 0)
            j--;
        int rest = 0;
        for (int i = j + 1; i < ns; i++)
            rest += w[i], w[i] = 0;
        w[j]--;
        w[j + 1] = rest + 1;
        v = w;
    }
}

/* ---- expressions ---- */

static int cmp_ptr(const void *x, const void *y)
{
    const san_expr *a = *(const san_expr *const *)x, *b = *(const san_expr *const *)y;
    return (a > b) - (a < b);
}

static san_expr *pool_add(builder *B, san_expr *e)
{
    san_model *o = B->out;
    if (o->npool == o->cappool) {
        o->cappool = o->cappool ? 2 * o->cappool : 64;
        o->pool = lang_realloc(B->oom, o->pool, (size_t)o->cappool * sizeof *o->pool);
    }
    o->pool[o->npool++] = e;
    return e;
}

/* Table over class C's counter of: sum over the ranges [lo, hi] of the
 * counts (weights NULL), or of the counts times the rewards w[s], or the
 * product of w[s]^count (prod). */
static double *class_table(builder *B, const lump_class *C, const int32_t *lohi, int nr,
                           int stride, const double *rtab, int prod)
{
    double *t = lang_calloc(B->oom, (size_t)C->nk, sizeof *t);
    for (int64_t k = 0; k < C->nk; k++) {
        const int32_t *v = C->occ + k * C->ns;
        double acc = prod ? 1 : 0;
        for (int r = 0; r < nr; r++) {
            const int32_t *q = lohi + (size_t)r * stride;
            int hi = q[1] < C->ns - 1 ? q[1] : C->ns - 1;
            for (int s = q[0] < 0 ? 0 : q[0]; s <= hi; s++) {
                if (!rtab)
                    acc += v[s];
                else if (prod)
                    acc *= v[s] ? pow(rtab[q[2] + s], v[s]) : 1;
                else
                    acc += v[s] * rtab[q[2] + s];
            }
        }
        t[k] = acc;
    }
    return t;
}

static san_expr *rewrite(builder *B, const san_expr *e);

static san_expr *rewrite_call(builder *B, const san_expr *fn)
{
    const san_expr **p = bsearch(&fn, B->ptr, (size_t)B->m->npool, sizeof *B->ptr, cmp_ptr);
    int i = B->ptr_idx[p - B->ptr];
    if (!B->memo[i])
        B->memo[i] = pool_add(B, rewrite(B, fn));
    return B->memo[i];
}

/* Emit a count, sum or product instruction of e (in), its members'
 * entries replaced by a lookup in a table over each class's counter. */
static void emit_aggregate(builder *B, xbuild *b, const san_expr *e, const xins *in, int rbase)
{
    san_lumping *L = B->L;
    int w = in->op == X_NB ? 3 : 4;
    int off = b->e->nitab, n = 0;
    for (int t = 0; t < in->n; t++) {
        const int32_t *q = e->itab + in->a + w * t;
        if (L->aut_class[q[0]] >= 0)
            continue;
        xb_itab(b, L->aut_map[q[0]]);
        for (int k = 1; k < w; k++)
            xb_itab(b, k == 3 ? q[k] + rbase : q[k]);   /* the reward table moved */
        n++;
    }
    /* every member lumped: the empty count or sum is 0, the empty product
     * 1 (an instruction over no entries would read an empty table) */
    if (n)
        xb_emit(b, (xop)in->op, off, n, 0);
    else
        xb_emit(b, X_CONST, 0, 0, in->op == X_PRODRW ? 1.0 : 0.0);
    xop join = in->op == X_PRODRW ? X_MUL : X_ADD;
    for (int c = 0; c < L->nclass; c++) {
        const lump_class *C = &L->cls[c];
        int rep = C->members[0], nr = 0;
        int32_t *lohi = lang_calloc(B->oom, (size_t)in->n * 3 + 1, sizeof *lohi);
        for (int t = 0; t < in->n; t++) {
            const int32_t *q = e->itab + in->a + w * t;
            if (q[0] != rep)
                continue;
            lohi[3 * nr] = q[1];
            lohi[3 * nr + 1] = q[2];
            lohi[3 * nr + 2] = w == 4 ? q[3] : 0;
            nr++;
        }
        if (nr) {
            double *tab = class_table(B, C, lohi, nr, 3, w == 4 ? e->rtab : NULL,
                                      in->op == X_PRODRW);
            int toff = xb_rtab(b, tab, (int)C->nk);
            free(tab);
            xb_emit(b, X_RW, C->counter, toff, 0);
            xb_emit(b, join, 0, 0, 0);
        }
        free(lohi);
    }
}

/* Append e's code over the lumped model to b (its value pushed): st of
 * automaton own (>= 0, a member of a class: a rate that reads its own
 * member) read as the constant own_state. */
static void emit_expr(builder *B, xbuild *b, const san_expr *e, int own, int own_state)
{
    san_lumping *L = B->L;
    const int rbase = e->nrtab ? xb_rtab(b, e->rtab, e->nrtab) : 0;
    for (int i = 0; i < e->ncode; i++) {
        const xins *in = &e->code[i];
        switch (in->op) {
        case X_ST:
            if (in->a == own)
                xb_emit(b, X_CONST, 0, 0, own_state);
            else
                xb_emit(b, X_ST, L->aut_map[in->a], in->n, in->v);
            break;
        case X_RW:
            xb_emit(b, X_RW, L->aut_map[in->a], in->n + rbase, in->v);
            break;
        case X_NB: case X_SUMRW: case X_PRODRW:
            emit_aggregate(B, b, e, in, rbase);
            break;
        case X_THR: {
            int off = b->e->nitab;
            for (int k = 0; k < in->n; k++)
                xb_itab(b, L->ev_map[e->itab[in->a + k]]);
            xb_emit(b, X_THR, off, in->n, 0);
            break;
        }
        case X_CALL:
            xb_emit(b, X_CALL, xb_call(b, rewrite_call(B, e->calls[in->a])), 0, 0);
            break;
        default:
            xb_emit(b, (xop)in->op, in->a, in->n, in->v);
        }
    }
}

/* Append a lookup of table t (over class C's counter). */
static void emit_table(xbuild *b, const lump_class *C, const double *t)
{
    int toff = xb_rtab(b, t, (int)C->nk);
    xb_emit(b, X_RW, C->counter, toff, 0);
}

/* e over the lumped model, times table mul over the counter of class
 * mul_class when mul is not NULL. */
static san_expr *rewrite_mul(builder *B, const san_expr *e, const double *mul, int mul_class)
{
    xbuild b;
    xb_init(&b, B->oom);
    emit_expr(B, &b, e, -1, 0);
    if (mul) {
        emit_table(&b, &B->L->cls[mul_class], mul);
        xb_emit(&b, X_MUL, 0, 0, 0);
    }
    return xb_finish(&b);
}

/* Does e read st of automaton a (a rate reading its own member)? */
static int reads_own(const san_expr *e, int a)
{
    for (int i = 0; e && i < e->ncode; i++)
        if (e->code[i].op == X_ST && e->code[i].a == a)
            return 1;
    return 0;
}

/* The counts n_s of class C over its counter. */
static double *count_table(builder *B, const lump_class *C, int s)
{
    double *t = lang_calloc(B->oom, (size_t)C->nk, sizeof *t);
    for (int64_t k = 0; k < C->nk; k++)
        t[k] = C->occ[k * C->ns + s];
    return t;
}

/* Append the sum over the local states s of member A (automaton own)
 * that have event e of rate(own = s) x n_s: the lumped rate of a family
 * whose rate reads its member's state (each member in s fires at
 * rate(s)). */
static void emit_split_rate(builder *B, xbuild *b, const lump_class *C, const lang_automaton *A,
                            int own, int e, const san_expr *rate)
{
    int first = 1;
    for (int s = 0; s < A->nstates; s++) {
        int has = 0;
        for (int u = A->first[s]; u < A->first[s + 1] && !has; u++)
            has = A->tr[u].event == e;
        if (!has)
            continue;
        double *n = count_table(B, C, s);
        emit_expr(B, b, rate, own, s);
        emit_table(b, C, n);
        xb_emit(b, X_MUL, 0, 0, 0);
        if (!first)
            xb_emit(b, X_ADD, 0, 0, 0);
        first = 0;
        free(n);
    }
    if (first)
        xb_emit(b, X_CONST, 0, 0, 0);
}

static san_expr *rewrite(builder *B, const san_expr *e)
{
    return rewrite_mul(B, e, NULL, 0);
}

/* The pool's rewritten copy of e (NULL stays NULL). */
static san_expr *rw(builder *B, const san_expr *e)
{
    if (!e)
        return NULL;
    const san_expr **p = bsearch(&e, B->ptr, (size_t)B->m->npool, sizeof *B->ptr, cmp_ptr);
    if (!p)
        return pool_add(B, rewrite(B, e));
    int i = B->ptr_idx[p - B->ptr];
    if (!B->memo[i])
        B->memo[i] = pool_add(B, rewrite(B, e));
    return B->memo[i];
}

/* ---- the classes and the maps ---- */

static void make_classes(builder *B, const int *cls)
{
    const san_model *m = B->m;
    san_lumping *L = B->L;
    int max = 0;
    for (int a = 0; a < m->naut; a++)
        max = cls[a] + 1 > max ? cls[a] + 1 : max;
    int *size = lang_calloc(B->oom, (size_t)max + 1, sizeof *size);
    int *id = lang_calloc(B->oom, (size_t)max + 1, sizeof *id);
    for (int a = 0; a < m->naut; a++)
        size[cls[a]]++;
    for (int c = 0; c < max; c++)
        id[c] = size[c] > 1 ? L->nclass++ : -1;
    L->cls = lang_calloc(B->oom, (size_t)L->nclass + 1, sizeof *L->cls);
    L->aut_class = lang_calloc(B->oom, (size_t)m->naut + 1, sizeof *L->aut_class);
    L->aut_map = lang_calloc(B->oom, (size_t)m->naut + 1, sizeof *L->aut_map);
    int na = 0;
    for (int a = 0; a < m->naut; a++) {
        int c = id[cls[a]];
        L->aut_class[a] = c;
        if (c < 0) {
            L->aut_map[a] = na++;
            continue;
        }
        lump_class *C = &L->cls[c];
        if (!C->members) {
            C->members = lang_calloc(B->oom, (size_t)size[cls[a]], sizeof *C->members);
            C->ns = m->aut[a].nstates;
            C->counter = na++;
        }
        C->members[C->n++] = a;
        L->aut_map[a] = C->counter;
    }
    free(size);
    free(id);
    for (int c = 0; c < L->nclass; c++) {
        lump_class *C = &L->cls[c];
        int64_t nk = 1;         /* C(n + ns - 1, ns - 1), checked by the detector */
        for (int k = 1; k < C->ns; k++)
            nk = nk * (C->n + k) / k;
        C->nk = nk;
        C->binom = binomials(B->oom, C->n, C->ns);
        enumerate(C, B->oom);
    }
}

/* Events: a family's first event stands for it; the others map to it. */
static void map_events(builder *B)
{
    const san_model *m = B->m;
    san_lumping *L = B->L;
    L->ev_map = lang_calloc(B->oom, (size_t)m->nev + 1, sizeof *L->ev_map);
    L->ev_div = lang_calloc(B->oom, (size_t)m->nev + 1, sizeof *L->ev_div);
    B->fam_rep = lang_calloc(B->oom, (size_t)m->nev + 1, sizeof *B->fam_rep);
    int nfam = 0;
    for (int e = 0; e < m->nev; e++)
        nfam = B->fam[e] + 1 > nfam ? B->fam[e] + 1 : nfam;
    int *first = lang_calloc(B->oom, (size_t)nfam + 1, sizeof *first);
    int *count = lang_calloc(B->oom, (size_t)nfam + 1, sizeof *count);
    int ne = 0;
    for (int e = 0; e < m->nev; e++) {
        int f = B->fam[e];
        if (f >= 0 && count[f]++) {
            B->fam_rep[e] = first[f];
            L->ev_map[e] = L->ev_map[first[f]];
            continue;
        }
        if (f >= 0)
            first[f] = e;
        B->fam_rep[e] = e;
        L->ev_map[e] = ne++;
    }
    for (int e = 0; e < m->nev; e++)
        L->ev_div[e] = B->fam[e] >= 0 ? count[B->fam[e]] : 1;
    B->out->nev = ne;
    free(first);
    free(count);
}

/* ---- names ---- */

/* The index of "P[12]" after prefix "P" (-1: none). */
static int replica_index(const char *name, const char *prefix, size_t n)
{
    int k, used = 0;
    if (strncmp(name, prefix, n) || name[n] != '[' ||
        sscanf(name + n, "[%d]%n", &k, &used) != 1 || name[n + used] != '\0')
        return -1;
    return k;
}

/* "Slave[1..64]" for Slave[1] .. Slave[64], "M[1..2,4..5]" without M[3];
 * else the names, "A, B, C" (or "A .. Z (N automata)" when long). */
static char *class_name(builder *B, const lump_class *C)
{
    const char *a = B->m->aut[C->members[0]].name;
    const char *br = strrchr(a, '[');
    size_t n = br ? (size_t)(br - a) : 0;
    int ok = br != NULL;
    for (int k = 0; k < C->n && ok; k++)
        ok = replica_index(B->m->aut[C->members[k]].name, a, n) >= 0;
    size_t cap = 64 + (size_t)C->n * 24 + n;
    char *out = lang_calloc(B->oom, cap, 1), *p = out;
    if (ok) {
        p += sprintf(p, "%.*s[", (int)n, a);
        for (int k = 0; k < C->n;) {
            int lo = replica_index(B->m->aut[C->members[k]].name, a, n), j = k;
            while (j + 1 < C->n &&
                   replica_index(B->m->aut[C->members[j + 1]].name, a, n) == lo + (j + 1 - k))
                j++;
            int hi = lo + (j - k);
            p += sprintf(p, "%s%d", k ? "," : "", lo);
            if (hi > lo)
                p += sprintf(p, "..%d", hi);
            k = j + 1;
        }
        sprintf(p, "]");
        return out;
    }
    if (C->n > 8) {
        snprintf(out, cap, "%.200s .. %.200s (%d automata)", a,
                 B->m->aut[C->members[C->n - 1]].name, C->n);
        return out;
    }
    for (int k = 0; k < C->n; k++)
        p += snprintf(p, cap - (size_t)(p - out), "%s%.100s", k ? ", " : "",
                      B->m->aut[C->members[k]].name);
    return out;
}

/* "s[*]" for a family of s[1], s[2], ...; "Acq@P[*]" for local copies. */
static char *family_name(builder *B, const char *name)
{
    const char *br = strrchr(name, '[');
    char buf[512];
    if (br && name[strlen(name) - 1] == ']')
        snprintf(buf, sizeof buf, "%.*s[*]", (int)(br - name), name);
    else
        snprintf(buf, sizeof buf, "%s*", name);
    return lang_strdup(B->oom, buf);
}

/* "(I:2 Pr:1 Tx:0)" */
static char *occ_name(builder *B, const lump_class *C, const int32_t *v)
{
    const lang_automaton *A = &B->m->aut[C->members[0]];
    size_t n = 3;
    for (int s = 0; s < C->ns; s++)
        n += strlen(A->states[s]) + 13;
    char *p = lang_calloc(B->oom, n, 1), *q = p;
    *q++ = '(';
    for (int s = 0; s < C->ns; s++)
        q += sprintf(q, "%s%s:%d", s ? " " : "", A->states[s], v[s]);
    *q++ = ')';
    return p;
}

/* ---- automata ---- */

static int cmp_trans(const void *x, const void *y)
{
    const lang_trans *a = x, *b = y;
    if (a->event != b->event)
        return (a->event > b->event) - (a->event < b->event);
    return (a->to > b->to) - (a->to < b->to);
}

/* A kept automaton: its transitions on a family's other events dropped
 * (the family's first stands for them), events renumbered. */
static void copy_automaton(builder *B, const lang_automaton *A, lang_automaton *o)
{
    o->name = lang_strdup(B->oom, A->name);
    o->states = lang_calloc(B->oom, (size_t)A->nstates, sizeof *o->states);
    o->nstates = A->nstates;
    o->reward = lang_calloc(B->oom, (size_t)A->nstates, sizeof *o->reward);
    for (int s = 0; s < A->nstates; s++) {
        o->states[s] = lang_strdup(B->oom, A->states[s]);
        o->reward[s] = A->reward ? A->reward[s] : s;
    }
    o->first = lang_calloc(B->oom, (size_t)A->nstates + 1, sizeof *o->first);
    o->tr = lang_calloc(B->oom, (size_t)A->ntr + 1, sizeof *o->tr);
    int n = 0;
    for (int s = 0; s < A->nstates; s++) {
        o->first[s] = n;
        for (int t = A->first[s]; t < A->first[s + 1]; t++) {
            const lang_trans *T = &A->tr[t];
            if (B->fam_rep[T->event] != T->event)
                continue;
            o->tr[n].event = B->L->ev_map[T->event];
            o->tr[n].to = T->to;
            o->tr[n].prob = rw(B, T->prob);
            n++;
        }
        qsort(o->tr + o->first[s], (size_t)(n - o->first[s]), sizeof *o->tr, cmp_trans);
    }
    o->first[A->nstates] = n;
    o->ntr = n;
}

/* The moves of one event of the class: from each local state, at most
 * the transitions of the class's representative on it. */
typedef struct {
    int event;              /* lumped event */
    int all;                /* synchronizes all members */
    const lang_automaton *A; /* the representative */
    int orig;               /* its original event on the representative */
    double *mtab;           /* per-member events: members able to fire */
    int nsrc;               /* local states that have the event */
    san_expr **prob;        /* per transition of A: the counter's routing */
} class_event;

/* The routing of a family whose rate reads its member's state, from
 * member state s by transition probability p (NULL: 1): the share of
 * the members in s in the lumped rate R, rate(s) n_s p / R (0 when R
 * is: the event is then not enabled; R + (R == 0) avoids 0 / 0). */
static san_expr *own_routing(builder *B, const lump_class *C, const lang_automaton *A, int own,
                             int e, int s, const san_expr *p)
{
    const san_expr *rate = B->m->ev[e].rate;
    xbuild b;
    xb_init(&b, B->oom);
    double *n = count_table(B, C, s);
    emit_expr(B, &b, rate, own, s);
    emit_table(&b, C, n);
    xb_emit(&b, X_MUL, 0, 0, 0);
    free(n);
    if (p) {
        emit_expr(B, &b, p, own, s);
        xb_emit(&b, X_MUL, 0, 0, 0);
    }
    emit_split_rate(B, &b, C, A, own, e, rate);
    emit_split_rate(B, &b, C, A, own, e, rate);
    xb_emit(&b, X_CONST, 0, 0, 0);
    xb_emit(&b, X_EQ, 0, 0, 0);
    xb_emit(&b, X_ADD, 0, 0, 0);
    xb_emit(&b, X_DIV, 0, 0, 0);
    return xb_finish(&b);
}

/* The per-member events and the all-member events of class C. */
static class_event *class_events(builder *B, const lump_class *C, int *n)
{
    const san_model *m = B->m;
    san_lumping *L = B->L;
    int rep = C->members[0];
    const lang_automaton *A = &m->aut[rep];
    class_event *ce = lang_calloc(B->oom, (size_t)A->ntr + 1, sizeof *ce);
    *n = 0;
    for (int t = 0; t < A->ntr; t++) {
        int e = A->tr[t].event, dup = 0;
        for (int k = 0; k < *n; k++)
            dup |= ce[k].orig == e;
        if (dup)
            continue;
        class_event *x = &ce[(*n)++];
        x->event = L->ev_map[e];
        x->all = B->fam[e] < 0;
        x->A = A;
        x->orig = e;
        x->prob = lang_calloc(B->oom, (size_t)A->ntr + 1, sizeof *x->prob);
        for (int s = 0; s < A->nstates; s++)
            for (int u = A->first[s]; u < A->first[s + 1]; u++)
                if (A->tr[u].event == e) {
                    x->nsrc++;
                    break;
                }
        if (x->all)
            continue;
        x->mtab = lang_calloc(B->oom, (size_t)C->nk, sizeof *x->mtab);
        for (int64_t k = 0; k < C->nk; k++)
            for (int s = 0; s < A->nstates; s++)
                for (int u = A->first[s]; u < A->first[s + 1]; u++)
                    if (A->tr[u].event == e) {
                        x->mtab[k] += C->occ[k * C->ns + s];
                        break;
                    }
        /* routing: n_s / m(n) x p(s -> t), or p alone from one source state */
        double *ratio = lang_calloc(B->oom, (size_t)C->nk, sizeof *ratio);
        for (int s = 0; s < A->nstates; s++)
            for (int u = A->first[s]; u < A->first[s + 1]; u++) {
                if (A->tr[u].event != e)
                    continue;
                const san_expr *p = A->tr[u].prob;
                if (x->nsrc == 1) {
                    x->prob[u] = rw(B, p);
                    continue;
                }
                if (reads_own(m->ev[e].rate, rep)) {
                    x->prob[u] = pool_add(B, own_routing(B, C, A, rep, e, s, p));
                    continue;
                }
                for (int64_t k = 0; k < C->nk; k++)
                    ratio[k] = x->mtab[k] > 0 ? C->occ[k * C->ns + s] / x->mtab[k] : 0;
                san_expr *one = NULL;
                if (!p)
                    p = one = lang_expr_constant(1);
                if (!p)
                    lang_oom_throw(B->oom);
                x->prob[u] = pool_add(B, rewrite_mul(B, p, ratio, (int)(C - L->cls)));
                lang_expr_free(one);
            }
        free(ratio);
    }
    return ce;
}

typedef struct {
    lang_trans *v;
    int n, cap;
} trlist;

static void tl_push(builder *B, trlist *l, int event, int64_t to, san_expr *prob)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 1024;
        l->v = lang_realloc(B->oom, l->v, (size_t)l->cap * sizeof *l->v);
    }
    l->v[l->n].event = event;
    l->v[l->n].to = (int)to;
    l->v[l->n].prob = prob;
    l->n++;
}

/* The counter's transitions out of occupancy vector k on event x. */
static void counter_moves(builder *B, const lump_class *C, const class_event *x, int64_t k,
                          int32_t *w, trlist *l)
{
    const lang_automaton *A = x->A;
    const int32_t *v = C->occ + k * C->ns;
    if (x->all) {
        memset(w, 0, (size_t)C->ns * sizeof *w);
        for (int s = 0; s < C->ns; s++) {
            if (!v[s])
                continue;
            int to = -1;
            for (int u = A->first[s]; u < A->first[s + 1]; u++)
                if (A->tr[u].event == x->orig)
                    to = A->tr[u].to;
            if (to < 0)
                return;         /* a member cannot fire it: not enabled */
            w[to] += v[s];
        }
        tl_push(B, l, x->event, lump_rank(C, w), NULL);
        return;
    }
    for (int s = 0; s < C->ns; s++) {
        if (!v[s])
            continue;
        for (int u = A->first[s]; u < A->first[s + 1]; u++) {
            if (A->tr[u].event != x->orig)
                continue;
            memcpy(w, v, (size_t)C->ns * sizeof *w);
            w[s]--;
            w[A->tr[u].to]++;
            tl_push(B, l, x->event, lump_rank(C, w), x->prob[u]);
        }
    }
}

static void build_counter(builder *B, const lump_class *C, lang_automaton *o)
{
    int nce;
    class_event *ce = class_events(B, C, &nce);
    int32_t *w = lang_calloc(B->oom, (size_t)C->ns, sizeof *w);
    o->name = class_name(B, C);
    o->nstates = (int)C->nk;
    o->states = lang_calloc(B->oom, (size_t)C->nk, sizeof *o->states);
    o->reward = lang_calloc(B->oom, (size_t)C->nk, sizeof *o->reward);
    o->first = lang_calloc(B->oom, (size_t)C->nk + 1, sizeof *o->first);
    trlist l = { 0 };
    for (int64_t k = 0; k < C->nk; k++) {
        if (lump_rank(C, C->occ + k * C->ns) != k)
            lang_oom_throw(B->oom);     /* cannot happen: the ranks are a bijection */
        o->states[k] = occ_name(B, C, C->occ + k * C->ns);
        o->reward[k] = (double)k;
        o->first[k] = l.n;
        for (int x = 0; x < nce; x++)
            counter_moves(B, C, &ce[x], k, w, &l);
        qsort(l.v + o->first[k], (size_t)(l.n - o->first[k]), sizeof *l.v, cmp_trans);
    }
    o->first[C->nk] = l.n;
    o->tr = l.v ? l.v : lang_calloc(B->oom, 1, sizeof *o->tr);
    o->ntr = l.n;
    for (int x = 0; x < nce; x++) {
        free(ce[x].mtab);
        free(ce[x].prob);
    }
    free(ce);
    free(w);
}

/* ---- events, results, identifiers, size ---- */

static int cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

static void build_events(builder *B)
{
    const san_model *m = B->m;
    san_lumping *L = B->L;
    san_model *o = B->out;
    o->ev = lang_calloc(B->oom, (size_t)o->nev + 1, sizeof *o->ev);
    for (int e = 0; e < m->nev; e++) {
        if (B->fam_rep[e] != e)
            continue;
        const lang_event *E = &m->ev[e];
        lang_event *x = &o->ev[L->ev_map[e]];
        x->sync = E->sync;
        x->line = E->line;
        x->col = E->col;
        x->parts = lang_calloc(B->oom, (size_t)E->nparts + 1, sizeof *x->parts);
        for (int p = 0; p < E->nparts; p++)
            x->parts[p] = L->aut_map[E->parts[p]];
        qsort(x->parts, (size_t)E->nparts, sizeof *x->parts, cmp_int);
        int n = E->nparts > 0;
        for (int p = 1; p < E->nparts; p++)
            if (x->parts[p] != x->parts[n - 1])
                x->parts[n++] = x->parts[p];
        x->nparts = n;
        if (B->fam[e] < 0) {
            x->name = lang_strdup(B->oom, E->name);
            x->rate = rw(B, E->rate);
            continue;
        }
        /* the family's rate times the members able to fire it */
        int c = -1;
        for (int p = 0; p < E->nparts && c < 0; p++)
            c = L->aut_class[E->parts[p]];
        const lump_class *C = &L->cls[c];
        const lang_automaton *A = &m->aut[E->parts[0]];
        for (int p = 0; p < E->nparts; p++)
            if (L->aut_class[E->parts[p]] == c)
                A = &m->aut[E->parts[p]];
        double *mtab = lang_calloc(B->oom, (size_t)C->nk, sizeof *mtab);
        for (int64_t k = 0; k < C->nk; k++)
            for (int s = 0; s < A->nstates; s++)
                for (int u = A->first[s]; u < A->first[s + 1]; u++)
                    if (A->tr[u].event == e) {
                        mtab[k] += C->occ[k * C->ns + s];
                        break;
                    }
        x->name = family_name(B, E->name);
        const int own = (int)(A - m->aut);
        if (reads_own(E->rate, own)) {
            xbuild b;
            xb_init(&b, B->oom);
            emit_split_rate(B, &b, C, A, own, e, E->rate);
            x->rate = pool_add(B, xb_finish(&b));
        } else {
            x->rate = pool_add(B, rewrite_mul(B, E->rate, mtab, c));
        }
        free(mtab);
    }
}

static void build_automata(builder *B)
{
    const san_model *m = B->m;
    san_lumping *L = B->L;
    san_model *o = B->out;
    int na = 0;
    for (int a = 0; a < m->naut; a++)
        na = L->aut_map[a] + 1 > na ? L->aut_map[a] + 1 : na;
    o->aut = lang_calloc(B->oom, (size_t)na + 1, sizeof *o->aut);
    o->naut = na;
    for (int a = 0; a < m->naut; a++) {
        int c = L->aut_class[a];
        if (c < 0)
            copy_automaton(B, &m->aut[a], &o->aut[L->aut_map[a]]);
        else if (L->cls[c].members[0] == a)
            build_counter(B, &L->cls[c], &o->aut[L->aut_map[a]]);
    }
}

static void build_rest(builder *B)
{
    const san_model *m = B->m;
    san_model *o = B->out;
    o->name = lang_strdup(B->oom, m->name ? m->name : "");
    o->file = m->file ? lang_strdup(B->oom, m->file) : NULL;
    o->res = lang_calloc(B->oom, (size_t)m->nres + 1, sizeof *o->res);
    for (int r = 0; r < m->nres; r++) {
        o->res[r].name = lang_strdup(B->oom, m->res[r].name);
        o->res[r].derived = m->res[r].derived;
        o->res[r].expr = rw(B, m->res[r].expr);
        o->nres = r + 1;
    }
    o->id = lang_calloc(B->oom, (size_t)m->nid + 1, sizeof *o->id);
    for (int i = 0; i < m->nid; i++) {
        o->id[i] = m->id[i];
        o->id[i].name = lang_strdup(B->oom, m->id[i].name);
        o->id[i].expr = rw(B, m->id[i].expr);
        o->nid = i + 1;
    }
    o->reach = rw(B, m->reach);
    o->partial = m->partial;
}

/* Strides, whether the product fits, its logarithm and its text. */
static void product_size(builder *B)
{
    san_model *o = B->out;
    o->stride = lang_calloc(B->oom, (size_t)o->naut + 1, sizeof *o->stride);
    o->product_fits = 1;
    o->product = 1;
    o->product_log10 = 0;
    for (int a = o->naut - 1; a >= 0; a--) {
        int64_t ns = o->aut[a].nstates;
        o->stride[a] = o->product_fits ? o->product : 0;
        if (o->product_fits && o->product > INT64_MAX / ns)
            o->product_fits = 0;
        else if (o->product_fits)
            o->product *= ns;
        o->product_log10 += log10((double)ns);
    }
    char buf[64];
    if (o->product_fits)
        snprintf(buf, sizeof buf, "%lld", (long long)o->product);
    else {
        double e = floor(o->product_log10);
        snprintf(buf, sizeof buf, "%.5fe+%.0f", pow(10, o->product_log10 - e), e);
    }
    o->product_str = lang_strdup(B->oom, buf);
}

static void summarize(builder *B)
{
    san_lumping *L = B->L;
    size_t n = 1;
    for (int c = 0; c < L->nclass; c++)
        n += strlen(B->out->aut[L->cls[c].counter].name) + 64;
    L->summary = lang_calloc(B->oom, n, 1);
    char *p = L->summary;
    for (int c = 0; c < L->nclass; c++)
        p += sprintf(p, "%s%s (%d replicas of %d states)", c ? ", " : "",
                     B->out->aut[L->cls[c].counter].name, L->cls[c].n, L->cls[c].ns);
}

static void build(builder *B, const int *cls)
{
    const san_model *m = B->m;
    B->ptr = lang_calloc(B->oom, (size_t)m->npool + 1, sizeof *B->ptr);
    B->ptr_idx = lang_calloc(B->oom, (size_t)m->npool + 1, sizeof *B->ptr_idx);
    B->memo = lang_calloc(B->oom, (size_t)m->npool + 1, sizeof *B->memo);
    if (m->npool > 0) {         /* memcpy and qsort of NULL are UB */
        memcpy(B->ptr, m->pool, (size_t)m->npool * sizeof *B->ptr);
        qsort(B->ptr, (size_t)m->npool, sizeof *B->ptr, cmp_ptr);
    }
    for (int k = 0; k < m->npool; k++) {
        const san_expr **p = bsearch(&m->pool[k], B->ptr, (size_t)m->npool, sizeof *B->ptr,
                                     cmp_ptr);
        B->ptr_idx[p - B->ptr] = k;
    }
    make_classes(B, cls);
    map_events(B);
    build_automata(B);
    build_events(B);
    build_rest(B);
    product_size(B);
    summarize(B);
}

void san_lumping_free(san_lumping *L)
{
    if (!L)
        return;
    san_model_free(L->model);
    for (int c = 0; L->cls && c < L->nclass; c++) {
        free(L->cls[c].members);
        free(L->cls[c].occ);
        free(L->cls[c].binom);
    }
    free(L->cls);
    free(L->aut_class);
    free(L->aut_map);
    free(L->ev_map);
    free(L->ev_div);
    free(L->summary);
    free(L);
}

static void builder_free(builder *B)
{
    free(B->fam);
    free(B->fam_rep);
    free(B->memo);
    free(B->ptr);
    free(B->ptr_idx);
}

san_status san_model_lump(const san_model *m, san_lumping **out, san_diag *d)
{
    *out = NULL;
    lang_oom oom;
    builder B;
    memset(&B, 0, sizeof B);
    int *cls = NULL;
    if (setjmp(oom.env)) {
        free(cls);
        builder_free(&B);
        san_lumping_free(B.L);
        san_diag_add(d, SAN_ERROR, 0, 0, "out of memory while lumping the replicas");
        return SAN_E_NOMEM;
    }
    B.m = m;
    B.oom = &oom;
    cls = lang_calloc(&oom, (size_t)m->naut + 1, sizeof *cls);
    B.fam = lang_calloc(&oom, (size_t)m->nev + 1, sizeof *B.fam);
    char why[512];
    lump_classes(m, cls, B.fam, &oom, why, sizeof why);
    if (why[0])
        san_diag_add(d, SAN_NOTE, 0, 0, "%s", why);
    int lumped = 0;
    {
        int max = 0;
        for (int a = 0; a < m->naut; a++)
            max = cls[a] + 1 > max ? cls[a] + 1 : max;
        int *size = lang_calloc(&oom, (size_t)max + 1, sizeof *size);
        for (int a = 0; a < m->naut; a++)
            lumped |= ++size[cls[a]] > 1;
        free(size);
    }
    if (lumped) {
        B.L = lang_calloc(&oom, 1, sizeof *B.L);
        B.L->orig = m;
        B.out = B.L->model = lang_calloc(&oom, 1, sizeof *B.out);
        build(&B, cls);
        *out = B.L;
    }
    free(cls);
    builder_free(&B);
    return SAN_OK;
}

const san_model *san_lumping_model(const san_lumping *L)
{
    return L->model;
}

const char *san_lumping_summary(const san_lumping *L)
{
    return L->summary;
}
