/*
 * sema_lookup.c - the semantic pass's lookups of names: identifiers,
 * automata (groups and their blocks), declared events, and the owner of
 * an index variable.  A leaf of the pass: the phases (sema.c), the
 * expressions (sema_expr.c), the replicated events (repl.c) and the
 * suggestions (sema_suggest.c) find names with it.
 */
#include "lang/sema_int.h"
#include "lang/model_int.h"

s_ident *find_ident(sema *S, const char *name)
{
    int i = symtab_find(&S->id_names, name, 0);
    return i < 0 ? NULL : &S->ids[i];
}

s_group *find_group(sema *S, const char *name)
{
    int g = symtab_find(&S->group_names, name, 0);
    return g < 0 ? NULL : &S->groups[g];
}

int event_declared(sema *S, const char *name)
{
    return symtab_find(&S->event_names, name, 0) >= 0;
}

/* Which group does model automaton a belong to?  Groups hold ascending
 * runs of automata: bisection. */
s_group *group_of(sema *S, int a)
{
    int lo = 0, hi = S->ngroups - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        s_group *G = &S->groups[mid];
        if (a < G->first)
            hi = mid - 1;
        else if (a >= G->first + G->n)
            lo = mid + 1;
        else
            return G;
    }
    return NULL;
}

s_block *find_block(sema *S, s_group *G, const char *name)
{
    if (G->ast->nstates > SEMA_SCAN_BLOCKS) {
        int b = symtab_find(&S->block_names, name, G - S->groups);
        return b < 0 ? NULL : &G->blocks[b];
    }
    for (int b = 0; b < G->nblocks; b++)
        if (!strcmp(G->blocks[b].ast->name, name))
            return &G->blocks[b];
    return NULL;
}

/* Block b of G, just laid out, becomes findable by name; returns -1, or
 * the block that already has the name. */
int add_block_name(sema *S, s_group *G, int b)
{
    if (G->ast->nstates > SEMA_SCAN_BLOCKS)
        return symtab_add(&S->block_names, G->blocks[b].ast->name, G - S->groups, b);
    for (int k = 0; k < b; k++)
        if (!strcmp(G->blocks[k].ast->name, G->blocks[b].ast->name))
            return k;
    return -1;
}

/* The automaton or event whose index variable is name, for the message
 * of a use outside it; NULL if none. */
const char *index_var_owner(sema *S, const char *name, ast_pos *at)
{
    const ast_file *f = S->f;
    for (int a = 0; a < f->nauts; a++) {
        const ast_domain *d = f->auts[a].dom;
        if (f->auts[a].name && d && d->var && !strcmp(d->var, name)) {
            *at = d->var_pos;
            return f->auts[a].name;
        }
    }
    for (int e = 0; e < f->nevents; e++) {
        const ast_domain *d = f->events[e].dom;
        if (d && d->var && !strcmp(d->var, name)) {
            *at = d->var_pos;
            return f->events[e].name;
        }
    }
    return NULL;
}
