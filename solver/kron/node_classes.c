/*
 * node_classes.c - classes of nodes of the level tree (tree.c).
 *
 * Two nodes of a level are in one class when their subtrees hold the
 * same suffixes: the same child values, the children in the same classes
 * of the level below.  All the nodes of a complete level are one class.
 * A term acts the same way inside every anchor node of a class, pulling
 * from every source node of another class, up to the values of its
 * functions: this is what lets the region level sit on explicit levels
 * (see regions.c, "The bottom of the tree").  Computed level by level
 * from the bottom, by hashing each node's (value, class below) list.
 */
#include <stdlib.h>
#include <string.h>
#include "base/grow.h"
#include "solver/kron/kron_int.h"

void kron_classes_free(node_classes *c)
{
    free(c->cls);
    free(c->rep);
    free(c->size);
    memset(c, 0, sizeof *c);
}

static inline uint64_t hash_step(uint64_t h, uint64_t v)
{
    h = (h ^ v) * 0x9e3779b97f4a7c15ULL;
    return h ^ (h >> 29);
}

/* Do nodes k and j of explicit level a have the same children (values,
 * and classes below: none when below is NULL)? */
static int same_children(const kron_tree *t, int a, const int32_t *below,
                         int64_t k, int64_t j)
{
    const int64_t *f = t->first[a];
    const int32_t *val = t->val[a];
    const int64_t n = f[k + 1] - f[k];
    if (f[j + 1] - f[j] != n)
        return 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t ck = f[k] + i, cj = f[j] + i;
        if (val[ck] != val[cj] || (below && below[ck] != below[cj]))
            return 0;
    }
    return 1;
}

/* The classes of explicit level a from those of level a + 1 (below
 * NULL: level a + 1 is complete, one class of bsize[a + 1] leaves).
 * 0, or -1 (memory). */
int kron_level_classes(const kron_tree *t, int a, const node_classes *below,
                       node_classes *c)
{
    const int64_t n = t->nodes[a];
    int64_t hsz = 16, cap = 0;
    while (hsz < 2 * n)
        hsz *= 2;
    memset(c, 0, sizeof *c);
    int32_t *h = malloc(hsz * sizeof *h);
    c->cls = malloc((n ? n : 1) * sizeof *c->cls);
    if (!h || !c->cls)
        goto fail;
    memset(h, 0xff, hsz * sizeof *h);          /* -1: empty slot */
    const int32_t *bc = below ? below->cls : NULL;
    for (int64_t k = 0; k < n; k++) {
        uint64_t x = 0x243f6a8885a308d3ULL;
        int64_t sz = 0;
        for (int64_t ch = t->first[a][k]; ch < t->first[a][k + 1]; ch++) {
            const uint32_t cb = bc ? (uint32_t)bc[ch] : 0;
            x = hash_step(x, (uint64_t)(uint32_t)t->val[a][ch] << 32 | cb);
            sz += bc ? below->size[cb] : t->bsize[a + 1];
        }
        int64_t slot = (int64_t)(x & (uint64_t)(hsz - 1));
        int id = -1;
        for (; h[slot] >= 0; slot = (slot + 1) & (hsz - 1))
            if (same_children(t, a, bc, k, c->rep[h[slot]])) {
                id = h[slot];
                break;
            }
        if (id < 0) {
            if (grow2((void **)&c->rep, sizeof *c->rep, (void **)&c->size,
                      sizeof *c->size, &cap, c->ncls + 1) < 0)
                goto fail;
            id = c->ncls++;
            c->rep[id] = k;
            c->size[id] = sz;
            c->leaves += sz;
            h[slot] = id;
        }
        c->cls[k] = id;
    }
    free(h);
    return 0;
fail:
    free(h);
    kron_classes_free(c);
    return -1;
}
