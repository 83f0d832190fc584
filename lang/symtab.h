/*
 * symtab.h - the front end's symbol tables: open addressing, linear
 * probing, keys (name, num) mapped to a non-negative int (an index into
 * the caller's own array).
 *
 * Every lookup of the semantic pass used to scan a list with strcmp:
 * 10^5 identifiers each defined from the one before took 186 s, 10^5
 * replicas 13 s (87% of the profile in those scans).  A table keeps
 * each lookup constant on average.  Names are not copied: they live in
 * the syntax tree (or the caller's tables) as long as the table does.
 * Allocation goes through the load's recovery point (oom.h).
 */
#ifndef SAN_LANG_SYMTAB_H
#define SAN_LANG_SYMTAB_H

#include <stdint.h>
#include "lang/oom.h"

typedef struct {
    const char *name;       /* the key's name (NULL allowed: a number alone) */
    int64_t num;            /* the key's number (an index, a scope) */
    uint32_t hash;
    int value;              /* -1: an empty slot */
} symtab_slot;

typedef struct {
    symtab_slot *slot;
    uint32_t mask;          /* capacity - 1 (a power of two); 0: no slots yet */
    uint32_t n;             /* keys held */
    lang_oom *oom;
} symtab;

void symtab_init(symtab *t, lang_oom *oom);
void symtab_free(symtab *t);
/* The value of key (name, num), or -1. */
int symtab_find(const symtab *t, const char *name, int64_t num);
/* Adds (name, num) -> value (>= 0) unless the key is there: returns -1
 * when added, else the value it already has (which stays). */
int symtab_add(symtab *t, const char *name, int64_t num, int value);

#endif
