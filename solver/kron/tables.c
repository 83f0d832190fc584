/*
 * tables.c - functions of the state (rates, routing probabilities) as
 * the kernels read them (kron_fn): a constant, a table over the automata
 * the function reads, indexed as the walk accumulates it level by level,
 * or a table per state of the vector when it is read at the leaves; past
 * the tuning's table_max entries, the expression itself.  Tables are
 * shared between terms through a cache (tab_cache, kron_int.h), and
 * owned by the descriptor once built (d->tab).
 */
#include <stdlib.h>
#include <string.h>
#include "solver/kron/kron_int.h"
#include "lang/model_int.h"

/* Slot of value v in the open-addressed set h of the ncode values val
 * (2 KRON_CODES slots, -1 empty): its code, or a new one (ncode too if
 * full: the caller gives up the codes). */
static int code_of(double v, double *val, int *ncode, int16_t *h)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    b *= 0x9E3779B97F4A7C15ULL;
    for (int slot = (int)(b >> 55);; slot = (slot + 1) & (2 * KRON_CODES - 1)) {
        if (h[slot] < 0) {
            if (*ncode == KRON_CODES)
                return KRON_CODES;
            val[*ncode] = v;
            h[slot] = (int16_t)*ncode;
            return (*ncode)++;
        }
        if (!memcmp(&val[h[slot]], &v, sizeof v))
            return h[slot];
    }
}

/* A function of every automaton (rs.san's nb using < R) has a table as
 * big as the product space; but when it is read at the last level, the
 * source state is a leaf, and one value per leaf is enough.  Such
 * functions take few values (rates times conditions), so the table is
 * first built as one byte a state, a code into its values (in one block:
 * KRON_CODES values, then the codes), and only past KRON_CODES values
 * as the values themselves. */
static int table_per_state(tab_key *k, const san_model *m, const san_expr *e,
                           const tab_cache *tc)
{
    const int64_t n = tc->nleaves;
    double *val = malloc(KRON_CODES * sizeof *val + (n ? n : 1));
    int *s = calloc(m->naut + 1, sizeof *s);
    int16_t h[2 * KRON_CODES];
    int ncode = 0;
    double *pst = NULL;
    memset(h, -1, sizeof h);
    if (!val || !s)
        goto fail;
    uint8_t *code = (uint8_t *)(val + KRON_CODES);
    for (int64_t i = 0; i < n; i++) {
        san_state_decode(m, tc->keys ? tc->keys[i] : i, s);
        const double v = kron_finite(san_expr_eval(e, s));
        if (pst) {
            pst[i] = v;
            continue;
        }
        const int c = code_of(v, val, &ncode, h);
        if (c < KRON_CODES) {
            code[i] = (uint8_t)c;
            continue;
        }
        pst = malloc(n * sizeof *pst);          /* too many values */
        if (!pst)
            goto fail;
        for (int64_t j = 0; j < i; j++)
            pst[j] = val[code[j]];
        pst[i] = v;
        free(val);
        val = NULL;
    }
    free(s);
    if (pst) {
        k->mem = pst;
        k->bytes = 8.0 * n;
        k->f.pst = pst;
    } else {
        k->mem = val;
        k->bytes = KRON_CODES * sizeof *val + (double)n;
        k->f.pcode = (const uint8_t *)(val + KRON_CODES);
        k->f.pval = val;
    }
    return 0;
fail:
    free(val);
    free(s);
    return -1;
}

static int cache_put(tab_cache *tc, tab_key k)
{
    if (tc->n == tc->cap) {
        int cap = tc->cap ? 2 * tc->cap : 16;
        tab_key *v = realloc(tc->v, cap * sizeof *v);
        if (!v)
            return -1;
        tc->v = v;
        tc->cap = cap;
    }
    tc->v[tc->n++] = k;
    return 0;
}

static double *table_build(const san_model *m, const san_expr *e,
                           const int64_t *dstride, int64_t size)
{
    double *tab = malloc(size * sizeof *tab);
    int *s = calloc(m->naut + 1, sizeof *s);
    if (!tab || !s) {
        free(tab);
        free(s);
        return NULL;
    }
    for (int64_t i = 0; i < size; i++) {
        tab[i] = kron_finite(san_expr_eval(e, s));
        for (int a = m->naut - 1; a >= 0; a--) {
            if (!dstride[a])
                continue;
            if (++s[a] < m->aut[a].nstates)
                break;
            s[a] = 0;
        }
    }
    free(s);
    return tab;
}

/* A constant, a shared table, or (too big) the expression itself. */
int kron_fn_make(kron_fn *f, const san_expr *e, const kron_term *t,
                 int64_t size, tab_cache *tc, const san_model *m)
{
    memset(f, 0, sizeof *f);
    if (!e || san_expr_is_const(e)) {
        f->c = e ? kron_finite(san_expr_const(e)) : 1.0;
        return 0;
    }
    /* read at the leaves, a table per state is the smaller one when the
     * vectors are shorter than the table (a reachable set much smaller
     * than the product of the automata the function reads), and it is
     * read where x is: a table over all the automata would be read at
     * scattered places */
    int per_state = t->L == m->naut - 1 && size > tc->nleaves;
    if (size > tc->table_max && !per_state) {
        f->e = e;
        return 0;
    }
    for (int i = 0; i < tc->n; i++)
        if (tc->v[i].e == e && (per_state ? !tc->v[i].dstride : tc->v[i].dstride &&
                                !memcmp(tc->v[i].dstride, t->dstride, m->naut * sizeof *t->dstride))) {
            *f = tc->v[i].f;
            return 0;
        }
    tab_key k = { .e = e, .dstride = per_state ? NULL : t->dstride };
    if (per_state) {
        if (table_per_state(&k, m, e, tc) < 0)
            return -1;
    } else {
        double *tab = table_build(m, e, t->dstride, size);
        k.mem = tab;
        k.bytes = 8.0 * size;
        k.f.tab = tab;
    }
    if (!k.mem || cache_put(tc, k) < 0) {
        free(k.mem);
        return -1;
    }
    *f = k.f;
    return 0;
}
