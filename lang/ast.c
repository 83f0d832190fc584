/*
 * ast.c - arena allocation for the syntax tree.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lang/ast.h"
#include "lang/oom.h"

struct ast_arena {
    struct ast_arena *next;
    size_t used, size;
    max_align_t data[];
};

enum { BLOCK = 1 << 16 };

void *ast_alloc(ast_file *f, size_t size)
{
    size = (size + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
    ast_arena *a = f->arena;
    if (!a || a->size - a->used < size) {
        size_t cap = size > BLOCK ? size : BLOCK;
        a = lang_realloc(f->oom, NULL, sizeof *a + cap);
        a->next = f->arena;
        a->used = 0;
        a->size = cap;
        f->arena = a;
    }
    void *p = (char *)a->data + a->used;
    a->used += size;
    memset(p, 0, size);
    return p;
}

char *ast_strdup(ast_file *f, const char *s, size_t n)
{
    char *p = ast_alloc(f, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

/* Arrays grow to the next power of two when n reaches one, so the
 * capacity never needs to be stored.  They start at one element: most
 * lists (the to clauses of a state, the labels of a clause) hold one,
 * and a start at four made them 30% of the memory of checking 3 10^4
 * automata. */
void *ast_grow(ast_file *f, void *arr, int n, size_t elem_size)
{
    if (n == 0)
        return ast_alloc(f, elem_size);
    if (n & (n - 1))
        return arr;
    void *p = ast_alloc(f, 2 * (size_t)n * elem_size);
    memcpy(p, arr, (size_t)n * elem_size);
    return p;
}

double ast_file_bytes(const ast_file *f)
{
    double b = 0;
    for (const ast_arena *a = f->arena; a; a = a->next)
        b += (double)(sizeof *a + a->size);
    return b;
}

void ast_file_free(ast_file *f)
{
    ast_arena *a = f->arena;
    while (a) {
        ast_arena *next = a->next;
        free(a);
        a = next;
    }
    memset(f, 0, sizeof *f);
}

/* Does e mention the name (outside state and automaton references)? */
int ast_uses_name(const ast_expr *e, const char *name)
{
    if (!e)
        return 0;
    switch (e->kind) {
    case AE_NAME:
        return (!e->ref.index && !strcmp(e->ref.name, name)) || ast_uses_name(e->ref.index, name);
    case AE_ST: case AE_RW:
        return ast_uses_name(e->ref.index, name);
    case AE_NB: case AE_SUMRW: case AE_PRODRW:
        return ast_uses_name(e->ref.index, name) || ast_uses_name(e->lo.index, name) ||
               ast_uses_name(e->hi.index, name);
    case AE_NEG: case AE_NOT:
        return ast_uses_name(e->a, name);
    case AE_BIN:
        return ast_uses_name(e->a, name) || ast_uses_name(e->b, name);
    case AE_MIN: case AE_MAX: case AE_FN:
        for (int k = 0; k < e->nargs; k++)
            if (ast_uses_name(e->args[k], name))
                return 1;
        return 0;
    default:
        return 0;
    }
}

static const struct { const char *name; int arity; } fn_table[FN_COUNT] = {
    [FN_FLOOR] = { "floor", 1 }, [FN_CEIL] = { "ceil", 1 },
    [FN_MOD] = { "mod", 2 }, [FN_POW] = { "pow", 2 },
};

const char *ast_fn_name(ast_fn fn)
{
    return fn_table[fn].name;
}

int ast_fn_arity(ast_fn fn)
{
    return fn_table[fn].arity;
}

int ast_fn_find(const char *name)
{
    for (int k = 0; k < FN_COUNT; k++)
        if (!strcmp(fn_table[k].name, name))
            return k;
    return -1;
}

/* The shortest text that reads back as the same double; a negative
 * number in parentheses, as the grammar has no negative literals.  Both
 * writers of model text use it (print.c, dialect.c). */
void ast_print_num(FILE *out, double v)
{
    if (v < 0) {
        fputs("(-", out);
        ast_print_num(out, -v);
        fputc(')', out);
        return;
    }
    if (v == floor(v) && v < 1e15) {
        fprintf(out, "%.0f", v);
        return;
    }
    char buf[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    fputs(buf, out);
}
