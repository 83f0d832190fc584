/*
 * parse.c - PRISM's property language, the CTMC fragment (san/props.h).
 *
 * A hand-written lexer and recursive-descent parser: a property file is
 * a list of items, each ended by ';', a new line or the end of the text
 * (a property may span lines while an operator or a bracket is open):
 *     const [int|double|bool] NAME [= EXPR];
 *     ["NAME":] S=? [phi] | P=? [path] | R[{"r"}]=? [rpath]
 * with line and block comments.  What PRISM has beyond the fragment (bounds
 * P>=0.5, Pmin/Pmax, nested operators, LTL, filters, multi-objective,
 * X) is refused with its position and what the fragment accepts.
 * Constants are folded at parse time: their values come from the file
 * or from -D.
 */
#include <ctype.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "solver/props/props_int.h"

enum {
    T_EOF, T_NUM, T_ID, T_STR, T_PUNCT
};

typedef struct {
    int kind;
    char p[4];              /* T_PUNCT: the operator */
    const char *s;          /* T_ID, T_STR: start (inside quotes) */
    size_t n;
    double v;
    int line, col;
    int nl;                 /* a new line before it */
    size_t off;             /* offset of the token in the text */
} tok;

typedef struct {
    san_props *P;
    const char *t;
    size_t len, i;
    int line, col;
    tok cur;
    san_diag *d;
    const san_define *defs;
    int ndefs;
    int src;
    int in_bound;           /* reading an open time bound (bound_expr) */
    jmp_buf fail;           /* an error: skip to the next item */
    jmp_buf *oom;
    int errors;
} parser;

void *props_alloc(san_props *p, size_t n)
{
    void *m = calloc(1, n ? n : 1);
    if (!m)
        return NULL;
    if (p->nblocks == p->capblocks) {
        int cap = p->capblocks ? 2 * p->capblocks : 64;
        void **b = realloc(p->blocks, (size_t)cap * sizeof *b);
        if (!b) {
            free(m);
            return NULL;
        }
        p->blocks = b;
        p->capblocks = cap;
    }
    p->blocks[p->nblocks++] = m;
    return m;
}

char *props_strdup(san_props *p, const char *s, size_t n)
{
    char *r = props_alloc(p, n + 1);
    if (r) {
        memcpy(r, s, n);
        r[n] = 0;
    }
    return r;
}

static void *palloc(parser *ps, size_t n)
{
    void *m = props_alloc(ps->P, n);
    if (!m)
        longjmp(*ps->oom, 1);
    return m;
}

static char *pstrdup(parser *ps, const char *s, size_t n)
{
    char *r = props_strdup(ps->P, s, n);
    if (!r)
        longjmp(*ps->oom, 1);
    return r;
}

static void perr(parser *ps, int line, int col, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 4, 5), noreturn))
#endif
    ;
static void perr(parser *ps, int line, int col, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    san_diag_add(ps->d, SAN_ERROR, line, col, "%s", buf);
    ps->errors++;
    longjmp(ps->fail, 1);
}

/* ---- the lexer ---- */

static int peekc(const parser *ps, size_t k)
{
    return ps->i + k < ps->len ? (unsigned char)ps->t[ps->i + k] : 0;
}

static void adv(parser *ps)
{
    if (ps->t[ps->i] == '\n') {
        ps->line++;
        ps->col = 1;
    } else {
        ps->col++;
    }
    ps->i++;
}

static void next(parser *ps)
{
    tok *k = &ps->cur;
    k->nl = 0;
    for (;;) {
        int c = peekc(ps, 0);
        if (c == '\n') {
            k->nl = 1;
            adv(ps);
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            adv(ps);
        } else if (c == '/' && peekc(ps, 1) == '/') {
            while (ps->i < ps->len && ps->t[ps->i] != '\n')
                adv(ps);
        } else if (c == '/' && peekc(ps, 1) == '*') {
            int l = ps->line, co = ps->col;
            adv(ps);
            adv(ps);
            while (ps->i < ps->len && !(peekc(ps, 0) == '*' && peekc(ps, 1) == '/'))
                adv(ps);
            if (ps->i >= ps->len) {
                k->kind = T_EOF;
                perr(ps, l, co, "comment not closed: expected '*/'");
            }
            adv(ps);
            adv(ps);
        } else {
            break;
        }
    }
    k->line = ps->line;
    k->col = ps->col;
    k->off = ps->i;
    int c = peekc(ps, 0);
    if (ps->i >= ps->len) {
        k->kind = T_EOF;
        return;
    }
    if (isdigit(c) || (c == '.' && isdigit(peekc(ps, 1)))) {
        char *end;
        k->v = strtod(ps->t + ps->i, &end);
        size_t n = (size_t)(end - (ps->t + ps->i));
        for (size_t j = 0; j < n; j++)
            adv(ps);
        k->kind = T_NUM;
        return;
    }
    if (isalpha(c) || c == '_') {
        k->s = ps->t + ps->i;
        size_t n = 0;
        while (isalnum(peekc(ps, 0)) || peekc(ps, 0) == '_') {
            adv(ps);
            n++;
        }
        k->n = n;
        k->kind = T_ID;
        return;
    }
    if (c == '"') {
        adv(ps);
        k->s = ps->t + ps->i;
        size_t n = 0;
        while (ps->i < ps->len && peekc(ps, 0) != '"' && peekc(ps, 0) != '\n') {
            adv(ps);
            n++;
        }
        if (peekc(ps, 0) != '"') {
            k->kind = T_EOF;
            perr(ps, k->line, k->col, "string not closed: expected '\"' on the same line");
        }
        adv(ps);
        k->n = n;
        k->kind = T_STR;
        return;
    }
    static const char *const ops[] = { "<=>", "=>", "<=", ">=", "!=", "=?", NULL };
    for (int j = 0; ops[j]; j++) {
        size_t n = strlen(ops[j]);
        if (ps->i + n <= ps->len && !memcmp(ps->t + ps->i, ops[j], n)) {
            memcpy(k->p, ops[j], n + 1);
            for (size_t m = 0; m < n; m++)
                adv(ps);
            k->kind = T_PUNCT;
            return;
        }
    }
    if (strchr("[](){},;:=<>&|!+-*/?", c) && c) {
        k->p[0] = (char)c;
        k->p[1] = 0;
        adv(ps);
        k->kind = T_PUNCT;
        return;
    }
    adv(ps);
    perr(ps, k->line, k->col, "unexpected character '%c'%s", isprint(c) ? c : '?',
         isprint(c) ? "" : " (not printable)");
}

static int is_p(const parser *ps, const char *p)
{
    return ps->cur.kind == T_PUNCT && !strcmp(ps->cur.p, p);
}

static int is_id(const parser *ps, const char *w)
{
    return ps->cur.kind == T_ID && ps->cur.n == strlen(w) && !memcmp(ps->cur.s, w, ps->cur.n);
}

static const char *tok_text(const parser *ps, char *buf, size_t n)
{
    const tok *k = &ps->cur;
    switch (k->kind) {
    case T_EOF:
        return "the end of the property";
    case T_NUM:
        snprintf(buf, n, "'%g'", k->v);
        return buf;
    case T_ID:
        snprintf(buf, n, "'%.*s'", (int)k->n, k->s);
        return buf;
    case T_STR:
        snprintf(buf, n, "\"%.*s\"", (int)k->n, k->s);
        return buf;
    default:
        snprintf(buf, n, "'%s'", k->p);
        return buf;
    }
}

static void expect(parser *ps, const char *p, const char *what)
{
    if (!is_p(ps, p)) {
        char b[128];
        perr(ps, ps->cur.line, ps->cur.col, "expected %s, found %s", what,
             tok_text(ps, b, sizeof b));
    }
    next(ps);
}

/* ---- expressions (state formulas) ---- */

static pnode *node(parser *ps, pn_kind k, int line, int col)
{
    pnode *n = palloc(ps, sizeof *n);
    n->kind = k;
    n->line = line;
    n->col = col;
    return n;
}

static pnode *expr(parser *ps);

/* A label of the property files by name (NULL: none). */
static const plabel *find_label(const san_props *P, const char *s, size_t n)
{
    for (int i = 0; i < P->nlab; i++)
        if (strlen(P->lab[i].name) == n && !memcmp(P->lab[i].name, s, n))
            return &P->lab[i];
    return NULL;
}

/* A label's formula where it is used: a copy, for the checker writes
 * what each name resolves to into its nodes. */
static pnode *copy_tree(parser *ps, const pnode *n)
{
    if (!n)
        return NULL;
    pnode *c = node(ps, n->kind, n->line, n->col);
    *c = *n;
    c->a = copy_tree(ps, n->a);
    c->b = copy_tree(ps, n->b);
    c->c = copy_tree(ps, n->c);
    return c;
}

/* Words that start a temporal or probabilistic operator: inside a state
 * formula they are nesting, which the fragment does not have. */
static const char *nested_word(const parser *ps)
{
    static const char *const w[] = { "P", "S", "R", "E", "A", "F", "G", "X", "U", "W",
                                     "filter", "multi", "Pmin", "Pmax", "Rmin", "Rmax",
                                     NULL };
    for (int i = 0; w[i]; i++)
        if (is_id(ps, w[i]))
            return w[i];
    return NULL;
}

static pnode *primary(parser *ps)
{
    tok k = ps->cur;
    char b[128];
    if (k.kind == T_NUM) {
        pnode *n = node(ps, PN_NUM, k.line, k.col);
        n->v = k.v;
        next(ps);
        return n;
    }
    if (k.kind == T_STR) {
        const plabel *l = find_label(ps->P, k.s, k.n);
        next(ps);
        if (l)
            return copy_tree(ps, l->e);
        pnode *n = node(ps, PN_LABEL, k.line, k.col);
        n->name = pstrdup(ps, k.s, k.n);
        return n;
    }
    if (is_p(ps, "(")) {
        next(ps);
        pnode *n = expr(ps);
        expect(ps, ")", "')' closing the parenthesis");
        return n;
    }
    if (is_p(ps, "!")) {
        next(ps);
        pnode *n = node(ps, PN_NOT, k.line, k.col);
        n->a = primary(ps);
        return n;
    }
    if (is_p(ps, "-")) {
        next(ps);
        pnode *n = node(ps, PN_NEG, k.line, k.col);
        n->a = primary(ps);
        return n;
    }
    if (k.kind == T_ID) {
        const char *w = nested_word(ps);
        if (w) {
            if (!strcmp(w, "U") || !strcmp(w, "W"))
                perr(ps, k.line, k.col, "expected a state formula, found '%s'", w);
            perr(ps, k.line, k.col, "'%s' inside a state formula: nested operators, "
                 "LTL, filters and multi-objective queries are outside the CTMC fragment "
                 "(S=?, P=? [F|G|U], R=? [S|C|I|F] at the top of a property)", w);
        }
        if (is_id(ps, "true") || is_id(ps, "false")) {
            pnode *n = node(ps, PN_NUM, k.line, k.col);
            n->v = is_id(ps, "true");
            next(ps);
            return n;
        }
        pnode *n = node(ps, PN_ID, k.line, k.col);
        n->name = pstrdup(ps, k.s, k.n);
        next(ps);
        if (is_p(ps, "(") && !ps->in_bound)
            perr(ps, k.line, k.col, "function '%s' in a property: only arithmetic, "
                 "comparisons and ! & | => <=> are read", n->name);
        return n;
    }
    perr(ps, k.line, k.col, "expected a state formula (a label \"name\", a variable, a "
         "constant, true, false or '('), found %s", tok_text(ps, b, sizeof b));
}

static pnode *bin(parser *ps, int op, pnode *a, pnode *b, const tok *at)
{
    pnode *n = node(ps, PN_BIN, at->line, at->col);
    n->op = op;
    n->a = a;
    n->b = b;
    return n;
}

static pnode *mul(parser *ps)
{
    pnode *a = primary(ps);
    while (is_p(ps, "*") || is_p(ps, "/")) {
        tok k = ps->cur;
        next(ps);
        a = bin(ps, k.p[0] == '*' ? PN_MUL : PN_DIV, a, primary(ps), &k);
    }
    return a;
}

static pnode *add(parser *ps)
{
    pnode *a = mul(ps);
    while (is_p(ps, "+") || is_p(ps, "-")) {
        tok k = ps->cur;
        next(ps);
        a = bin(ps, k.p[0] == '+' ? PN_ADD : PN_SUB, a, mul(ps), &k);
    }
    return a;
}

static pnode *rel(parser *ps)
{
    pnode *a = add(ps);
    static const char *const ops[] = { "<", "<=", ">", ">=", "=", "!=", NULL };
    static const int codes[] = { PN_LT, PN_LE, PN_GT, PN_GE, PN_EQ, PN_NE };
    for (int j = 0; ops[j]; j++)
        if (is_p(ps, ops[j])) {
            tok k = ps->cur;
            next(ps);
            return bin(ps, codes[j], a, add(ps), &k);
        }
    return a;
}

static pnode *land(parser *ps)
{
    pnode *a = rel(ps);
    while (is_p(ps, "&")) {
        tok k = ps->cur;
        next(ps);
        a = bin(ps, PN_AND, a, rel(ps), &k);
    }
    return a;
}

static pnode *lor(parser *ps)
{
    pnode *a = land(ps);
    while (is_p(ps, "|")) {
        tok k = ps->cur;
        next(ps);
        a = bin(ps, PN_OR, a, land(ps), &k);
    }
    return a;
}

static pnode *implies(parser *ps)
{
    pnode *a = lor(ps);
    if (is_p(ps, "=>")) {
        tok k = ps->cur;
        next(ps);
        return bin(ps, PN_IMP, a, implies(ps), &k);     /* right-associative */
    }
    return a;
}

static pnode *iff(parser *ps)
{
    pnode *a = implies(ps);
    while (is_p(ps, "<=>")) {
        tok k = ps->cur;
        next(ps);
        a = bin(ps, PN_IFF, a, implies(ps), &k);
    }
    return a;
}

static pnode *expr(parser *ps)
{
    tok k = ps->cur;
    pnode *a = iff(ps);
    if (is_p(ps, "?")) {
        next(ps);
        pnode *n = node(ps, PN_ITE, k.line, k.col);
        n->a = a;
        n->b = expr(ps);
        expect(ps, ":", "':' of the conditional");
        n->c = expr(ps);
        return n;
    }
    return a;
}

/* ---- constants ---- */

const pconst *props_const(const san_props *p, const char *name)
{
    for (int i = p->nk - 1; i >= 0; i--)
        if (!strcmp(p->k[i].name, name))
            return &p->k[i];
    return NULL;
}

/* The value of a constant expression (constants of the file only). */
static double fold(parser *ps, const pnode *n)
{
    switch (n->kind) {
    case PN_NUM:
        return n->v;
    case PN_ID: {
        const pconst *k = props_const(ps->P, n->name);
        if (!k)
            perr(ps, n->line, n->col, "'%s' is no constant of the property file: a time "
                 "bound or a constant's value must be constant", n->name);
        if (!k->defined)
            perr(ps, n->line, n->col, "constant '%s' has no value: give it one with -D %s=...",
                 n->name, n->name);
        return k->v;
    }
    case PN_LABEL:
        perr(ps, n->line, n->col, "a label in a constant expression");
    case PN_NOT:
        return !fold(ps, n->a);
    case PN_NEG:
        return -fold(ps, n->a);
    case PN_ITE:
        return fold(ps, n->a) ? fold(ps, n->b) : fold(ps, n->c);
    case PN_BIN: {
        double a = fold(ps, n->a), b = fold(ps, n->b);
        switch (n->op) {
        case PN_ADD: return a + b;
        case PN_SUB: return a - b;
        case PN_MUL: return a * b;
        case PN_DIV: return a / b;
        case PN_LT: return a < b;
        case PN_LE: return a <= b;
        case PN_GT: return a > b;
        case PN_GE: return a >= b;
        case PN_EQ: return a == b;
        case PN_NE: return a != b;
        case PN_AND: return a != 0 && b != 0;
        case PN_OR: return a != 0 || b != 0;
        case PN_IMP: return a == 0 || b != 0;
        default: return (a != 0) == (b != 0);
        }
    }
    }
    return NAN;
}

/* A node holding the value of a constant expression (time bounds). */
static pnode *folded(parser *ps, pnode *n, const char *what)
{
    double v = fold(ps, n);
    if (!isfinite(v) || v < 0)
        perr(ps, n->line, n->col, "%s must be a finite time >= 0, not %g", what, v);
    pnode *r = node(ps, PN_NUM, n->line, n->col);
    r->v = v;
    return r;
}

static void add_const(parser *ps, const char *name, double v, int defined, int line, int col)
{
    san_props *P = ps->P;
    if (P->nk == P->capk) {
        int cap = P->capk ? 2 * P->capk : 16;
        pconst *k = palloc(ps, (size_t)cap * sizeof *k);
        if (P->nk)
            memcpy(k, P->k, (size_t)P->nk * sizeof *k);
        P->k = k;
        P->capk = cap;
    }
    pconst *k = &P->k[P->nk++];
    k->name = pstrdup(ps, name, strlen(name));
    k->v = v;
    k->defined = defined;
    k->line = line;
    k->col = col;
}

static void const_decl(parser *ps)
{
    next(ps);           /* const */
    int isint = 1;
    if (is_id(ps, "int") || is_id(ps, "double") || is_id(ps, "bool")) {
        isint = is_id(ps, "int");
        next(ps);
    }
    if (ps->cur.kind != T_ID) {
        char b[128];
        perr(ps, ps->cur.line, ps->cur.col, "expected the constant's name, found %s",
             tok_text(ps, b, sizeof b));
    }
    tok k = ps->cur;
    char *name = pstrdup(ps, k.s, k.n);
    next(ps);
    if (props_const(ps->P, name))
        perr(ps, k.line, k.col, "constant '%s' is declared twice", name);
    double v = 0;
    int defined = 0;
    for (int i = 0; i < ps->ndefs; i++)
        if (!strcmp(ps->defs[i].name, name)) {
            v = ps->defs[i].value;
            defined = 1;
        }
    if (is_p(ps, "=")) {
        next(ps);
        pnode *e = expr(ps);
        if (!defined) {
            v = fold(ps, e);
            defined = 1;
        }
    }
    if (defined && isint && v != floor(v))
        perr(ps, k.line, k.col, "constant '%s' is an int, its value %g is not whole", name, v);
    add_const(ps, name, v, defined, k.line, k.col);
}

/* label "name" = state formula; (PRISM's property files): the
 * properties after it read the formula, before any label of the model
 * of that name. */
static void label_decl(parser *ps)
{
    next(ps);           /* label */
    tok k = ps->cur;
    if (k.kind != T_STR) {
        char b[128];
        perr(ps, k.line, k.col, "expected the label's name in double quotes, found %s",
             tok_text(ps, b, sizeof b));
    }
    char *name = pstrdup(ps, k.s, k.n);
    if (!strcmp(name, "init") || !strcmp(name, "deadlock"))
        perr(ps, k.line, k.col, "label \"%s\" is built in: it cannot be declared", name);
    const plabel *old = find_label(ps->P, k.s, k.n);
    if (old)
        perr(ps, k.line, k.col, "label \"%s\" is declared twice (first at line %d)", name,
             old->line);
    next(ps);
    expect(ps, "=", "'=' after the label's name");
    pnode *e = expr(ps);
    san_props *P = ps->P;
    if (P->nlab == P->caplab) {
        int cap = P->caplab ? 2 * P->caplab : 8;
        plabel *l = palloc(ps, (size_t)cap * sizeof *l);
        if (P->nlab)
            memcpy(l, P->lab, (size_t)P->nlab * sizeof *l);
        P->lab = l;
        P->caplab = cap;
    }
    plabel *l = &P->lab[P->nlab++];
    l->name = name;
    l->e = e;
    l->line = k.line;
    l->col = k.col;
}

/* ---- properties ---- */

/* "=?" after the operator, or the refusal of a bound. */
static void query_mark(parser *ps, const char *op)
{
    if (is_p(ps, "=?")) {
        next(ps);
        return;
    }
    if (is_p(ps, "<") || is_p(ps, "<=") || is_p(ps, ">") || is_p(ps, ">="))
        perr(ps, ps->cur.line, ps->cur.col, "a bound on %s (%s%s...): only the query %s=? "
             "is supported; compare its value yourself", op, op, ps->cur.p, op);
    char b[128];
    perr(ps, ps->cur.line, ps->cur.col, "expected '=?' after %s, found %s", op,
         tok_text(ps, b, sizeof b));
}

/* An open bound's expression.  A name before '(' ends it: PRISM has
 * no functions of its own names, so QVBS's polling.props "F<=T (s=1 &
 * a=0)" is the bound T, then the formula in parentheses. */
static pnode *bound_expr(parser *ps)
{
    ps->in_bound = 1;
    pnode *n = expr(ps);
    ps->in_bound = 0;
    return n;
}

/* An optional time bound of F, G, U: <=t, <t, [a,b]. */
static void time_bound(parser *ps, pquery *q)
{
    if (is_p(ps, "<=") || is_p(ps, "<")) {
        next(ps);
        q->hi = folded(ps, bound_expr(ps), "a time bound");
    } else if (is_p(ps, "[")) {
        next(ps);
        q->lo = folded(ps, expr(ps), "a time bound");
        expect(ps, ",", "',' between the interval's bounds");
        q->hi = folded(ps, expr(ps), "a time bound");
        expect(ps, "]", "']' closing the time interval");
        if (q->hi->v < q->lo->v)
            perr(ps, q->hi->line, q->hi->col, "the interval [%g,%g] is empty", q->lo->v,
                 q->hi->v);
    } else if (is_p(ps, ">=") || is_p(ps, ">")) {
        next(ps);
        q->lo = folded(ps, bound_expr(ps), "a time bound");  /* [t, infinity) */
    }
}

static void path(parser *ps, pquery *q)
{
    if (is_id(ps, "F") || is_id(ps, "G")) {
        q->kind = is_id(ps, "F") ? PQ_P_F : PQ_P_G;
        next(ps);
        time_bound(ps, q);
        q->b = expr(ps);
        return;
    }
    if (is_id(ps, "X") || is_id(ps, "W") || is_id(ps, "R"))
        perr(ps, ps->cur.line, ps->cur.col, "'%.*s' is outside the CTMC fragment: P=? reads "
             "F, G and U", (int)ps->cur.n, ps->cur.s);
    q->kind = PQ_P_U;
    q->a = expr(ps);
    if (!is_id(ps, "U")) {
        char b[128];
        perr(ps, ps->cur.line, ps->cur.col, "expected 'U' (until) after the state formula, "
             "found %s", tok_text(ps, b, sizeof b));
    }
    next(ps);
    time_bound(ps, q);
    q->b = expr(ps);
}

static void rpath(parser *ps, pquery *q)
{
    char b[128];
    if (is_id(ps, "S")) {
        q->kind = PQ_R_S;
        next(ps);
    } else if (is_id(ps, "C")) {
        q->kind = PQ_R_C;
        next(ps);
        if (!is_p(ps, "<=")) {
            perr(ps, ps->cur.line, ps->cur.col, "expected '<=' after C (cumulative reward up "
                 "to a time), found %s", tok_text(ps, b, sizeof b));
        }
        next(ps);
        q->hi = folded(ps, expr(ps), "a time bound");
    } else if (is_id(ps, "I")) {
        q->kind = PQ_R_I;
        next(ps);
        expect(ps, "=", "'=' after I (instantaneous reward at a time)");
        q->hi = folded(ps, expr(ps), "a time");
    } else if (is_id(ps, "F")) {
        q->kind = PQ_R_F;
        next(ps);
        if (is_p(ps, "<=") || is_p(ps, "["))
            perr(ps, ps->cur.line, ps->cur.col, "a time bound on the reachability reward "
                 "R=? [F ...]: use R=? [C<=t] for the reward up to a time");
        q->b = expr(ps);
    } else {
        perr(ps, ps->cur.line, ps->cur.col, "expected S, C<=t, I=t or F after R=? [, found %s",
             tok_text(ps, b, sizeof b));
    }
}

static void query(parser *ps, pquery *q)
{
    char b[128];
    tok k = ps->cur;
    q->line = k.line;
    q->col = k.col;
    if (k.kind != T_ID || !(is_id(ps, "S") || is_id(ps, "P") || is_id(ps, "R"))) {
        if (is_id(ps, "Pmin") || is_id(ps, "Pmax") || is_id(ps, "Rmin") || is_id(ps, "Rmax") ||
            is_id(ps, "E") || is_id(ps, "A"))
            perr(ps, k.line, k.col, "'%.*s' is for nondeterministic models or CTL: the CTMC "
                 "fragment has S=?, P=? and R=?", (int)k.n, k.s);
        if (is_id(ps, "filter") || is_id(ps, "multi"))
            perr(ps, k.line, k.col, "'%.*s' queries are not supported: the CTMC fragment "
                 "has S=?, P=? and R=?", (int)k.n, k.s);
        perr(ps, k.line, k.col, "expected a property (S=? [...], P=? [...] or R=? [...]), "
             "found %s", tok_text(ps, b, sizeof b));
    }
    char op = k.s[0];
    next(ps);
    if (op == 'R' && is_p(ps, "{")) {
        next(ps);
        if (ps->cur.kind == T_STR) {
            q->reward = pstrdup(ps, ps->cur.s, ps->cur.n);
            next(ps);
        } else {
            q->reward_index = folded(ps, expr(ps), "a reward structure's number");
        }
        expect(ps, "}", "'}' closing the reward structure's name");
    }
    query_mark(ps, op == 'S' ? "S" : op == 'P' ? "P" : "R");
    expect(ps, "[", "'[' opening the formula");
    if (op == 'S') {
        q->kind = PQ_S;
        q->a = expr(ps);
    } else if (op == 'P') {
        path(ps, q);
    } else {
        rpath(ps, q);
    }
    if (is_id(ps, "U") || is_id(ps, "F") || is_id(ps, "G"))
        perr(ps, ps->cur.line, ps->cur.col, "nested temporal operators (LTL) are outside the "
             "CTMC fragment");
    expect(ps, "]", "']' closing the formula");
}

static void push_query(parser *ps, const pquery *q)
{
    san_props *P = ps->P;
    if (P->nq == P->capq) {
        int cap = P->capq ? 2 * P->capq : 16;
        pquery *r = palloc(ps, (size_t)cap * sizeof *r);
        if (P->nq)
            memcpy(r, P->q, (size_t)P->nq * sizeof *r);
        P->q = r;
        P->capq = cap;
    }
    P->q[P->nq++] = *q;
}

/* The text from offset a to b, blanks and comments squeezed. */
static char *squeeze(parser *ps, size_t a, size_t b)
{
    char *r = palloc(ps, b - a + 1);
    size_t k = 0;
    int blank = 0;
    for (size_t i = a; i < b; i++) {
        char c = ps->t[i];
        if (c == '/' && i + 1 < b && ps->t[i + 1] == '/') {
            while (i < b && ps->t[i] != '\n')
                i++;
            blank = 1;
            continue;
        }
        if (isspace((unsigned char)c)) {
            blank = 1;
            continue;
        }
        if (blank && k)
            r[k++] = ' ';
        blank = 0;
        r[k++] = c;
    }
    r[k] = 0;
    return r;
}

/* After an error: on to the next item, which starts after the next ';'
 * or new line (the token in hand when it already starts a line). */
static void recover(parser *ps, size_t start)
{
    for (;;) {
        if (setjmp(ps->fail))
            continue;               /* the lexer failed again: skip on */
        if (ps->cur.kind == T_EOF)
            return;
        if (is_p(ps, ";")) {
            next(ps);
            return;
        }
        if (ps->cur.nl && ps->cur.off > start)
            return;
        while (ps->i < ps->len && ps->t[ps->i] != '\n' && ps->t[ps->i] != ';')
            adv(ps);
        next(ps);
        if (!is_p(ps, ";"))
            ps->cur.nl = 1;
    }
}

/* One item. */
static void item(parser *ps)
{
    size_t start = ps->cur.off;
    ps->in_bound = 0;
    if (setjmp(ps->fail)) {
        ps->in_bound = 0;       /* the error may have come from a bound */
        recover(ps, start);
        return;
    }
    if (is_p(ps, ";")) {
        next(ps);
        return;
    }
    if (is_id(ps, "const")) {
        const_decl(ps);
    } else if (is_id(ps, "label")) {
        label_decl(ps);
    } else {
        pquery q;
        memset(&q, 0, sizeof q);
        size_t qstart = ps->cur.off;
        if (ps->cur.kind == T_STR) {
            tok k = ps->cur;
            next(ps);
            if (!is_p(ps, ":"))
                perr(ps, ps->cur.line, ps->cur.col, "expected ':' after the property's name "
                     "\"%.*s\"", (int)k.n, k.s);
            q.name = pstrdup(ps, k.s, k.n);
            next(ps);
            qstart = ps->cur.off;
        }
        query(ps, &q);
        q.text = squeeze(ps, qstart, ps->cur.kind == T_EOF ? ps->len : ps->cur.off);
        q.src = ps->src;
        push_query(ps, &q);
    }
    if (ps->cur.kind == T_EOF || ps->cur.nl)
        return;
    if (is_p(ps, ";")) {
        next(ps);
        return;
    }
    char b[128];
    perr(ps, ps->cur.line, ps->cur.col, "expected ';' or a new line after the property, "
         "found %s", tok_text(ps, b, sizeof b));
}

san_status san_props_parse(const char *text, size_t len, const san_define *defs, int ndefs,
                           san_props **out, san_diag *d)
{
    san_props *P = *out;
    int fresh = !P;
    if (!P) {
        P = calloc(1, sizeof *P);
        if (!P)
            return SAN_E_NOMEM;
    }
    jmp_buf oom;
    if (setjmp(oom)) {
        if (fresh)
            san_props_free(P);
        else
            *out = P;
        return SAN_E_NOMEM;
    }
    parser *ps = calloc(1, sizeof *ps);
    if (!ps)
        longjmp(oom, 1);
    /* keep the text: the diagnostics of the checks quote it */
    psource *src = props_alloc(P, (size_t)(P->nsrc + 1) * sizeof *src);
    if (!src) {
        free(ps);
        longjmp(oom, 1);
    }
    if (P->nsrc)
        memcpy(src, P->src, (size_t)P->nsrc * sizeof *src);
    src[P->nsrc].text = props_strdup(P, text, len);
    src[P->nsrc].len = len;
    src[P->nsrc].file = props_strdup(P, d->file ? d->file : "", d->file ? strlen(d->file) : 0);
    if (!src[P->nsrc].text || !src[P->nsrc].file) {
        free(ps);
        longjmp(oom, 1);
    }
    P->src = src;
    ps->src = P->nsrc++;
    ps->P = P;
    ps->t = text;
    ps->len = len;
    ps->line = ps->col = 1;
    ps->d = d;
    ps->defs = defs;
    ps->ndefs = ndefs;
    ps->oom = &oom;
    int nq0 = P->nq;
    if (setjmp(ps->fail) == 0)
        next(ps);
    else if (ps->cur.kind != T_EOF)
        next(ps);
    while (ps->cur.kind != T_EOF && ps->errors < 20)
        item(ps);
    int errors = ps->errors;
    if (!errors && P->nq == nq0)
        san_diag_add(d, SAN_ERROR, 0, 0, "no property in it (S=? [...], P=? [...], R=? [...])");
    free(ps);
    *out = P;
    return errors || P->nq == nq0 ? SAN_E_MODEL : SAN_OK;
}

void san_props_free(san_props *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->nblocks; i++)
        free(p->blocks[i]);
    free(p->blocks);
    free(p);
}

int san_props_has_const(const san_props *p, const char *name)
{
    return p && props_const(p, name) != NULL;
}

int san_props_count(const san_props *p)
{
    return p ? p->nq : 0;
}

const char *san_props_name(const san_props *p, int i)
{
    return p->q[i].name;
}

const char *san_props_text(const san_props *p, int i)
{
    return p->q[i].text;
}

const char *san_props_source(const san_props *p, int i, size_t *len, const char **file)
{
    const psource *s = &p->src[p->q[i].src];
    *len = s->len;
    *file = s->file;
    return s->text;
}
