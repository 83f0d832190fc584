/*
 * print.c - the model back as normalized .san text: fully parenthesized
 * expressions, one transition per line, keywords in their long forms
 * (st for @, rw for %, <= for =<).  Replication is kept as written, so
 * the text stays close to what the user wrote and reads in PEPS too.
 * Printing is a fixed point: printing a printed model gives the same text.
 * With the model's text at hand, its comments are written back at their
 * place (comments.c): before the statement or section they precede, or
 * at the end of its line.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lang/ast.h"
#include "lang/comments.h"
#include "lang/model_int.h"

static const char *const binop_text[] = {
    [OP_MUL] = "*", [OP_DIV] = "/", [OP_ADD] = "+", [OP_SUB] = "-",
    [OP_LT] = "<", [OP_LE] = "<=", [OP_GT] = ">", [OP_GE] = ">=",
    [OP_EQ] = "==", [OP_NE] = "!=", [OP_AND] = "&&", [OP_XOR] = "^",
    [OP_OR] = "||", [OP_IMP] = "->", [OP_EQV] = "<->",
};

static void print_expr(FILE *out, const ast_expr *e);

static void print_ref(FILE *out, const ast_ref *r)
{
    fputs(r->name, out);
    if (r->index) {
        fputc('[', out);
        print_expr(out, r->index);
        fputc(']', out);
    }
}

static void print_range(FILE *out, const ast_expr *e)
{
    fputs(" [", out);
    print_ref(out, &e->lo);
    fputs("..", out);
    print_ref(out, &e->hi);
    fputc(']', out);
}

static void print_expr(FILE *out, const ast_expr *e)
{
    switch (e->kind) {
    case AE_NUM:
        ast_print_num(out, e->num);
        break;
    case AE_NAME:
        print_ref(out, &e->ref);
        break;
    case AE_ST: case AE_RW:
        fputs(e->kind == AE_ST ? "st " : "rw ", out);
        print_ref(out, &e->ref);
        break;
    case AE_NB:
        fputs("nb", out);
        if (e->has_range)
            print_range(out, e);
        fputc(' ', out);
        print_ref(out, &e->ref);
        break;
    case AE_SUMRW: case AE_PRODRW:
        fputs(e->kind == AE_SUMRW ? "sum_rw" : "prod_rw", out);
        print_range(out, e);
        if (e->has_state) {
            fputc(' ', out);
            print_ref(out, &e->ref);
        }
        break;
    case AE_NEG: case AE_NOT:
        fputs(e->kind == AE_NEG ? "(-" : "(!", out);
        print_expr(out, e->a);
        fputc(')', out);
        break;
    case AE_MIN: case AE_MAX:
        fputs(e->kind == AE_MIN ? "min(" : "max(", out);
        for (int k = 0; k < e->nargs; k++) {
            if (k)
                fputs(", ", out);
            print_expr(out, e->args[k]);
        }
        fputc(')', out);
        break;
    case AE_FN:
        fprintf(out, "%s(", ast_fn_name(e->fn));
        for (int k = 0; k < e->nargs; k++) {
            if (k)
                fputs(", ", out);
            print_expr(out, e->args[k]);
        }
        fputc(')', out);
        break;
    case AE_THR:
        fputs("thr(", out);
        print_ref(out, &e->ref);
        if (e->thr_all)
            fputs("[*]", out);
        if (e->thr_at.name) {
            fputc('@', out);
            print_ref(out, &e->thr_at);
        }
        fputc(')', out);
        break;
    case AE_BIN:
        fputc('(', out);
        print_expr(out, e->a);
        fprintf(out, " %s ", binop_text[e->op]);
        print_expr(out, e->b);
        fputc(')', out);
        break;
    }
}

static void print_domain(FILE *out, const ast_domain *d)
{
    fputc('[', out);
    if (d->var)             /* aut C[i:N], syn e[k:N] (repl.c) */
        fprintf(out, "%s:", d->var);
    for (int i = 0; i < d->n; i++) {
        if (i)
            fputs(", ", out);
        print_expr(out, d->lo[i]);
        if (d->hi[i]) {
            fputs("..", out);
            print_expr(out, d->hi[i]);
        }
    }
    fputc(']', out);
}

/* The line of a section keyword, else of its first item (0: none). */
static int section_line(const lang_comments *c, int s, int first)
{
    return c && c->section[s] ? c->section[s] : first;
}

/* The end of a printed line: the trailing comments of source line. */
static void eol(FILE *out, lang_comments *c, int line)
{
    lang_comments_trailing(c, line, out);
    fputc('\n', out);
}

static void print_identifiers(FILE *out, const san_model *m, const ast_file *f, lang_comments *cm)
{
    lang_comments_before(cm, section_line(cm, LANG_SEC_IDS, f->nids ? f->ids[0].pos.line : 1),
                         "", out);
    fputs("identifiers", out);
    eol(out, cm, section_line(cm, LANG_SEC_IDS, -1));
    for (int i = 0; i < f->nids; i++) {
        const ast_ident *id = &f->ids[i];
        lang_comments_before(cm, id->pos.line, "  ", out);
        fprintf(out, "  %s = ", id->name);
        const lang_ident *c = NULL;
        for (int k = 0; k < m->nid; k++)
            if (!strcmp(m->id[k].name, id->name))
                c = &m->id[k];
        if (id->dom)
            print_domain(out, id->dom);
        else if (c && c->overridden)
            ast_print_num(out, c->value);
        else
            print_expr(out, id->expr);
        fputc(';', out);
        eol(out, cm, id->pos.line);
    }
}

static void print_events(FILE *out, const ast_file *f, lang_comments *cm)
{
    fputc('\n', out);
    lang_comments_before(cm, section_line(cm, LANG_SEC_EVENTS,
                                          f->nevents ? f->events[0].pos.line : 1), "", out);
    fputs("events", out);
    eol(out, cm, section_line(cm, LANG_SEC_EVENTS, -1));
    for (int i = 0; i < f->nevents; i++) {
        const ast_event *e = &f->events[i];
        lang_comments_before(cm, e->pos.line, "  ", out);
        fprintf(out, "  %s %s", e->sync ? "syn" : "loc", e->name);
        if (e->dom)
            print_domain(out, e->dom);
        fputs(" (", out);
        print_expr(out, e->rate);
        fputc(')', out);
        if (e->nauts) {
            fputs(" {", out);
            for (int k = 0; k < e->nauts; k++) {
                if (k)
                    fputs(", ", out);
                print_ref(out, &e->auts[k]);
            }
            fputc('}', out);
        }
        fputc(';', out);
        eol(out, cm, e->pos.line);
    }
}

static void print_to(FILE *out, const ast_to *t, lang_comments *cm)
{
    lang_comments_before(cm, t->pos.line, "      ", out);
    for (int l = 0; l < t->nlabels; l++) {
        fputs("      to(", out);
        switch (t->kind) {
        case DST_NAME: print_ref(out, &t->dst); break;
        case DST_SAME: fputc('=', out); break;
        case DST_REL:
            if (t->rel == 1 || t->rel == -1)
                fputs(t->rel > 0 ? "++" : "--", out);
            else
                fprintf(out, "%+d", t->rel);
            break;
        case DST_BY:
        case DST_AT:
            fputc(t->kind == DST_AT ? '=' : t->rel > 0 ? '+' : '-', out);
            print_expr(out, t->amount);
            break;
        }
        fputs(") ", out);
        print_ref(out, &t->labels[l].ev);
        if (t->labels[l].prob) {
            fputc('(', out);
            print_expr(out, t->labels[l].prob);
            fputc(')', out);
        }
        eol(out, l == t->nlabels - 1 ? cm : NULL, t->pos.line);
    }
}

static void print_network(FILE *out, const ast_file *f, lang_comments *cm)
{
    fputc('\n', out);
    lang_comments_before(cm, section_line(cm, LANG_SEC_NET, f->net_pos.line), "", out);
    fprintf(out, "network %s (continuous)", f->net_name ? f->net_name : "unnamed");
    eol(out, cm, f->net_pos.line);
    for (int a = 0; a < f->nauts; a++) {
        const ast_aut *A = &f->auts[a];
        lang_comments_before(cm, A->pos.line, "  ", out);
        fprintf(out, "  aut %s", A->name);
        if (A->dom)
            print_domain(out, A->dom);
        eol(out, cm, A->pos.line);
        for (int s = 0; s < A->nstates; s++) {
            const ast_state *st = &A->states[s];
            lang_comments_before(cm, st->pos.line, "    ", out);
            fprintf(out, "    %s %s", st->is_from ? "from" : "stt", st->name);
            if (st->dom)
                print_domain(out, st->dom);
            if (st->from_index) {
                fputc('[', out);
                print_expr(out, st->from_index);
                fputc(']', out);
            }
            if (st->reward) {
                fputs(" (", out);
                print_expr(out, st->reward);
                fputc(')', out);
            }
            eol(out, cm, st->pos.line);
            for (int t = 0; t < st->ntos; t++)
                print_to(out, &st->tos[t], cm);
        }
    }
}

/* A compiled event is named after its declaration: "e", "e[3]" for a
 * replicated event, "e@P[3]" for the copy of a replica. */
static size_t base_len(const char *name)
{
    return strcspn(name, "[@");
}

void ast_print_event_rate(const san_model *m, int e, FILE *out)
{
    const ast_file *f = m->syntax;
    const char *name = m->ev[e].name;
    const size_t len = base_len(name);
    for (int i = 0; f && i < f->nevents; i++)
        if (strlen(f->events[i].name) == len && !strncmp(f->events[i].name, name, len)) {
            print_expr(out, f->events[i].rate);
            return;
        }
}

static void print_all(const san_model *m, FILE *out, lang_comments *cm)
{
    const ast_file *f = m->syntax;
    print_identifiers(out, m, f, cm);
    print_events(out, f, cm);
    fputc('\n', out);
    lang_comments_before(cm, section_line(cm, LANG_SEC_REACH, f->reach_pos.line), "", out);
    fprintf(out, "%sreachability = ", f->partial ? "partial " : "");
    print_expr(out, f->reach);
    fputc(';', out);
    eol(out, cm, f->reach_pos.line);
    print_network(out, f, cm);
    fputc('\n', out);
    lang_comments_before(cm, section_line(cm, LANG_SEC_RESULTS, f->nresults ?
                                          f->results[0].pos.line : INT_MAX), "", out);
    fputs("results", out);
    eol(out, cm, section_line(cm, LANG_SEC_RESULTS, -1));
    for (int r = 0; r < f->nresults; r++) {
        lang_comments_before(cm, f->results[r].pos.line, "  ", out);
        fprintf(out, "  %s = ", f->results[r].name);
        print_expr(out, f->results[r].expr);
        fputc(';', out);
        eol(out, cm, f->results[r].pos.line);
    }
    lang_comments_before(cm, INT_MAX, "", out);     /* those after the last statement */
}

void san_model_print(const san_model *m, FILE *out)
{
    print_all(m, out, NULL);
}

san_status san_model_print_commented(const san_model *m, const char *text, size_t len, FILE *out)
{
    lang_comments cm;
    if (!lang_comments_scan(&cm, text, len)) {
        lang_comments_free(&cm);
        return SAN_E_NOMEM;
    }
    print_all(m, out, &cm);
    lang_comments_free(&cm);
    return SAN_OK;
}
