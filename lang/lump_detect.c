/*
 * lump_detect.c - which automata are interchangeable (issue 28).
 *
 * The proof is by signatures, refined to a fixed point, as a partition
 * refinement: two automata are in one class only when
 *   - their states, names and rewards are equal;
 *   - every expression of the model (rates, probabilities, functions,
 *     results, reachability: the pool holds them all) reads them alike:
 *     only through counts (nb) and sums or products of rewards over
 *     ranges equal for both; a direct read (st A, a reward of A alone)
 *     singles the automaton out, but for the rate of a per-member event
 *     that reads its own member's state (st C[k] in the rate of
 *     e[k:N]): the rate of one event only, compared with the member
 *     abstracted (lump.c splits the lumped rate by the member's state);
 *   - their transitions are equal state by state, destination and
 *     probability (compared as compiled code), on events that are either
 *     the same event for every member of the class (synchronizing all of
 *     them), or per-member events equal up to the member: same rate code,
 *     same other parts with the same transitions.
 * An event that touches some members but not all splits the class.  A
 * class that survives the refinement is then checked for what the
 * counter's construction needs (lump.c); a class that fails is not
 * lumped (its members made singletons).  Nothing here is heuristic:
 * code is compared exactly, never by a hash alone.
 */
#include <stdlib.h>
#include <string.h>
#include "lang/expr.h"
#include "lang/lump.h"
#include "lang/model_int.h"

/* ---- token buffers and the table that numbers distinct ones ---- */

typedef struct {
    int64_t *v;
    int n, cap;
} tokbuf;

static void tb_push(lang_oom *oom, tokbuf *b, int64_t x)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 16;
        b->v = lang_realloc(oom, b->v, (size_t)b->cap * sizeof *b->v);
    }
    b->v[b->n++] = x;
}

static void tb_double(lang_oom *oom, tokbuf *b, double x)
{
    int64_t bits;
    memcpy(&bits, &x, sizeof bits);
    tb_push(oom, b, bits);
}

static void tb_str(lang_oom *oom, tokbuf *b, const char *s)
{
    size_t n = strlen(s);
    tb_push(oom, b, (int64_t)n);
    for (size_t i = 0; i < n; i += 8) {
        int64_t w = 0;
        memcpy(&w, s + i, n - i < 8 ? n - i : 8);
        tb_push(oom, b, w);
    }
}

typedef struct {
    int64_t **key;
    int *len;
    int n, cap;
    int *slot;          /* id + 1, 0 empty */
    int nslot;
    lang_oom *oom;
} intern;

static uint64_t hash_toks(const int64_t *v, int n)
{
    uint64_t h = 1469598103934665603ull ^ (uint64_t)n;
    for (int i = 0; i < n; i++) {
        h ^= (uint64_t)v[i];
        h *= 1099511628211ull;
        h ^= h >> 29;
    }
    return h;
}

static void intern_init(intern *t, lang_oom *oom)
{
    memset(t, 0, sizeof *t);
    t->oom = oom;
}

static void intern_free(intern *t)
{
    for (int i = 0; i < t->n; i++)
        free(t->key[i]);
    free(t->key);
    free(t->len);
    free(t->slot);
    memset(t, 0, sizeof *t);
}

static void intern_rehash(intern *t)
{
    int ns = t->nslot ? 2 * t->nslot : 64;
    int *slot = lang_calloc(t->oom, (size_t)ns, sizeof *slot);
    for (int id = 0; id < t->n; id++) {
        uint64_t h = hash_toks(t->key[id], t->len[id]) & (uint64_t)(ns - 1);
        while (slot[h])
            h = (h + 1) & (uint64_t)(ns - 1);
        slot[h] = id + 1;
    }
    free(t->slot);
    t->slot = slot;
    t->nslot = ns;
}

/* The id of v[0..n): equal token strings, equal ids (compared whole). */
static int intern_id(intern *t, const int64_t *v, int n)
{
    if (2 * (t->n + 1) > t->nslot)
        intern_rehash(t);
    uint64_t h = hash_toks(v, n) & (uint64_t)(t->nslot - 1);
    for (; t->slot[h]; h = (h + 1) & (uint64_t)(t->nslot - 1)) {
        int id = t->slot[h] - 1;
        if (t->len[id] == n && (n == 0 || !memcmp(t->key[id], v, (size_t)n * sizeof *v)))
            return id;
    }
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->key = lang_realloc(t->oom, t->key, (size_t)t->cap * sizeof *t->key);
        t->len = lang_realloc(t->oom, t->len, (size_t)t->cap * sizeof *t->len);
    }
    t->key[t->n] = lang_calloc(t->oom, (size_t)(n ? n : 1), sizeof *v);
    if (n > 0)          /* v may be NULL for the empty string */
        memcpy(t->key[t->n], v, (size_t)n * sizeof *v);
    t->len[t->n] = n;
    t->slot[h] = ++t->n;
    return t->n - 1;
}

/* ---- the detector's state ---- */

typedef struct {
    const san_model *m;
    lang_oom *oom;
    intern exprs;       /* compiled code, by content */
    intern sigs;        /* everything else */
    const san_expr **ptr;   /* the pool sorted by address */
    int *ptr_id;        /* their content ids */
    int *own_ev;        /* per pool expression (pool order): the event it
                           is the rate of, when of one event only and of
                           nothing else; -1 */
    /* transitions by event: tr_of[ev_first[e] .. ev_first[e+1]) are
     * (automaton, local state, transition index) triples */
    int *ev_first;
    int *tr_of;
    tokbuf *etok;       /* per automaton: how the expressions read it */
    int *cls, *csize;   /* per automaton, per class id */
    int ncls;
    tokbuf tmp;
} detector;

static int cmp_ptr(const void *x, const void *y)
{
    const san_expr *a = *(const san_expr *const *)x, *b = *(const san_expr *const *)y;
    return (a > b) - (a < b);
}

/* The code of e as tokens: instructions, tables, the functions called;
 * st of automaton own (>= 0) as st of -1, any member's own state. */
static void expr_tokens_own(detector *D, tokbuf *b, const san_expr *e, int own)
{
    tb_push(D->oom, b, e->ncode);
    for (int k = 0; k < e->ncode; k++) {
        tb_push(D->oom, b, e->code[k].op);
        tb_push(D->oom, b, e->code[k].op == X_ST && e->code[k].a == own ? -1 : e->code[k].a);
        tb_push(D->oom, b, e->code[k].n);
        tb_double(D->oom, b, e->code[k].v);
    }
    tb_push(D->oom, b, e->nitab);
    for (int k = 0; k < e->nitab; k++)
        tb_push(D->oom, b, e->itab[k]);
    tb_push(D->oom, b, e->nrtab);
    for (int k = 0; k < e->nrtab; k++)
        tb_double(D->oom, b, e->rtab[k]);
    tb_push(D->oom, b, e->ncalls);
    for (int k = 0; k < e->ncalls; k++)
        tb_push(D->oom, b, (int64_t)(intptr_t)e->calls[k]);
}

static void expr_tokens(detector *D, tokbuf *b, const san_expr *e)
{
    expr_tokens_own(D, b, e, -1);
}

/* The content id of e with st of automaton own abstracted: equal for the
 * rates of two members' events that differ only in the member they read
 * (the plain content id when e does not read own). */
static int64_t expr_id_own(detector *D, const san_expr *e, int own)
{
    if (!e)
        return -1;
    tokbuf b = { 0 };
    expr_tokens_own(D, &b, e, own);
    int id = intern_id(&D->exprs, b.v, b.n);
    free(b.v);
    return id;
}

static void index_exprs(detector *D)
{
    const san_model *m = D->m;
    D->ptr = lang_calloc(D->oom, (size_t)m->npool + 1, sizeof *D->ptr);
    D->ptr_id = lang_calloc(D->oom, (size_t)m->npool + 1, sizeof *D->ptr_id);
    if (m->npool > 0) {         /* memcpy and qsort of NULL are UB */
        memcpy(D->ptr, m->pool, (size_t)m->npool * sizeof *D->ptr);
        qsort(D->ptr, (size_t)m->npool, sizeof *D->ptr, cmp_ptr);
    }
    for (int k = 0; k < m->npool; k++) {
        D->tmp.n = 0;
        expr_tokens(D, &D->tmp, D->ptr[k]);
        D->ptr_id[k] = intern_id(&D->exprs, D->tmp.v, D->tmp.n);
    }
}

/* The content id of e (-1: none, probability 1; -2: not in the pool,
 * compared by address, never equal to another's). */
static int64_t expr_id(const detector *D, const san_expr *e)
{
    if (!e)
        return -1;
    const san_expr **p = bsearch(&e, D->ptr, (size_t)D->m->npool, sizeof *D->ptr, cmp_ptr);
    return p ? D->ptr_id[p - D->ptr] : -2 - (int64_t)(intptr_t)e;
}

static void index_transitions(detector *D)
{
    const san_model *m = D->m;
    D->ev_first = lang_calloc(D->oom, (size_t)m->nev + 2, sizeof *D->ev_first);
    int64_t total = 0;
    for (int a = 0; a < m->naut; a++)
        for (int t = 0; t < m->aut[a].ntr; t++) {
            D->ev_first[m->aut[a].tr[t].event + 2]++;
            total++;
        }
    for (int e = 0; e < m->nev; e++)
        D->ev_first[e + 2] += D->ev_first[e + 1];
    D->tr_of = lang_calloc(D->oom, (size_t)(3 * total + 1), sizeof *D->tr_of);
    for (int a = 0; a < m->naut; a++) {
        const lang_automaton *A = &m->aut[a];
        for (int s = 0; s < A->nstates; s++)
            for (int t = A->first[s]; t < A->first[s + 1]; t++) {
                int at = D->ev_first[A->tr[t].event + 1]++;
                D->tr_of[3 * at] = a;
                D->tr_of[3 * at + 1] = s;
                D->tr_of[3 * at + 2] = t;
            }
    }
}

/* The pool order position of e, or -1. */
static int pool_pos(const detector *D, const int *pos, const san_expr *e)
{
    if (!e)
        return -1;
    const san_expr **p = bsearch(&e, D->ptr, (size_t)D->m->npool, sizeof *D->ptr, cmp_ptr);
    return p ? pos[p - D->ptr] : -1;
}

/* The rates that may read their own member: an expression that is the
 * rate of one event and nothing else (no other rate, probability, or
 * caller: a function called elsewhere reads the state for others too). */
static void index_own_rates(detector *D)
{
    const san_model *m = D->m;
    int *pos = lang_calloc(D->oom, (size_t)m->npool + 1, sizeof *pos);
    int *uses = lang_calloc(D->oom, (size_t)m->npool + 1, sizeof *uses);
    D->own_ev = lang_calloc(D->oom, (size_t)m->npool + 1, sizeof *D->own_ev);
    for (int x = 0; x < m->npool; x++) {
        const san_expr **p = bsearch(&m->pool[x], D->ptr, (size_t)m->npool, sizeof *D->ptr,
                                     cmp_ptr);
        pos[p - D->ptr] = x;
        D->own_ev[x] = -1;
    }
    for (int e = 0; e < m->nev; e++) {
        int x = pool_pos(D, pos, m->ev[e].rate);
        if (x >= 0) {
            uses[x]++;
            D->own_ev[x] = e;
        }
    }
    for (int a = 0; a < m->naut; a++)
        for (int t = 0; t < m->aut[a].ntr; t++) {
            int x = pool_pos(D, pos, m->aut[a].tr[t].prob);
            if (x >= 0)
                uses[x] += 2;
        }
    /* an identifier, result or reachability function that is the rate
     * itself is read elsewhere too (its rewritten copy would read the
     * counter as a member) */
    for (int i = 0; i < m->nid; i++) {
        int x = pool_pos(D, pos, m->id[i].expr);
        if (x >= 0)
            uses[x] += 2;
    }
    for (int r = 0; r < m->nres; r++) {
        int x = pool_pos(D, pos, m->res[r].expr);
        if (x >= 0)
            uses[x] += 2;
    }
    if (pool_pos(D, pos, m->reach) >= 0)
        uses[pool_pos(D, pos, m->reach)] += 2;
    for (int y = 0; y < m->npool; y++)
        for (int k = 0; k < m->pool[y]->ncalls; k++) {
            int x = pool_pos(D, pos, m->pool[y]->calls[k]);
            if (x >= 0)
                uses[x] += 2;
        }
    for (int x = 0; x < m->npool; x++)
        if (uses[x] != 1)
            D->own_ev[x] = -1;
    free(pos);
    free(uses);
}

static int has_part(const lang_event *E, int a)
{
    for (int p = 0; p < E->nparts; p++)
        if (E->parts[p] == a)
            return 1;
    return 0;
}

/* How every pool expression reads each automaton (the tokens of a
 * direct read are unique to it: it singles the automaton out; the rate
 * of an event reading st of a part of it leaves a token equal for every
 * member whose event's rate is the same up to the member). */
static void read_tokens(detector *D)
{
    const san_model *m = D->m;
    D->etok = lang_calloc(D->oom, (size_t)m->naut + 1, sizeof *D->etok);
    for (int x = 0; x < m->npool; x++) {
        const san_expr *e = m->pool[x];
        for (int i = 0; i < e->ncode; i++) {
            const xins *in = &e->code[i];
            if (in->op == X_ST && D->own_ev[x] >= 0 && has_part(&m->ev[D->own_ev[x]], in->a)) {
                tokbuf *b = &D->etok[in->a];
                tb_push(D->oom, b, 5);
                tb_push(D->oom, b, expr_id_own(D, e, in->a));
                tb_push(D->oom, b, i);
            } else if (in->op == X_ST || in->op == X_RW) {
                tokbuf *b = &D->etok[in->a];
                tb_push(D->oom, b, 1);
                tb_push(D->oom, b, x);
                tb_push(D->oom, b, i);
                tb_push(D->oom, b, in->a);
            } else if (in->op == X_NB) {
                for (int t = 0; t < in->n; t++) {
                    const int32_t *q = e->itab + in->a + 3 * t;
                    tokbuf *b = &D->etok[q[0]];
                    tb_push(D->oom, b, 2);
                    tb_push(D->oom, b, x);
                    tb_push(D->oom, b, i);
                    tb_push(D->oom, b, q[1]);
                    tb_push(D->oom, b, q[2]);
                }
            } else if (in->op == X_SUMRW || in->op == X_PRODRW) {
                for (int t = 0; t < in->n; t++) {
                    const int32_t *q = e->itab + in->a + 4 * t;
                    tokbuf *b = &D->etok[q[0]];
                    tb_push(D->oom, b, in->op == X_SUMRW ? 3 : 4);
                    tb_push(D->oom, b, x);
                    tb_push(D->oom, b, i);
                    tb_push(D->oom, b, q[1]);
                    tb_push(D->oom, b, q[2]);
                    int hi = q[2] < m->aut[q[0]].nstates - 1 ? q[2] : m->aut[q[0]].nstates - 1;
                    for (int s = q[1] < 0 ? 0 : q[1]; s <= hi; s++)
                        tb_double(D->oom, b, e->rtab[q[3] + s]);
                }
            }
        }
    }
}

/* Automata of equal states (names, rewards): the candidates a note
 * names when the refinement tells them apart. */
static void state_groups(detector *D, int *group)
{
    const san_model *m = D->m;
    for (int a = 0; a < m->naut; a++) {
        const lang_automaton *A = &m->aut[a];
        tokbuf *b = &D->tmp;
        b->n = 0;
        tb_push(D->oom, b, -A->nstates - 1);    /* apart from the other keys */
        for (int s = 0; s < A->nstates; s++) {
            tb_str(D->oom, b, A->states[s]);
            tb_double(D->oom, b, A->reward ? A->reward[s] : s);
        }
        group[a] = intern_id(&D->sigs, b->v, b->n);
    }
}

/* Round 0: states, their names and rewards, and the reads. */
static void initial_classes(detector *D)
{
    const san_model *m = D->m;
    for (int a = 0; a < m->naut; a++) {
        const lang_automaton *A = &m->aut[a];
        tokbuf *b = &D->tmp;
        b->n = 0;
        tb_push(D->oom, b, A->nstates);
        for (int s = 0; s < A->nstates; s++) {
            tb_str(D->oom, b, A->states[s]);
            tb_double(D->oom, b, A->reward ? A->reward[s] : s);
        }
        for (int k = 0; k < D->etok[a].n; k++)
            tb_push(D->oom, b, D->etok[a].v[k]);
        D->cls[a] = intern_id(&D->sigs, b->v, b->n);
    }
}

static void count_classes(detector *D)
{
    const san_model *m = D->m;
    int max = 0;
    for (int a = 0; a < m->naut; a++)
        if (D->cls[a] + 1 > max)
            max = D->cls[a] + 1;
    free(D->csize);
    D->csize = lang_calloc(D->oom, (size_t)max + 1, sizeof *D->csize);
    D->ncls = max;
    for (int a = 0; a < m->naut; a++)
        D->csize[D->cls[a]]++;
}

/* Event e with respect to the class of automaton a. */
static int event_status(const detector *D, int e, int a)
{
    const lang_event *E = &D->m->ev[e];
    int c = D->cls[a], k = 0;
    for (int p = 0; p < E->nparts; p++)
        k += D->cls[E->parts[p]] == c;
    return k == 0 ? LUMP_EV_NONE : k == D->csize[c] ? LUMP_EV_ALL
         : k == 1 ? LUMP_EV_ONE : LUMP_EV_SOME;
}

/* Per-member event e of member a, without a: its kind, rate code, the
 * other parts and their transitions on e. */
static int per_member_sig(detector *D, int e, int a)
{
    const san_model *m = D->m;
    const lang_event *E = &m->ev[e];
    tokbuf b = { 0 };
    tb_push(D->oom, &b, E->sync);
    tb_push(D->oom, &b, expr_id_own(D, E->rate, a));
    for (int k = D->ev_first[e]; k < D->ev_first[e + 1]; k++) {
        const int *q = D->tr_of + 3 * k;
        if (q[0] == a)
            continue;
        const lang_trans *T = &m->aut[q[0]].tr[q[2]];
        tb_push(D->oom, &b, q[0]);
        tb_push(D->oom, &b, q[1]);
        tb_push(D->oom, &b, T->to);
        tb_push(D->oom, &b, expr_id(D, T->prob));
    }
    for (int p = 0; p < E->nparts; p++)
        if (E->parts[p] != a)
            tb_push(D->oom, &b, -1 - (int64_t)E->parts[p]);
    int id = intern_id(&D->sigs, b.v, b.n);
    free(b.v);
    return id;
}

/* One refinement round; returns the number of classes after it. */
static int refine(detector *D, int *next)
{
    const san_model *m = D->m;
    for (int a = 0; a < m->naut; a++) {
        tokbuf *b = &D->tmp;
        b->n = 0;
        tb_push(D->oom, b, D->cls[a]);
        if (D->csize[D->cls[a]] > 1) {
            const lang_automaton *A = &m->aut[a];
            for (int s = 0; s < A->nstates; s++)
                for (int t = A->first[s]; t < A->first[s + 1]; t++) {
                    const lang_trans *T = &A->tr[t];
                    int st = event_status(D, T->event, a);
                    tb_push(D->oom, b, s);
                    tb_push(D->oom, b, T->to);
                    tb_push(D->oom, b, expr_id(D, T->prob));
                    tb_push(D->oom, b, st);
                    tb_push(D->oom, b, st == LUMP_EV_ONE ? per_member_sig(D, T->event, a)
                                                         : T->event);
                }
        }
        next[a] = intern_id(&D->sigs, b->v, b->n);
    }
    memcpy(D->cls, next, (size_t)m->naut * sizeof *next);
    count_classes(D);
    int n = 0;
    for (int c = 0; c < D->ncls; c++)
        n += D->csize[c] > 0;
    return n;
}

/* ---- validation of the classes for the counter ---- */

#define LUMP_MAX_COUNTER 20000000   /* counter states (tables of doubles
                                       over them; 160 MB each at most) */

/* C(n + s - 1, s - 1), or -1 beyond LUMP_MAX_COUNTER. */
static int64_t occupancy_count(int n, int s)
{
    double c = 1;
    for (int k = 1; k < s; k++) {
        c = c * (n + k) / k;
        if (c > LUMP_MAX_COUNTER)
            return -1;
    }
    return (int64_t)(c + 0.5);
}

static void demote(detector *D, int c, const char *why, char *out, size_t nout)
{
    const san_model *m = D->m;
    int first = -1;
    for (int a = 0; a < m->naut; a++)
        if (D->cls[a] == c) {
            if (first < 0)
                first = a;
            D->cls[a] = D->ncls++;
        }
    if (out && !out[0] && first >= 0)
        snprintf(out, nout, "%s and the automata like it are not lumped: %s",
                 m->aut[first].name, why);
    count_classes(D);
}

/* An event synchronizing all members moves each by one transition of
 * probability 1 (the counter's jump is then one occupancy vector). */
static int deterministic_on(const lang_automaton *A, int e)
{
    for (int s = 0; s < A->nstates; s++) {
        int k = 0;
        for (int t = A->first[s]; t < A->first[s + 1]; t++)
            if (A->tr[t].event == e) {
                const san_expr *p = A->tr[t].prob;
                if (++k > 1 || (p && !(p->is_const && p->value == 1)))
                    return 0;
            }
    }
    return 1;
}

/* Checks class c (of members first ... , size csize[c]); 0 and why. */
static int check_class(detector *D, int c, int *fam, intern *fams, const char **why)
{
    const san_model *m = D->m;
    int n = D->csize[c], rep = -1;
    for (int a = 0; a < m->naut && rep < 0; a++)
        if (D->cls[a] == c)
            rep = a;
    if (occupancy_count(n, m->aut[rep].nstates) < 0) {
        *why = "too many occupancy vectors for one counter";
        return 0;
    }
    for (int a = 0; a < m->naut; a++) {
        if (D->cls[a] != c)
            continue;
        const lang_automaton *A = &m->aut[a];
        for (int t = 0; t < A->ntr; t++) {
            int e = A->tr[t].event;
            int st = event_status(D, e, a);
            if (st == LUMP_EV_SOME) {
                *why = "an event synchronizes some of them, not all";
                return 0;
            }
            if (st == LUMP_EV_ALL && !deterministic_on(A, e)) {
                *why = "an event of all of them routes with probabilities";
                return 0;
            }
            if (st != LUMP_EV_ONE || (t > 0 && A->tr[t - 1].event == e))
                continue;
            const lang_event *E = &m->ev[e];
            for (int p = 0; p < E->nparts; p++)
                if (E->parts[p] != a && D->csize[D->cls[E->parts[p]]] > 1) {
                    *why = "a per-replica event synchronizes with another replicated automaton";
                    return 0;
                }
            int64_t key[2] = { c, per_member_sig(D, e, a) };
            fam[e] = intern_id(fams, key, 2);
        }
    }
    return 1;
}

static int cmp_pair(const void *x, const void *y)
{
    const int *a = x, *b = y;
    return a[0] != b[0] ? (a[0] > b[0]) - (a[0] < b[0]) : (a[1] > b[1]) - (a[1] < b[1]);
}

/* Each family of per-member events of class c has exactly one event on
 * each member: (family, member) pairs all distinct, csize[c] of each. */
static int families_complete(detector *D, int c, const int *fam, const char **why)
{
    const san_model *m = D->m;
    int n = 0;
    int *pair = lang_calloc(D->oom, 2 * (size_t)m->nev + 2, sizeof *pair);
    for (int e = 0; e < m->nev; e++) {
        if (fam[e] < 0)
            continue;
        for (int p = 0; p < m->ev[e].nparts; p++)
            if (D->cls[m->ev[e].parts[p]] == c) {
                pair[2 * n] = fam[e];
                pair[2 * n + 1] = m->ev[e].parts[p];
                n++;
            }
    }
    qsort(pair, (size_t)n, 2 * sizeof *pair, cmp_pair);
    int ok = 1;
    for (int i = 0; i < n && ok;) {
        int j = i + 1;
        while (j < n && pair[2 * j] == pair[2 * i]) {
            if (pair[2 * j + 1] == pair[2 * j - 1])
                ok = 0;         /* two events of one family on one member */
            j++;
        }
        if (j - i != D->csize[c])
            ok = 0;
        i = j;
    }
    free(pair);
    if (!ok)
        *why = "their per-replica events do not pair up one to one";
    return ok;
}

/* Validate every class of two or more until none fails. */
static void validate(detector *D, int *fam, char *why, size_t nwhy)
{
    const san_model *m = D->m;
    for (;;) {
        intern fams;
        intern_init(&fams, D->oom);
        for (int e = 0; e < m->nev; e++)
            fam[e] = -1;
        int bad = -1;
        const char *reason = NULL;
        for (int c = 0; c < D->ncls && bad < 0; c++)
            if (D->csize[c] > 1 && !check_class(D, c, fam, &fams, &reason))
                bad = c;
        for (int c = 0; c < D->ncls && bad < 0; c++)
            if (D->csize[c] > 1 && !families_complete(D, c, fam, &reason))
                bad = c;
        intern_free(&fams);
        if (bad < 0)
            return;
        demote(D, bad, reason, why, nwhy);
    }
}

/* Replicas of one declaration: "P[3]" and "P[7]" (automata written one
 * by one under names of their own are told apart on purpose, mostly). */
static int same_family(const char *x, const char *y)
{
    const char *bx = strrchr(x, '['), *by = strrchr(y, '[');
    return bx && by && bx - x == by - y && !strncmp(x, y, (size_t)(bx - x));
}

/* Say which replicas of equal states the refinement told apart. */
static void explain_split(detector *D, const int *group, char *why, size_t nwhy)
{
    const san_model *m = D->m;
    if (why[0])
        return;
    for (int a = 0; a < m->naut; a++)
        for (int b = a + 1; b < m->naut && b < a + 64; b++)
            if (group[a] == group[b] && D->cls[a] != D->cls[b] &&
                same_family(m->aut[a].name, m->aut[b].name)) {
                snprintf(why, nwhy, "%s and %s are not lumped together: %s",
                         m->aut[a].name, m->aut[b].name,
                         D->etok[a].n != D->etok[b].n ||
                         (D->etok[a].n > 0 &&       /* memcmp(NULL, NULL, 0) is UB */
                          memcmp(D->etok[a].v, D->etok[b].v, (size_t)D->etok[a].n * 8))
                             ? "an expression reads one of them alone (st, a reward, a "
                               "count over some of them)"
                             : "their events, rates or routing differ");
                return;
            }
}

int lump_classes(const san_model *m, int *cls, int *fam, lang_oom *oom, char *why, size_t nwhy)
{
    detector D;
    memset(&D, 0, sizeof D);
    D.m = m;
    D.oom = oom;
    D.cls = cls;
    intern_init(&D.exprs, oom);
    intern_init(&D.sigs, oom);
    if (why && nwhy)
        why[0] = '\0';
    index_exprs(&D);
    index_transitions(&D);
    index_own_rates(&D);
    read_tokens(&D);
    int *group = lang_calloc(oom, (size_t)m->naut + 1, sizeof *group);
    state_groups(&D, group);
    initial_classes(&D);
    count_classes(&D);
    int *next = lang_calloc(oom, (size_t)m->naut + 1, sizeof *next);
    int n = D.ncls, prev = -1;
    for (int c = 0, k = 0; c < D.ncls; c++)
        k += D.csize[c] > 0, n = k;
    while (n != prev) {
        prev = n;
        n = refine(&D, next);
    }
    validate(&D, fam, why, nwhy);
    if (why && nwhy)
        explain_split(&D, group, why, nwhy);
    free(next);
    free(group);
    for (int a = 0; a < m->naut; a++)
        free(D.etok[a].v);
    free(D.etok);
    free(D.tmp.v);
    free(D.ptr);
    free(D.ptr_id);
    free(D.own_ev);
    free(D.ev_first);
    free(D.tr_of);
    free(D.csize);
    intern_free(&D.exprs);
    intern_free(&D.sigs);
    return D.ncls;
}
