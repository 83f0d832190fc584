/*
 * tree.c - the level tree over the automata (kron.h): the vectors'
 * positions, as the product space (every level complete, implicit) or
 * as the reachable set (explicit levels above complete ones), built
 * from the sorted indices of the states; kron_rank.
 */
#include <stdlib.h>
#include <string.h>
#include "solver/kron/kron_int.h"
#include "lang/model_int.h"
#include "solver/space/space_int.h"

void kron_tree_free(kron_tree *t)
{
    if (t->first)
        for (int a = 0; a < t->naut; a++) {
            free(t->first[a]);
            free(t->val[a]);
        }
    free(t->first);
    free(t->val);
    free(t->nodes);
    free(t->bsize);
    free(t->ns);
    memset(t, 0, sizeof *t);
}

static int tree_alloc(kron_tree *t, const san_model *m)
{
    memset(t, 0, sizeof *t);
    int na = m->naut;
    t->naut = na;
    t->ns = malloc((na + 1) * sizeof *t->ns);
    t->nodes = calloc(na + 1, sizeof *t->nodes);
    t->bsize = calloc(na + 1, sizeof *t->bsize);
    t->first = calloc(na + 1, sizeof *t->first);
    t->val = calloc(na + 1, sizeof *t->val);
    if (!t->ns || !t->nodes || !t->bsize || !t->first || !t->val)
        return -1;
    for (int a = 0; a < na; a++)
        t->ns[a] = m->aut[a].nstates;
    t->bsize[na] = 1;
    for (int a = na - 1; a >= 0; a--)
        t->bsize[a] = t->bsize[a + 1] * t->ns[a];
    return 0;
}

/* The product space: every level complete. */
int kron_tree_product(kron_tree *t, const san_model *m)
{
    if (tree_alloc(t, m) < 0)
        return -1;
    t->F = 0;
    t->nodes[0] = 1;
    for (int a = 0; a < t->naut; a++)
        t->nodes[a + 1] = t->nodes[a] * t->ns[a];
    t->bytes = 0;
    return 0;
}

/* LSD radix sort of n keys, 16 bits a pass, as many passes as needed. */
static int sort_keys(int64_t *k, int64_t n, int64_t maxkey)
{
    int64_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
    int64_t *cnt = malloc((1 << 16) * sizeof *cnt);
    if (!tmp || !cnt) {
        free(tmp);
        free(cnt);
        return -1;
    }
    int64_t *a = k, *b = tmp;
    for (int sh = 0; sh < 64 && (maxkey >> sh) > 0; sh += 16) {
        memset(cnt, 0, (1 << 16) * sizeof *cnt);
        for (int64_t i = 0; i < n; i++)
            cnt[(a[i] >> sh) & 0xffff]++;
        int64_t s = 0;
        for (int i = 0; i < (1 << 16); i++) {
            int64_t c = cnt[i];
            cnt[i] = s;
            s += c;
        }
        for (int64_t i = 0; i < n; i++)
            b[cnt[(a[i] >> sh) & 0xffff]++] = a[i];
        int64_t *sw = a;
        a = b;
        b = sw;
    }
    if (a != k)
        memcpy(k, a, n * sizeof *k);
    free(tmp);
    free(cnt);
    return 0;
}

static inline int digit(const san_model *m, int64_t idx, int a)
{
    return (int)((idx / m->stride[a]) % m->aut[a].nstates);
}

/* First level where sorted state i differs from state i-1 (0 for i = 0).
 * idx / stride[a] is the prefix of digits 0..a, and once two prefixes
 * differ the longer ones do too: a binary search, 2 log2(naut)
 * divisions instead of 4 a level (rs N=28 R=8: the tree took 2.1 s). */
static inline int diff_level(const san_model *m, const int64_t *k, int64_t i)
{
    if (i == 0)
        return 0;
    int lo = 0, hi = m->naut - 1;   /* distinct: the last level differs */
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (k[i] / m->stride[mid] != k[i - 1] / m->stride[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Counts the nodes of every level; F = first level from which all are
 * complete. */
static void tree_count(kron_tree *t, const san_model *m, const int64_t *k,
                       int64_t n)
{
    int na = t->naut;
    t->nodes[0] = 1;
    for (int64_t i = 0; i < n; i++)
        for (int a = diff_level(m, k, i); a < na; a++)
            t->nodes[a + 1]++;
    t->F = na;
    while (t->F > 0 && t->nodes[t->F] == t->nodes[t->F - 1] * t->ns[t->F - 1])
        t->F--;
}

/* Children lists of the explicit levels (a < F) from the sorted states. */
static int tree_fill(kron_tree *t, const san_model *m, const int64_t *k,
                     int64_t n)
{
    int F = t->F;
    int64_t *cur = calloc(F + 1, sizeof *cur), *cnt = calloc(F + 1, sizeof *cnt);
    int ok = cur && cnt;
    for (int a = 0; ok && a < F; a++) {
        t->first[a] = calloc(t->nodes[a] + 1, sizeof **t->first);
        t->val[a] = malloc((t->nodes[a + 1] ? t->nodes[a + 1] : 1) * sizeof **t->val);
        ok = t->first[a] && t->val[a];
        if (ok)
            t->bytes += 8.0 * (t->nodes[a] + 1) + 4.0 * t->nodes[a + 1];
    }
    for (int64_t i = 0; ok && i < n; i++)
        for (int a = diff_level(m, k, i); a < F; a++) {
            int64_t id = cnt[a + 1]++;
            t->val[a][id] = digit(m, k[i], a);
            t->first[a][cur[a] + 1]++;
            cur[a + 1] = id;
        }
    for (int a = 0; ok && a < F; a++)
        for (int64_t j = 0; j < t->nodes[a]; j++)
            t->first[a][j + 1] += t->first[a][j];
    free(cur);
    free(cnt);
    return ok ? 0 : -1;
}

/* The reachable set: *keys (when not NULL) receives the sorted indices:
 * leaf -> state. */
int kron_tree_reachable(kron_tree *t, const san_space *sp, int64_t **keys)
{
    const san_model *m = sp->m;
    if (tree_alloc(t, m) < 0)
        return -1;
    int64_t *k = malloc((sp->n ? sp->n : 1) * sizeof *k);
    if (!k)
        return -1;
    memcpy(k, sp->index, sp->n * sizeof *k);
    int rc = sort_keys(k, sp->n, m->product - 1);
    if (rc == 0) {
        tree_count(t, m, k, sp->n);
        rc = tree_fill(t, m, k, sp->n);
    }
    if (keys && rc == 0)
        *keys = k;
    else
        free(k);
    return rc;
}

/* First leaf below node k of level a (k may be nodes[a]: the end). */
int64_t kron_tree_leaf(const kron_tree *t, int a, int64_t k)
{
    for (; a < t->F; a++)
        k = t->first[a][k];
    return k * t->bsize[a];
}

/* (tree_child and children, which the walk inlines, are in kron_int.h.) */

static int64_t tree_rank(const kron_tree *t, const san_model *m, int64_t idx)
{
    int64_t k = 0;
    if (t->F == 0)
        return idx;
    for (int a = 0; a < m->naut && k >= 0; a++)
        k = tree_child(t, a, k, digit(m, idx, a));
    return k;
}

/* First leaves of the nodes of level a (nodes[a] + 1 of them), or NULL. */
int64_t *kron_first_leaves(const kron_tree *t, int a)
{
    int64_t *v = malloc((t->nodes[a] + 1) * sizeof *v);
    for (int64_t k = 0; v && k <= t->nodes[a]; k++)
        v[k] = kron_tree_leaf(t, a, k);
    return v;
}

int64_t kron_rank(const kron_desc *d, int64_t idx)
{
    if (!d->keys)
        return tree_rank(&d->tree, d->m, idx);
    int64_t l = 0, h = d->n - 1;        /* the explicit levels are gone */
    while (l <= h) {
        const int64_t mid = l + (h - l) / 2;
        if (d->keys[mid] == idx)
            return mid;
        if (d->keys[mid] < idx)
            l = mid + 1;
        else
            h = mid - 1;
    }
    return -1;
}
