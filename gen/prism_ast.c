/*
 * prism_ast.c - the arena of the PRISM importer's syntax tree (prism.h):
 * every node, string and list of one import in blocks freed at once; an
 * allocation that fails jumps back to the importer (m->oom).  A leaf of
 * gen/: the parser (prism_parser.y), the lexer (prism_lexer.l) and the
 * translation (prism.c) all allocate here, so none of them hosts it.
 */
#include <stdlib.h>
#include <string.h>
#include "gen/prism.h"

void *px_alloc(px_model *m, size_t size)
{
    if (m->nblocks == m->capblocks) {
        int cap = m->capblocks ? 2 * m->capblocks : 64;
        void **b = realloc(m->blocks, (size_t)cap * sizeof *b);
        if (!b)
            longjmp(m->oom, 1);
        m->blocks = b;
        m->capblocks = cap;
    }
    void *p = calloc(1, size ? size : 1);
    if (!p)
        longjmp(m->oom, 1);
    m->blocks[m->nblocks++] = p;
    return p;
}

char *px_strdup(px_model *m, const char *s, size_t n)
{
    char *p = px_alloc(m, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

void px_push(px_model *m, px_list *l, void *item)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 4;
        void **p = px_alloc(m, (size_t)cap * sizeof *p);
        if (l->n)
            memcpy(p, l->p, (size_t)l->n * sizeof *p);
        l->p = p;
        l->cap = cap;
    }
    l->p[l->n++] = item;
}

void px_model_free(px_model *m)
{
    for (int i = 0; i < m->nblocks; i++)
        free(m->blocks[i]);
    free(m->blocks);
    m->blocks = NULL;
    m->nblocks = m->capblocks = 0;
}

px_expr *px_new(px_model *m, px_kind k, int line, int col)
{
    px_expr *e = px_alloc(m, sizeof *e);
    e->kind = k;
    e->line = line;
    e->col = col;
    return e;
}
