/*
 * idmap.c - allocation and growth of the index -> number map; see idmap.h.
 */
#include <stdlib.h>
#include <string.h>
#include "solver/space/idmap.h"
#include "lang/model_int.h"

/* Flat while it fits a quarter of the limit and, when the number of
 * states is known, costs at most IDMAP_FLAT_BYTES_PER_STATE a state. */
static int flat(const san_model *m, double states, double limit)
{
    return m->product_fits && m->product < INT32_MAX && 4.0 * m->product <= limit / 4 &&
           (states <= 0 || 4.0 * m->product <= IDMAP_FLAT_BYTES_PER_STATE * states);
}

/* Slots of a hash for that many states: at most half full. */
static uint64_t hash_slots(double states)
{
    uint64_t cap = 1u << 16;
    while (cap < 2 * states)
        cap *= 2;
    return cap;
}

int idmap_init(idmap *h, const san_model *m, double states, double limit)
{
    memset(h, 0, sizeof *h);
    if (flat(m, states, limit)) {
        h->dir = malloc((size_t)m->product * sizeof *h->dir);
        if (!h->dir)
            return -1;
        memset(h->dir, 0xff, (size_t)m->product * sizeof *h->dir);
        return 0;
    }
    h->mask = hash_slots(states) - 1;
    h->keys = calloc(h->mask + 1, sizeof *h->keys);
    h->vals = malloc((h->mask + 1) * sizeof *h->vals);
    return h->keys && h->vals ? 0 : -1;
}

double idmap_estimate(const san_model *m, double states, double limit)
{
    return flat(m, states, limit) ? 4.0 * m->product : 12.0 * hash_slots(states);
}

void idmap_free(idmap *h)
{
    free(h->dir);
    free(h->keys);
    free(h->vals);
    memset(h, 0, sizeof *h);
}

int idmap_grow(idmap *h)
{
    uint64_t cap = 2 * (h->mask + 1), mask = cap - 1;
    uint64_t *keys = calloc(cap, sizeof *keys);
    int32_t *vals = malloc(cap * sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return -1;
    }
    for (uint64_t i = 0; i <= h->mask; i++)
        if (h->keys[i]) {
            uint64_t j = idmap_mix(h->keys[i]) & mask;
            while (keys[j])
                j = (j + 1) & mask;
            keys[j] = h->keys[i];
            vals[j] = h->vals[i];
        }
    free(h->keys);
    free(h->vals);
    h->keys = keys;
    h->vals = vals;
    h->mask = mask;
    return 0;
}

double idmap_bytes(const idmap *h, const san_model *m)
{
    return h->dir ? 4.0 * m->product : 12.0 * (h->mask + 1);
}
