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

/* A flat array costs 4 bytes a product state, a hash 12 bytes a slot,
 * at most half full (24 to 48 bytes a state); the flat one is faster to
 * search, so it is taken while it costs at most this much a state
 * (1/16 of the product space reachable), and fits a quarter of the
 * memory limit.  rs N=28 R=8, 4.8 M states of 2^28: flat 1 GiB, hash
 * 192 MiB. */
#define IDMAP_FLAT_BYTES_PER_STATE 64.0

/* A map for about `states` states (0: unknown, only the limit decides),
 * under the memory limit (bytes). */
int idmap_init(idmap *h, const san_model *m, double states, double limit);
/* What idmap_init would take for that many states. */
double idmap_estimate(const san_model *m, double states, double limit);
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

/* Will the next insert grow the table (and hold the old and the new
 * one, three times the old size, for a moment)? */
static inline int idmap_full(const idmap *h)
{
    return !h->dir && 2 * (h->count + 1) > (int64_t)(h->mask + 1);
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
