/*
 * print.c - the model back as normalized .san text: fully parenthesized
 * expressions, one transition per line, keywords in their long forms
 * (st for @, rw for %, <= for =<).  Replication is kept as written, so
 * the text stays close to what the user wrote and reads in PEPS too.
 * Printing is a fixed point: printing a printed model gives the same text.
 */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ast.h"

static const char *const binop_text[] = {
    [OP_MUL] = "*", [OP_DIV] = "/", [OP_ADD] = "+", [OP_SUB] = "-",
    [OP_LT] = "<", [OP_LE] = "<=", [OP_GT] = ">", [OP_GE] = ">=",
    [OP_EQ] = "==", [OP_NE] = "!=", [OP_AND] = "&&", [OP_XOR] = "^",
    [OP_OR] = "||", [OP_IMP] = "->", [OP_EQV] = "<->",
};

static void print_expr(FILE *out, const ast_expr *e);

static void print_num(FILE *out, double v)
{
    if (v < 0) {        /* the grammar has no negative literals */
        fputs("(-", out);
        print_num(out, -v);
        fputc(')', out);
        return;
    }
    /* shortest text that reads back as the same double */
    char buf[40];
    if (v == floor(v) && v < 1e15) {
        fprintf(out, "%.0f", v);
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    fputs(buf, out);
}

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
        print_num(out, e->num);
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

static void print_identifiers(FILE *out, const san_model *m, const ast_file *f)
{
    fputs("identifiers\n", out);
    for (int i = 0; i < f->nids; i++) {
        const ast_ident *id = &f->ids[i];
        fprintf(out, "  %s = ", id->name);
        const san_ident *c = NULL;
        for (int k = 0; k < m->nid; k++)
            if (!strcmp(m->id[k].name, id->name))
                c = &m->id[k];
        if (id->dom)
            print_domain(out, id->dom);
        else if (c && c->overridden)
            print_num(out, c->value);
        else
            print_expr(out, id->expr);
        fputs(";\n", out);
    }
}

static void print_events(FILE *out, const ast_file *f)
{
    fputs("\nevents\n", out);
    for (int i = 0; i < f->nevents; i++) {
        const ast_event *e = &f->events[i];
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
        fputs(";\n", out);
    }
}

static void print_to(FILE *out, const ast_to *t)
{
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
        }
        fputs(") ", out);
        print_ref(out, &t->labels[l].ev);
        if (t->labels[l].prob) {
            fputc('(', out);
            print_expr(out, t->labels[l].prob);
            fputc(')', out);
        }
        fputc('\n', out);
    }
}

static void print_network(FILE *out, const ast_file *f)
{
    fprintf(out, "\nnetwork %s (continuous)\n", f->net_name ? f->net_name : "unnamed");
    for (int a = 0; a < f->nauts; a++) {
        const ast_aut *A = &f->auts[a];
        fprintf(out, "  aut %s", A->name);
        if (A->dom)
            print_domain(out, A->dom);
        fputc('\n', out);
        for (int s = 0; s < A->nstates; s++) {
            const ast_state *st = &A->states[s];
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
            fputc('\n', out);
            for (int t = 0; t < st->ntos; t++)
                print_to(out, &st->tos[t]);
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

void san_model_print(const san_model *m, FILE *out)
{
    const ast_file *f = m->syntax;
    print_identifiers(out, m, f);
    print_events(out, f);
    fprintf(out, "\n%sreachability = ", f->partial ? "partial " : "");
    print_expr(out, f->reach);
    fputs(";\n", out);
    print_network(out, f);
    fputs("\nresults\n", out);
    for (int r = 0; r < f->nresults; r++) {
        fprintf(out, "  %s = ", f->results[r].name);
        print_expr(out, f->results[r].expr);
        fputs(";\n", out);
    }
}
