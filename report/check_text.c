/*
 * check_text.c - san check's report as text: the model's automata,
 * events and identifiers, its size, the memory estimates and what the
 * audit of the reachable states checked.
 */
#include <string.h>
#include "report/commands.h"
#include "lang/model_int.h"

static const char *rate_text(const lang_event *e, char *buf, size_t n)
{
    if (san_expr_is_const(e->rate))
        snprintf(buf, n, "%.10g", san_expr_const(e->rate));
    else
        snprintf(buf, n, "function");
    return buf;
}

static void text_memory(FILE *out, const san_estimate *e)
{
    char b1[32], b2[32];
    fputs("memory (estimates): ", out);
    if (!e->ok) {
        fprintf(out, "%s\n", e->why);
        return;
    }
    if (e->nonzeros_known)
        fprintf(out, "sparse generator ~%s (", san_format_bytes(e->sparse_bytes, b1, sizeof b1));
    else
        fputs("sparse generator not estimated (", out);
    if (e->basis == SAN_EST_DECLARED)
        fprintf(out, "%lld states accepted by the reachability function", (long long)e->states);
    else if (e->basis == SAN_EST_REACHABLE)
        fprintf(out, "%lld reachable states", (long long)e->states);
    else
        fprintf(out, "at most %lld states, the product space", (long long)e->states);
    if (e->states_at_least)
        fprintf(out, "; at least %lld reachable", (long long)e->states_at_least);
    if (e->nonzeros_known)
        fprintf(out, ", %s%.2f nonzeros per state", e->nonzeros_exact ? "" : "~",
                e->nonzeros_per_state);
    else
        fprintf(out, ": %s", e->why_nonzeros);
    fprintf(out, "), tensor descriptor ~%s\n", san_format_bytes(e->kron_bytes, b2, sizeof b2));
    if (e->over_sparse_limit)
        fputs("  more states than the sparse path can number (2^31 - 1)\n", out);
}

/* s left-aligned in w columns (printf's "%-*s", without its cost: the
 * lines of 10^6 automata and 2 10^6 events took half of checking them) */
static void put_padded(FILE *out, const char *s, int w)
{
    fputs(s, out);
    for (int n = (int)strlen(s); n < w; n++)
        fputc(' ', out);
}

/* "BASE[FIRST..LAST]" of a run of replicas, or the one name, padded. */
static void put_run(FILE *out, const char *first, const char *last, int w)
{
    char buf[160];
    put_padded(out, rep_replica_run(first, last, buf, sizeof buf), w);
}

static int same_states(const lang_automaton *A, const lang_automaton *B)
{
    if (A->nstates != B->nstates)
        return 0;
    for (int s = 0; s < A->nstates; s++)
        if (strcmp(A->states[s], B->states[s]))
            return 0;
    return 1;
}

/* Replicas with the same states are one line, P[0..999] (10^6 automata
 * listed one per line were 133 MB of text and half the time of checking
 * them; --format json still lists every automaton). */
static void text_automata(FILE *out, const san_model *m)
{
    fprintf(out, "automata: %d\n", m->naut);
    for (int a = 0; a < m->naut;) {
        const lang_automaton *A = &m->aut[a];
        int b = a;
        while (b + 1 < m->naut && rep_next_replica(m->aut[b].name, m->aut[b + 1].name) &&
               same_states(A, &m->aut[b + 1]))
            b++;
        char n[16];
        snprintf(n, sizeof n, "%4d", A->nstates);
        fputs("  ", out);
        put_run(out, A->name, m->aut[b].name, 16);
        fputc(' ', out);
        fputs(n, out);
        fputs(A->nstates == 1 ? " state :" : " states:", out);
        for (int s = 0; s < A->nstates && s < 12; s++) {
            fputc(' ', out);
            fputs(A->states[s], out);
        }
        if (A->nstates > 12)
            fprintf(out, " ... %s", A->states[A->nstates - 1]);
        fputc('\n', out);
        a = b + 1;
    }
}

/* Does event F repeat event E for the next replica: the same kind and rate,
 * a replica-indexed name, and its one automaton the next replica of E's? */
static int next_event_replica(const san_model *m, const lang_event *E, const lang_event *F)
{
    return E->sync == F->sync && E->rate == F->rate && E->nparts == 1 && F->nparts == 1 &&
           rep_next_replica(E->name, F->name) &&
           rep_next_replica(m->aut[E->parts[0]].name, m->aut[F->parts[0]].name);
}

static void text_events(FILE *out, const san_model *m)
{
    int nloc = 0;
    for (int e = 0; e < m->nev; e++)
        nloc += !m->ev[e].sync;
    fprintf(out, "events: %d (%d local, %d synchronizing)\n", m->nev, nloc, m->nev - nloc);
    char buf[64];
    for (int e = 0; e < m->nev;) {
        const lang_event *E = &m->ev[e];
        int f = e;
        while (f + 1 < m->nev && next_event_replica(m, &m->ev[f], &m->ev[f + 1]))
            f++;
        rate_text(E, buf, sizeof buf);
        fputs("  ", out);
        put_run(out, E->name, m->ev[f].name, 16);
        fputs(E->sync ? " syn rate " : " loc rate ", out);
        put_padded(out, buf, 10);
        if (f > e) {
            fputc(' ', out);
            put_run(out, m->aut[E->parts[0]].name, m->aut[m->ev[f].parts[0]].name, 0);
        }
        for (int k = 0; f == e && k < E->nparts && k < 8; k++) {
            fputc(' ', out);
            fputs(m->aut[E->parts[k]].name, out);
        }
        if (f == e && E->nparts > 8)
            fprintf(out, " ... (%d automata)", E->nparts);
        fputc('\n', out);
        e = f + 1;
    }
}

/* What the audit checked, and what it could not without every state.
 * The audit reads the model as written; when the solve lumps it, "a
 * sample of 200000" stood beside "1016 reachable states" of the lumped
 * chain with nothing to tell them apart. */
static void text_audit(FILE *out, const san_audit *r, int lumped)
{
    const char *of = lumped ? " of the model as written (not lumped)" : "";
    if (r->complete) {
        fprintf(out, "reachable states%s: %lld, each checked (rates, routing, exit rates)\n", of,
                (long long)r->states);
        return;
    }
    if (r->explored)
        fprintf(out, "reachable states%s: a sample of %lld checked (rates, routing, exit rates): "
                "%s\n", of, (long long)r->states, r->why);
    else
        fprintf(out, "reachable states: not checked: %s\n", r->why);
    fputs("  not checked without them all: absorbing states, events that never fire, "
          "automata\n  that never move (the text's constant routing and states without "
          "exits instead)\n", out);
}

static void text_identifiers(FILE *out, const san_model *m)
{
    fputs("identifiers:", out);
    int any = 0;
    for (int i = 0; i < m->nid; i++) {
        const lang_ident *id = &m->id[i];
        fprintf(out, "%s %s", any++ ? "," : "", id->name);
        if (id->is_domain)
            fputs(" (domain)", out);
        else if (id->is_function)
            fputs(" (function)", out);
        else
            fprintf(out, " = %.10g", id->value);
    }
    fprintf(out, "%s\n", any ? "" : " none");
}

void rep_check_text(FILE *out, const san_model *m, const san_diag *d, const rep_check *r)
{
    const san_lumping *L = r->o->lumping;
    if (r->o->preamble)
        r->o->preamble(out, SAN_REPORT_TEXT, r->o->ctx);
    fprintf(out, "network %s\n", m->name);
    text_automata(out, m);
    text_events(out, m);
    text_identifiers(out, m);
    fprintf(out, "reachability: %s%s\n", m->partial ? "partial, " : "",
            san_expr_is_const(m->reach) ? "constant" : "function");
    fprintf(out, "results: %d\n", m->nres);
    fprintf(out, "product states: %s\n", m->product_str);
    if (L)
        fprintf(out, "lumped: %s; product of the lumped model %s states (the estimates below "
                "are its)\n", san_lumping_summary(L), san_lumping_model(L)->product_str);
    text_memory(out, r->mem);
    text_audit(out, r->audit, L != NULL);
    fprintf(out, "diagnostics: %d error%s, %d warning%s\n", d->nerrors,
            d->nerrors == 1 ? "" : "s", d->nwarnings, d->nwarnings == 1 ? "" : "s");
}
