/*
 * compat.c - the compatibility lint of `san check --peps`: a warning for
 * every construct that PEPS 2003 or GTAexpress read differently from san
 * or reject, with the peer named, the position and the rewrite.  Each
 * case was measured with the peers (doc/compat.md); the dialect printer
 * (dialect.c) performs the rewrites the warnings name.  On by default in
 * its brief form (one warning per construct); --peps lists every one.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "lang/ast.h"
#include "lang/peers.h"
#include "lang/model_int.h"

/* The brief lint (on by default) gives one warning per construct, the
 * first, with how many more there are: a generated model wraps every
 * min/max function alike, and fifty warnings would hide the one that
 * matters.  A construct is the format of its message. */
#define MAX_KINDS 32

typedef struct {
    const san_model *m;
    const ast_file *f;
    san_diag *d;
    int n;                  /* warnings given */
    int brief;              /* one per construct */
    int counting;           /* brief, first pass: count only */
    const char *kind[MAX_KINDS];
    int count[MAX_KINDS];   /* occurrences (first pass) */
    int given[MAX_KINDS];   /* warned (second pass) */
    int nkinds;
    int in_used_function;   /* walking a function another function reads */
} lint;

#define BOTH "PEPS 2003 and GTAexpress"

static void warn(lint *L, ast_pos p, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int kind_of(lint *L, const char *fmt)
{
    for (int k = 0; k < L->nkinds; k++)
        if (L->kind[k] == fmt)
            return k;
    if (L->nkinds == MAX_KINDS)
        return -1;
    L->kind[L->nkinds] = fmt;
    return L->nkinds++;
}

static void warn(lint *L, ast_pos p, const char *fmt, ...)
{
    int k = L->brief ? kind_of(L, fmt) : -1;
    if (L->counting) {
        if (k >= 0)
            L->count[k]++;
        return;
    }
    if (k >= 0 && L->given[k]++)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (k >= 0 && L->count[k] > 1)
        san_diag_add(L->d, SAN_WARNING, p.line, p.col, "%s (and %d more like it; --peps lists "
                     "them)", msg, L->count[k] - 1);
    else
        san_diag_add(L->d, SAN_WARNING, p.line, p.col, "%s", msg);
    L->n++;
}

static int is_ident(const lint *L, const ast_expr *e)
{
    return e->kind == AE_NAME && !e->ref.index && peers_find_id(L->m, e->ref.name);
}

/* Inside expressions: the name lookups and the operators they misread. */
static void walk(lint *L, const ast_expr *e)
{
    if (!e)
        return;
    if ((e->kind == AE_NB || e->kind == AE_SUMRW || e->kind == AE_PRODRW) &&
        (e->kind == AE_NB || e->has_state) && !peers_agree(L->m, e))
        warn(L, e->ref.pos, BOTH " look state '%s' up in the first automaton that declares it "
             "and count another state here; --dialect peps2003 writes explicit comparisons",
             e->ref.name);
    if (e->kind == AE_THR)
        warn(L, e->pos, BOTH " have no throughputs in expressions (thr(%s)); --dialect "
             "peps2003 refuses the model: write the expectation of rate x enabling", e->ref.name);
    if (e->kind == AE_FN)
        warn(L, e->pos, BOTH " have no %s(...); --dialect peps2003 refuses the model",
             ast_fn_name(e->fn));
    if (e->kind == AE_NB && !e->has_range && L->in_used_function)
        warn(L, e->pos, BOTH " misread nb without an automaton range (nb %s) in a function "
             "that another function uses; --dialect peps2003 writes the range", e->ref.name);
    walk(L, e->a);
    walk(L, e->b);
    walk(L, e->ref.index);
    for (int k = 0; k < e->nargs; k++)
        walk(L, e->args[k]);
}

/* A whole expression: the top-level min/max they reject, then inside. */
static void top(lint *L, const ast_expr *e)
{
    if (!e)
        return;
    if (e->kind == AE_MIN || e->kind == AE_MAX)
        warn(L, e->pos, BOTH " reject a whole expression written as %s(...); "
             "--dialect peps2003 writes 0 + %s(...)", e->kind == AE_MIN ? "min" : "max",
             e->kind == AE_MIN ? "min" : "max");
    walk(L, e);
}

static void events(lint *L)
{
    for (int i = 0; i < L->f->nevents; i++) {
        const ast_event *e = &L->f->events[i];
        if (e->rate->kind != AE_NUM && !is_ident(L, e->rate))
            warn(L, e->rate->pos, BOTH " take only an identifier or a number as the rate of "
                 "event '%s' (syntax error); --dialect peps2003 introduces one", e->name);
        if (e->nauts)
            warn(L, e->auts[0].pos, BOTH " reject the automaton list of event '%s' in braces "
                 "(syntax error); --dialect peps2003 leaves it out", e->name);
        if (e->dom && e->dom->var)
            warn(L, e->dom->var_pos, BOTH " have no index variable in an event declaration "
                 "(%s[%s:...], a rate per index); --dialect peps2003 refuses it: declare "
                 "separate events", e->name, e->dom->var);
        long len = e->sync && !e->dom ? peers_text_len(L->m, e->rate) : 0;
        if (len >= PEERS_SYNC_RATE_MAX)
            warn(L, e->rate->pos, "PEPS 2003 crashes on the rate of synchronized event '%s' "
                 "(about %ld bytes once its functions are expanded in place; it copies them "
                 "into 128); --dialect peps2003 writes one event per combination of the states "
                 "it reads", e->name, len);
        top(L, e->rate);
    }
}

/* Has the automaton declared as name (or its first replica) one state? */
static int one_state(const lint *L, const char *name)
{
    size_t n = strlen(name);
    for (int a = 0; a < L->m->naut; a++) {
        const char *an = L->m->aut[a].name;
        if (!strncmp(an, name, n) && (an[n] == 0 || an[n] == '['))
            return L->m->aut[a].nstates == 1;
    }
    return 0;
}

static void network(lint *L)
{
    if (L->m->naut == 1)
        warn(L, L->f->auts[0].pos, BOTH " fail on a model of one automaton ('%s'); "
             "--dialect peps2003 adds a constant one", L->f->auts[0].name);
    for (int g = 0; g < L->f->nauts; g++) {
        const ast_aut *A = &L->f->auts[g];
        if (one_state(L, A->name))
            warn(L, A->pos, BOTH " fail on an automaton of one state ('%s'); "
                 "--dialect peps2003 adds an unreachable state", A->name);
        if (A->dom && A->dom->var)
            warn(L, A->dom->var_pos, BOTH " give every replica of '%s' the same transitions "
                 "(no index variable, no e[%s]); --dialect peps2003 writes one automaton "
                 "%s_v per replica", A->name, A->dom->var, A->name);
        for (int s = 0; s < A->nstates; s++) {
            const ast_state *st = &A->states[s];
            top(L, st->reward);
            for (int t = 0; t < st->ntos; t++)
                for (int l = 0; l < st->tos[t].nlabels; l++) {
                    const ast_expr *p = st->tos[t].labels[l].prob;
                    const ast_ref *ev = &st->tos[t].labels[l].ev;
                    if (ev->index && ev->index->kind != AE_NUM && !(A->dom && A->dom->var))
                        warn(L, ev->index->pos, BOTH " take only an integer as the index of "
                             "event '%s' on a transition; --dialect peps2003 writes the "
                             "index's value (one transition per index of a domain)", ev->name);
                    if (p && p->kind != AE_NUM && !is_ident(L, p))
                        warn(L, p->pos, BOTH " take only an identifier as the routing "
                             "probability of '%s'; --dialect peps2003 introduces one",
                             st->tos[t].labels[l].ev.name);
                    top(L, p);
                }
        }
    }
}

/* Comments: the peers' // comment allows neither a quote nor a backtick
 * nor a byte outside ASCII (a lexical error that names no line), and they
 * have no block comment. */
static void comments(lint *L, const char *text, size_t len)
{
    int line = 1;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\n') {
            line++;
            continue;
        }
        if (text[i] != '/' || i + 1 >= len || (text[i + 1] != '/' && text[i + 1] != '*'))
            continue;
        int col0 = 1;
        for (size_t k = i; k > 0 && text[k - 1] != '\n'; k--)
            col0++;
        if (text[i + 1] == '*') {
            ast_pos p = { line, col0 };
            warn(L, p, BOTH " have no /* */ comment (syntax error); "
                 "--dialect peps2003 writes no comments");
            for (i += 2; i + 1 < len && !(text[i] == '*' && text[i + 1] == '/'); i++)
                line += text[i] == '\n';
            i++;
            continue;
        }
        size_t j = i;
        int col = col0;
        for (; j < len && text[j] != '\n'; j++) {
            unsigned char c = (unsigned char)text[j];
            if (c == '\'' || c == '`' || c >= 0x80) {
                ast_pos p = { line, col + (int)(j - i) };
                warn(L, p, BOTH " reject this character in a comment (%s); "
                     "--dialect peps2003 writes no comments",
                     c >= 0x80 ? "not ASCII" : c == '\'' ? "a quote" : "a backtick");
                break;
            }
        }
        i = j - 1;
    }
}

static void lint_all(lint *L, const char *text, size_t len);

static int reads_name(const ast_expr *e, const char *name)
{
    if (!e)
        return 0;
    if (e->kind == AE_NAME && !e->ref.index && !strcmp(e->ref.name, name))
        return 1;
    for (int k = 0; k < e->nargs; k++)
        if (reads_name(e->args[k], name))
            return 1;
    return reads_name(e->a, name) || reads_name(e->b, name) || reads_name(e->ref.index, name);
}

static int has_plain_nb(const ast_expr *e)
{
    if (!e)
        return 0;
    if (e->kind == AE_NB && !e->has_range)
        return 1;
    for (int k = 0; k < e->nargs; k++)
        if (has_plain_nb(e->args[k]))
            return 1;
    return has_plain_nb(e->a) || has_plain_nb(e->b);
}

/* Does another function read identifier i: another identifier, or an
 * event rate that is an expression (a function once --dialect peps2003
 * names it)?  The peers misread an nb without a range there (measured,
 * doc/compat.md); in a function an event names directly they do not
 * (measured: rs.san as PEPS ships it, 3.6e-16 and 2.1e-14). */
static int used_by_function(const lint *L, int i)
{
    const char *name = L->f->ids[i].name;
    for (int k = 0; k < L->f->nids; k++)
        if (k != i && reads_name(L->f->ids[k].expr, name))
            return 1;
    for (int k = 0; k < L->f->nevents; k++) {
        const ast_expr *r = L->f->events[k].rate;
        if (r->kind != AE_NAME && reads_name(r, name))
            return 1;
    }
    return 0;
}

int san_model_lint_peers(const san_model *m, const char *text, size_t len, san_diag *d)
{
    lint L = { .m = m, .f = m->syntax, .d = d };
    lint_all(&L, text, len);
    return L.n;
}

int san_model_lint_peers_brief(const san_model *m, const char *text, size_t len, san_diag *d)
{
    lint L = { .m = m, .f = m->syntax, .d = d, .brief = 1, .counting = 1 };
    lint_all(&L, text, len);
    L.counting = 0;
    lint_all(&L, text, len);
    return L.n;
}

static void lint_all(lint *L, const char *text, size_t len)
{
    if (L->f->discrete)
        warn(L, L->f->net_pos, "PEPS 2003 solves continuous-time models only (network %s)",
             L->f->net_name ? L->f->net_name : "");
    if (text)
        comments(L, text, len);
    for (int i = 0; i < L->f->nids; i++) {
        /* (a scan of every identifier: only for those it matters to) */
        L->in_used_function = has_plain_nb(L->f->ids[i].expr) && used_by_function(L, i);
        top(L, L->f->ids[i].expr);
        L->in_used_function = 0;
    }
    events(L);
    top(L, L->f->reach);
    network(L);
    for (int r = 0; r < L->f->nresults; r++) {
        const ast_expr *e = L->f->results[r].expr;
        long tlen = peers_text_len(L->m, e);
        top(L, e);
        /* the rows after a result's give it room (dialect.c) */
        if (tlen + 5 > 128L * (L->f->nresults - r))
            warn(L, e->pos, "GTAexpress aborts on result '%s' (about %ld bytes once its "
                 "functions are expanded in place, past its dictionary's rows of 128); "
                 "--dialect peps2003 adds constant results after it", L->f->results[r].name, tlen);
    }
}
