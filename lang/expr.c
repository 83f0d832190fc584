/*
 * expr.c - build, fold and evaluate compiled expressions.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lang/expr.h"
#include "lang/oom.h"
#include "lang/model_int.h"

static void *grow(lang_oom *oom, void *p, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return p;
    int cap2 = *cap ? *cap : 2;     /* most expressions are one constant */
    while (cap2 < need)
        cap2 *= 2;
    void *q = lang_realloc(oom, p, (size_t)cap2 * elem);
    *cap = cap2;
    return q;
}

void xb_init(xbuild *b, lang_oom *oom)
{
    memset(b, 0, sizeof *b);
    b->oom = oom;
    b->e = lang_calloc(oom, 1, sizeof *b->e);
}

int xop_arity(const xins *i)
{
    switch (i->op) {
    case X_CONST: case X_ST: case X_RW: case X_NB: case X_SUMRW:
    case X_PRODRW: case X_RESULT: case X_THR: case X_CALL:
        return 0;
    case X_NEG: case X_NOT: case X_FLOOR: case X_CEIL:
        return 1;
    case X_MIN: case X_MAX:
        return i->n;
    default:
        return 2;
    }
}

int xb_emit(xbuild *b, xop op, int32_t a, int32_t n, double v)
{
    san_expr *e = b->e;
    e->code = grow(b->oom, e->code, &b->capcode, e->ncode + 1, sizeof *e->code);
    xins *i = &e->code[e->ncode];
    i->op = (uint8_t)op;
    i->a = a;
    i->n = n;
    i->v = v;
    b->sp += 1 - xop_arity(i);
    if (b->sp > b->maxsp)
        b->maxsp = b->sp;
    return e->ncode++;
}

int xb_itab(xbuild *b, int32_t v)
{
    san_expr *e = b->e;
    e->itab = grow(b->oom, e->itab, &b->capitab, e->nitab + 1, sizeof *e->itab);
    e->itab[e->nitab] = v;
    return e->nitab++;
}

int xb_rtab(xbuild *b, const double *v, int n)
{
    san_expr *e = b->e;
    e->rtab = grow(b->oom, e->rtab, &b->caprtab, e->nrtab + n, sizeof *e->rtab);
    memcpy(e->rtab + e->nrtab, v, (size_t)n * sizeof *v);
    int off = e->nrtab;
    e->nrtab += n;
    return off;
}

int xb_call(xbuild *b, const san_expr *fn)
{
    san_expr *e = b->e;
    for (int k = 0; k < e->ncalls; k++)
        if (e->calls[k] == fn)
            return k;
    e->calls = grow(b->oom, e->calls, &e->capcalls, e->ncalls + 1, sizeof *e->calls);
    e->calls[e->ncalls] = fn;
    return e->ncalls++;
}

/* fmod is exact (its result is representable), so only the sign needs
 * mending: fmod takes the sign of a, mod that of b.  The sum r + b may
 * round to b itself when r is tiny (mod(-1e-20, 1) is 1). */
double lang_mod(double a, double b)
{
    if (b == 0)
        return NAN;
    double r = fmod(a, b);
    if (r != 0 && (r < 0) != (b < 0))
        r += b;
    return r;
}

/* The operators on plain values; shared by folding and evaluation. */
static double apply2(int op, double x, double y)
{
    switch (op) {
    case X_ADD: return x + y;
    case X_SUB: return x - y;
    case X_MUL: return x * y;
    case X_DIV: return x / y;
    case X_LT:  return x < y;
    case X_LE:  return x <= y;
    case X_GT:  return x > y;
    case X_GE:  return x >= y;
    case X_EQ:  return x == y;
    case X_NE:  return x != y;
    case X_AND: return (x != 0) && (y != 0);
    case X_XOR: return (x != 0) != (y != 0);
    case X_OR:  return (x != 0) || (y != 0);
    case X_IMP: return (x == 0) || (y != 0);
    case X_EQV: return (x != 0) == (y != 0);
    case X_MOD: return lang_mod(x, y);
    case X_POW: return pow(x, y);
    }
    return NAN;
}

void xb_fold(xbuild *b, int *div_by_zero)
{
    san_expr *e = b->e;
    xins *top = &e->code[e->ncode - 1];
    int m = xop_arity(top);
    if (m == 0 || e->ncode < m + 1)
        return;
    xins *arg = top - m;
    for (int k = 0; k < m; k++)
        if (arg[k].op != X_CONST)
            return;
    double r;
    switch (top->op) {
    case X_NEG: r = -arg[0].v; break;
    case X_NOT: r = arg[0].v == 0; break;
    case X_FLOOR: r = floor(arg[0].v); break;
    case X_CEIL: r = ceil(arg[0].v); break;
    case X_MIN: case X_MAX:
        r = arg[0].v;
        for (int k = 1; k < m; k++)
            r = top->op == X_MIN ? fmin(r, arg[k].v) : fmax(r, arg[k].v);
        break;
    default:
        if ((top->op == X_DIV || top->op == X_MOD) && arg[1].v == 0 && div_by_zero)
            *div_by_zero = 1;
        r = apply2(top->op, arg[0].v, arg[1].v);
    }
    e->ncode -= m;
    arg[0].op = X_CONST;
    arg[0].a = arg[0].n = 0;
    arg[0].v = r;
}

static void add_dep(xbuild *b, int *cap, int a)
{
    san_expr *e = b->e;
    e->deps = grow(b->oom, e->deps, cap, e->ndeps + 1, sizeof *e->deps);
    e->deps[e->ndeps++] = a;
}

static int cmp_dep(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/* The automata read, ascending, each once: collected as the code names
 * them, then sorted (a mark per automaton of the network cost the whole
 * network per expression compiled: 10^6 automata, 4 MB each). */
san_expr *xb_finish(xbuild *b)
{
    san_expr *e = b->e;
    e->depth = b->maxsp > 0 ? b->maxsp : 1;
    e->is_const = e->ncode == 1 && e->code[0].op == X_CONST;
    e->value = e->is_const ? e->code[0].v : 0;
    int cap = 0;
    e->deps = grow(b->oom, NULL, &cap, 1, sizeof *e->deps);
    for (int k = 0; k < e->ncode; k++) {
        const xins *i = &e->code[k];
        if (i->op == X_ST || i->op == X_RW)
            add_dep(b, &cap, i->a);
        else if (i->op == X_NB)
            for (int t = 0; t < i->n; t++)
                add_dep(b, &cap, e->itab[i->a + 3 * t]);
        else if (i->op == X_SUMRW || i->op == X_PRODRW)
            for (int t = 0; t < i->n; t++)
                add_dep(b, &cap, e->itab[i->a + 4 * t]);
        else if (i->op == X_RESULT)
            e->reads_results = 1;
        else if (i->op == X_THR)
            e->reads_results = e->reads_thr = 1;
        else if (i->op == X_CALL)
            for (int t = 0; t < e->calls[i->a]->ndeps; t++)
                add_dep(b, &cap, e->calls[i->a]->deps[t]);
    }
    if (e->ndeps > 1)
        qsort(e->deps, e->ndeps, sizeof *e->deps, cmp_dep);
    int n = e->ndeps > 0;
    for (int k = 1; k < e->ndeps; k++)
        if (e->deps[k] != e->deps[n - 1])
            e->deps[n++] = e->deps[k];
    e->ndeps = n;
    b->e = NULL;
    return e;
}

san_expr *xb_constant(lang_oom *oom, double v)
{
    xbuild b;
    xb_init(&b, oom);
    xb_emit(&b, X_CONST, 0, 0, v);
    return xb_finish(&b);
}

san_expr *lang_expr_constant(double v)
{
    lang_oom oom;
    if (setjmp(oom.env))
        return NULL;        /* out of memory (a few bytes are lost) */
    return xb_constant(&oom, v);
}

/* The size of a table over the automata e reads (a product of their
 * state counts): lang_expr_tabulate built it so. */
static double table_entries(const san_expr *e, const san_model *m)
{
    double size = 1;
    for (int k = 0; k < e->ndeps; k++)
        size *= m->aut[e->deps[k]].nstates;
    return size;
}

double lang_expr_bytes(const san_expr *e, const san_model *m)
{
    if (!e)
        return 0;
    double b = LANG_BLOCK_BYTES(sizeof *e) + LANG_BLOCK_BYTES(e->ncode * sizeof *e->code) +
               LANG_BLOCK_BYTES(e->nitab * sizeof *e->itab) +
               LANG_BLOCK_BYTES(e->nrtab * sizeof *e->rtab) +
               LANG_BLOCK_BYTES(e->capcalls * sizeof *e->calls) +
               LANG_BLOCK_BYTES(e->ndeps * sizeof *e->deps);
    if (e->tab)
        b += LANG_BLOCK_BYTES(table_entries(e, m) * sizeof *e->tab) +
             LANG_BLOCK_BYTES(e->ndeps * sizeof *e->tabstride);
    return b;
}

void lang_expr_free(san_expr *e)
{
    if (!e)
        return;
    free(e->code);
    free(e->itab);
    free(e->rtab);
    free(e->deps);
    free(e->calls);
    free(e->tab);
    free(e->tabstride);
    free(e);
}

int san_expr_is_const(const san_expr *e)
{
    return e->is_const;
}

double san_expr_const(const san_expr *e)
{
    return e->value;
}

const int *san_expr_deps(const san_expr *e, int *n)
{
    *n = e->ndeps;
    return e->deps;
}

/* The interpreter.  Expressions deeper than the local stack (rare: the
 * parser caps nesting) use a heap stack. */
static double run(const san_expr *e, const int *s, const double *results, const double *thr,
                  double *st)
{
    int sp = 0;
    const xins *i = e->code, *end = e->code + e->ncode;
    for (; i < end; i++) {
        switch (i->op) {
        case X_CONST:
            st[sp++] = i->v;
            break;
        case X_ST:
            st[sp++] = s[i->a];
            break;
        case X_RW:
            st[sp++] = e->rtab[i->n + s[i->a]];
            break;
        case X_NB: {
            const int32_t *t = e->itab + i->a;
            int c = 0;
            for (int k = 0; k < i->n; k++, t += 3) {
                int x = s[t[0]];
                c += x >= t[1] && x <= t[2];
            }
            st[sp++] = c;
            break;
        }
        case X_SUMRW: case X_PRODRW: {
            const int32_t *t = e->itab + i->a;
            double acc = i->op == X_SUMRW ? 0 : 1;
            for (int k = 0; k < i->n; k++, t += 4) {
                int x = s[t[0]];
                if (x >= t[1] && x <= t[2]) {
                    double r = e->rtab[t[3] + x];
                    acc = i->op == X_SUMRW ? acc + r : acc * r;
                }
            }
            st[sp++] = acc;
            break;
        }
        case X_RESULT:
            st[sp++] = results ? results[i->a] : NAN;
            break;
        case X_THR: {
            double sum = 0;
            for (int k = 0; k < i->n; k++)
                sum += thr ? thr[e->itab[i->a + k]] : NAN;
            st[sp++] = sum;
            break;
        }
        case X_CALL:
            st[sp++] = san_expr_eval_ctx(e->calls[i->a], s, NULL);
            break;
        case X_NEG:
            st[sp - 1] = -st[sp - 1];
            break;
        case X_NOT:
            st[sp - 1] = st[sp - 1] == 0;
            break;
        case X_FLOOR:
            st[sp - 1] = floor(st[sp - 1]);
            break;
        case X_CEIL:
            st[sp - 1] = ceil(st[sp - 1]);
            break;
        case X_ADD: sp--; st[sp - 1] += st[sp]; break;
        case X_SUB: sp--; st[sp - 1] -= st[sp]; break;
        case X_MUL: sp--; st[sp - 1] *= st[sp]; break;
        case X_DIV: sp--; st[sp - 1] /= st[sp]; break;
        case X_MIN: case X_MAX: {
            sp -= i->n;
            double r = st[sp];
            for (int k = 1; k < i->n; k++)
                r = i->op == X_MIN ? fmin(r, st[sp + k]) : fmax(r, st[sp + k]);
            st[sp++] = r;
            break;
        }
        default:
            sp--;
            st[sp - 1] = apply2(i->op, st[sp - 1], st[sp]);
        }
    }
    return st[0];
}

void lang_expr_tabulate(san_expr *e, const san_model *m, int64_t max_entries, int *s)
{
    if (e->is_const || e->reads_results || e->ndeps <= 0 || e->tab)
        return;
    int64_t size = 1;
    for (int k = 0; k < e->ndeps; k++) {
        size *= m->aut[e->deps[k]].nstates;
        if (size > max_entries)
            return;
    }
    double *tab = malloc(size * sizeof *tab);
    int64_t *stride = malloc((size_t)e->ndeps * sizeof *stride);
    if (!tab || !stride) {
        free(tab);
        free(stride);
        return;
    }
    for (int k = e->ndeps - 1, st = 1; k >= 0; k--) {
        stride[k] = st;
        st *= m->aut[e->deps[k]].nstates;
    }
    /* odometer over the automata read; the others stay at 0, unread;
     * the last step wraps every digit back to 0 */
    for (int64_t i = 0; i < size; i++) {
        tab[i] = san_expr_eval_ctx(e, s, NULL);
        for (int k = e->ndeps - 1; k >= 0; k--) {
            int a = e->deps[k];
            if (++s[a] < m->aut[a].nstates)
                break;
            s[a] = 0;
        }
    }
    e->tabstride = stride;
    e->tab = tab;
}

double lang_expr_eval_sol(const san_expr *e, const int *state, const double *results,
                         const double *throughput)
{
    if (e->is_const)
        return e->value;
    if (e->tab) {
        int64_t i = 0;
        for (int k = 0; k < e->ndeps; k++)
            i += state[e->deps[k]] * e->tabstride[k];
        return e->tab[i];
    }
    double local[64];
    if (e->depth <= 64)
        return run(e, state, results, throughput, local);
    double *heap = malloc((size_t)e->depth * sizeof *heap);
    if (!heap)
        return NAN;
    double r = run(e, state, results, throughput, heap);
    free(heap);
    return r;
}

void lang_results_derive(const san_model *m, double *results, const double *throughput,
                        san_diag *d)
{
    for (int r = 0; r < m->nres; r++)
        if (m->res[r].derived)
            results[r] = lang_expr_eval_sol(m->res[r].expr, NULL, results, throughput);
    for (int r = 0; r < m->nres; r++)
        if (!isfinite(results[r]))
            san_diag_add(d, SAN_WARNING, 0, 0, "result '%s' is not a finite number (%g)",
                         m->res[r].name, results[r]);
}

double san_expr_eval_ctx(const san_expr *e, const int *state, const double *results)
{
    return lang_expr_eval_sol(e, state, results, NULL);
}

double san_expr_eval(const san_expr *e, const int *state)
{
    return san_expr_eval_ctx(e, state, NULL);
}
