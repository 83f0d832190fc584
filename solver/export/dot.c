/*
 * dot.c - Graphviz DOT pictures: the automata of a model (what the
 * designer wrote), and the reachable chain of a small one (what the
 * solver sees).  Both go through `dot -Tsvg`; names are quoted, so
 * replicas' brackets and '@' need no care.
 */
#include <stdlib.h>
#include <string.h>
#include "lang/ast.h"
#include "solver/space/succ.h"
#include "solver/export/export_int.h"
#include "lang/model_int.h"
#include "solver/space/space_int.h"

/* A DOT string: quotes and backslashes escaped, new lines kept as \n. */
static void dot_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', out);
        if (*s == '\n')
            fputs("\\n", out);
        else
            fputc(*s, out);
    }
    fputc('"', out);
}

/* ---- the automata ---- */

/* "(a * b)" -> "a * b": the printer parenthesizes every operation, the
 * label's own parentheses are enough around the outermost. */
static void strip_parens(char *s)
{
    size_t n = strlen(s);
    if (n < 2 || s[0] != '(' || s[n - 1] != ')')
        return;
    int depth = 0;
    for (size_t k = 0; k < n - 1; k++) {
        depth += s[k] == '(' ? 1 : s[k] == ')' ? -1 : 0;
        if (depth == 0)
            return;             /* "(a) * (b)": not one group */
    }
    memmove(s, s + 1, n - 2);
    s[n - 2] = '\0';
}

/* "f(A,B)": the automata an expression reads. */
static void deps_text(const san_model *m, const san_expr *x, FILE *out)
{
    int n;
    const int *dep = san_expr_deps(x, &n);
    fputs("f(", out);
    for (int k = 0; k < n; k++)
        fprintf(out, "%s%s", k ? "," : "", m->aut[dep[k]].name);
    fputc(')', out);
}

/* An event's rate for a label: the number, or the expression as written
 * when it reads the state (malloc'd; NULL when out of memory). */
static char *rate_text(const san_model *m, int e)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    if (san_expr_is_const(m->ev[e].rate))
        fprintf(f, "%g", san_expr_const(m->ev[e].rate));
    else
        ast_print_event_rate(m, e, f);
    if (ftell(f) == 0)          /* no text: a lumped model's rate (built, not written) */
        deps_text(m, m->ev[e].rate, f);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    strip_parens(buf);
    return buf;
}

/* A routing probability: the number, or the automata it reads. */
static void prob_text(const san_model *m, const san_expr *p, FILE *out)
{
    if (san_expr_is_const(p)) {
        fprintf(out, "%g", san_expr_const(p));
        return;
    }
    deps_text(m, p, out);
}

static void edge_label(const san_model *m, const lang_trans *t, const char *rate, FILE *out)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return;
    fprintf(f, "%s (%s)", m->ev[t->event].name, rate ? rate : "?");
    if (t->prob) {
        fputs(" p=", f);
        prob_text(m, t->prob, f);
    }
    if (fclose(f) == 0)
        dot_string(out, buf);
    free(buf);
}

static void automaton(const san_model *m, int a, char **rates, FILE *out)
{
    const lang_automaton *A = &m->aut[a];
    fprintf(out, "  subgraph \"cluster_%d\" {\n    label=", a);
    dot_string(out, A->name);
    fputs(";\n", out);
    for (int s = 0; s < A->nstates; s++) {
        fprintf(out, "    \"a%d_%d\" [label=", a, s);
        dot_string(out, A->states[s]);
        fputs("];\n", out);
    }
    for (int s = 0; s < A->nstates; s++)
        for (int k = A->first[s]; k < A->first[s + 1]; k++) {
            const lang_trans *t = &A->tr[k];
            fprintf(out, "    \"a%d_%d\" -> \"a%d_%d\" [label=", a, s, a, t->to);
            edge_label(m, t, rates[t->event], out);
            fputs(m->ev[t->event].sync ? ", style=bold, color=blue, fontcolor=blue];\n" : "];\n",
                  out);
        }
    fputs("  }\n", out);
}

san_status san_export_dot_automata(const san_model *m, FILE *out)
{
    char **rates = calloc(m->nev + 1, sizeof *rates);
    if (!rates)
        return SAN_E_NOMEM;
    for (int e = 0; e < m->nev; e++)
        rates[e] = rate_text(m, e);
    fputs("digraph ", out);
    dot_string(out, m->name ? m->name : "san");
    fputs(" {\n  rankdir=LR;\n  node [shape=circle];\n"
          "  // synchronizing events are bold and blue\n", out);
    for (int a = 0; a < m->naut; a++)
        automaton(m, a, rates, out);
    fputs("}\n", out);
    for (int e = 0; e < m->nev; e++)
        free(rates[e]);
    free(rates);
    return ferror(out) ? SAN_E_IO : SAN_OK;
}

/* ---- the reachable chain ---- */

static int by_to(const void *x, const void *y)
{
    const space_arc *a = x, *b = y;
    if (a->to != b->to)
        return (a->to > b->to) - (a->to < b->to);
    return (a->event > b->event) - (a->event < b->event);
}

/* The export number of a mixed-radix index: a binary search in the
 * sorted indices (-1: not a reachable state). */
static int64_t rank_of(const int64_t *sorted, int64_t n, int64_t idx)
{
    int64_t lo = 0, hi = n - 1;
    while (lo <= hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (sorted[mid] == idx)
            return mid;
        if (sorted[mid] < idx)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

static void state_node(const san_model *m, int64_t r, const int *s, FILE *out)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return;
    for (int a = 0; a < m->naut; a++)
        fprintf(f, "%s%s", a ? "," : "", m->aut[a].states[s[a]]);
    if (fclose(f) == 0) {
        fprintf(out, "  \"%lld\" [label=", (long long)r);
        dot_string(out, buf);
        fputs("];\n", out);
    }
    free(buf);
}

/* The arcs out of one state, merged by destination: one edge with the
 * events that lead there and their total rate. */
static void state_edges(const san_model *m, int64_t r, space_arcs *arcs, const int64_t *sorted,
                        int64_t n, int64_t self, FILE *out)
{
    qsort(arcs->v, arcs->n, sizeof *arcs->v, by_to);
    for (int k = 0; k < arcs->n;) {
        int j = k;
        double rate = 0;
        while (j < arcs->n && arcs->v[j].to == arcs->v[k].to)
            rate += arcs->v[j++].rate;
        const int64_t to = arcs->v[k].to;
        const int64_t t = to == self ? -1 : rank_of(sorted, n, to);
        if (t >= 0 && rate > 0) {
            fprintf(out, "  \"%lld\" -> \"%lld\" [label=\"", (long long)r, (long long)t);
            for (int i = k; i < j; i++)
                fprintf(out, "%s%s", i > k ? "," : "", m->ev[arcs->v[i].event].name);
            fprintf(out, "\\n%g\"];\n", rate);
        }
        k = j;
    }
}

san_status san_export_dot_space(const san_space *sp, int64_t max_states, FILE *out,
                                char *err, size_t n)
{
    const san_model *m = sp->m;
    if (max_states <= 0)
        max_states = 1000;
    if (sp->n > max_states) {
        exp_err(err, n, "%lld reachable states: over the %lld the picture of the chain "
                "is drawn for (--max-nodes)", (long long)sp->n, (long long)max_states);
        return SAN_E_LIMIT;
    }
    int64_t *order = exp_order(sp);
    int64_t *sorted = malloc((sp->n ? sp->n : 1) * sizeof *sorted);
    int *s = malloc((m->naut + 1) * sizeof *s);
    succ_ctx sc;
    int have_sc = order && sorted && s && succ_init(&sc, m) == 0;
    if (!have_sc) {
        free(order);
        free(sorted);
        free(s);
        exp_err(err, n, "out of memory");
        return SAN_E_NOMEM;
    }
    for (int64_t r = 0; r < sp->n; r++)
        sorted[r] = sp->index[order[r]];
    san_status st = SAN_OK;
    space_arcs arcs = { 0 };
    fputs("digraph ", out);
    dot_string(out, m->name ? m->name : "san");
    fputs(" {\n  node [shape=box];\n", out);
    for (int64_t r = 0; r < sp->n && st == SAN_OK; r++) {
        san_state_decode(m, sorted[r], s);
        state_node(m, r, s, out);
        arcs.n = 0;
        if (succ_enumerate(&sc, s, sorted[r], &arcs, err, n) != 0)
            st = SAN_E_MODEL;   /* cannot happen on an explored space */
        else
            state_edges(m, r, &arcs, sorted, sp->n, sorted[r], out);
    }
    fputs("}\n", out);
    succ_free(&sc);
    free(arcs.v);
    free(order);
    free(sorted);
    free(s);
    if (st == SAN_OK && ferror(out))
        st = SAN_E_IO;
    return st;
}
