/*
 * idmap.h - the map from a state's mixed-radix index to its number
 * (internal to libsan).
 *
 * A flat array when the product space is small enough (one slot per
 * product state, -1 = not reached), a hash table with linear probing
 * otherwise.  Lookups are inline: the exploration does one per arc.
 * Lookups may run on several threads at once; inserts may not, and no
 * lookup may run during an insert.
 */
#ifndef SAN_IDMAP_H
#define SAN_IDMAP_H

#include <stdint.h>
#include "san.h"

typedef struct {
    int32_t *dir;           /* direct: one slot per product state */
    uint64_t *keys;         /* hash: index + 1, 0 = empty */
    int32_t *vals;
    uint64_t mask;
    int64_t count;
} idmap;

/* Direct when the flat array fits in a quarter of the budget (bytes). */
int idmap_init(idmap *h, const san_model *m, double budget);
void idmap_free(idmap *h);
int idmap_grow(idmap *h);
double idmap_bytes(const idmap *h, const san_model *m);

static inline uint64_t idmap_mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

/* Number of idx, or -1 when it has none yet. */
static inline int32_t idmap_find(const idmap *h, int64_t idx)
{
    if (h->dir)
        return h->dir[idx];
    uint64_t key = (uint64_t)idx + 1, j = idmap_mix(key) & h->mask;
    while (h->keys[j]) {
        if (h->keys[j] == key)
            return h->vals[j];
        j = (j + 1) & h->mask;
    }
    return -1;
}

static inline void idmap_prefetch(const idmap *h, int64_t idx)
{
    if (h->dir)
        __builtin_prefetch(&h->dir[idx]);
    else
        __builtin_prefetch(&h->keys[idmap_mix((uint64_t)idx + 1) & h->mask]);
}

/* Number of idx, giving it `next` if it has none (*fresh set then).
 * -2: out of memory. */
static inline int64_t idmap_get(idmap *h, int64_t idx, int32_t next, int *fresh)
{
    *fresh = 0;
    if (h->dir) {
        if (h->dir[idx] < 0) {
            h->dir[idx] = next;
            *fresh = 1;
        }
        return h->dir[idx];
    }
    if (2 * (h->count + 1) > (int64_t)(h->mask + 1) && idmap_grow(h) < 0)
        return -2;
    uint64_t key = (uint64_t)idx + 1, j = idmap_mix(key) & h->mask;
    while (h->keys[j]) {
        if (h->keys[j] == key)
            return h->vals[j];
        j = (j + 1) & h->mask;
    }
    h->keys[j] = key;
    h->vals[j] = next;
    h->count++;
    *fresh = 1;
    return next;
}

#endif
