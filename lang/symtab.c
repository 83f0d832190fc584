/*
 * symtab.c - open addressing with linear probing (symtab.h says why).
 *
 * The table is at most half full, so a miss ends after about two probes
 * on average; keys are never removed, so no tombstones.  Names hash by
 * FNV-1a, the number is folded in, and a final mix spreads the bits the
 * mask keeps (linear probing needs well-mixed low bits: "P[0]".."P[9]"
 * differ in one byte).
 */
#include <stdlib.h>
#include <string.h>
#include "lang/symtab.h"

static uint32_t key_hash(const char *name, int64_t num)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)name; p && *p; p++)
        h = (h ^ *p) * 16777619u;
    uint64_t x = (uint64_t)num;
    h ^= (uint32_t)(x ^ (x >> 32)) * 0x9E3779B1u;
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    return h ^ (h >> 16);
}

static int same_key(const symtab_slot *s, uint32_t h, const char *name, int64_t num)
{
    if (s->hash != h || s->num != num)
        return 0;
    if (!s->name || !name)
        return s->name == name;
    return strcmp(s->name, name) == 0;
}

void symtab_init(symtab *t, lang_oom *oom)
{
    memset(t, 0, sizeof *t);
    t->oom = oom;
}

void symtab_free(symtab *t)
{
    free(t->slot);
    t->slot = NULL;
    t->mask = t->n = 0;
}

/* The slot of the key, or the empty slot where it would go. */
static symtab_slot *probe(const symtab *t, uint32_t h, const char *name, int64_t num)
{
    for (uint32_t i = h & t->mask;; i = (i + 1) & t->mask) {
        symtab_slot *s = &t->slot[i];
        if (s->value < 0 || same_key(s, h, name, num))
            return s;
    }
}

int symtab_find(const symtab *t, const char *name, int64_t num)
{
    if (!t->slot)
        return -1;
    return probe(t, key_hash(name, num), name, num)->value;
}

/* Twice the capacity (16 at first), every key moved to its new slot. */
static void grow(symtab *t)
{
    uint32_t cap = t->slot ? 2 * (t->mask + 1) : 16;
    symtab_slot *old = t->slot, *s = lang_calloc(t->oom, cap, sizeof *s);
    for (uint32_t i = 0; i < cap; i++)
        s[i].value = -1;
    uint32_t oldcap = old ? t->mask + 1 : 0;
    t->slot = s;
    t->mask = cap - 1;
    for (uint32_t i = 0; i < oldcap; i++)
        if (old[i].value >= 0)
            *probe(t, old[i].hash, old[i].name, old[i].num) = old[i];
    free(old);
}

int symtab_add(symtab *t, const char *name, int64_t num, int value)
{
    if (!t->slot || 2 * (t->n + 1) > t->mask + 1)
        grow(t);
    uint32_t h = key_hash(name, num);
    symtab_slot *s = probe(t, h, name, num);
    if (s->value >= 0)
        return s->value;
    s->name = name;
    s->num = num;
    s->hash = h;
    s->value = value;
    t->n++;
    return -1;
}
