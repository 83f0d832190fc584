/*
 * cmd_check.c - `san check MODEL`: validate and summarize.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/options.h"

typedef struct {
    cli_format fmt;
    cli_defines defs;
    cli_diag diag;
    double max_input;
    san_audit_opts audit;
    san_lump lump;
} check_args;

/* --explore auto|always|never */
static int opt_explore(const cli_parser *p, const cli_option *o, const char *arg, void *dest)
{
    static const char *const names[] = { "auto", "always", "never" };
    (void)o;
    for (int k = 0; k < 3; k++)
        if (!strcmp(arg, names[k])) {
            *(san_explore_mode *)dest = (san_explore_mode)k;
            return 0;
        }
    return cli_usage_error(p->cmd, "--explore: expected auto, always or never, not '%s'", arg);
}

/* --lump auto|off */
static int opt_lump(const cli_parser *p, const cli_option *o, const char *arg, void *dest)
{
    (void)o;
    if (strcmp(arg, "auto") && strcmp(arg, "off"))
        return cli_usage_error(p->cmd, "--lump: expected auto or off, not '%s'", arg);
    *(san_lump *)dest = strcmp(arg, "off") ? SAN_LUMP_AUTO : SAN_LUMP_OFF;
    return 0;
}

static const cli_option check_options[] = {
    CLI_GROUP("options:"),
    CLI_CALLBACK(0, "lump", "WHEN", check_args, lump, opt_lump,
                 "auto (default): the memory estimates are those of\n"
                 "the lumped model the solve uses when replicas are\n"
                 "interchangeable (its size is shown); off: as written"),
    CLI_FORMAT(check_args, fmt, CLI_FMT_TEXT | CLI_FMT_JSON, NULL),
    CLI_CALLBACK('D', NULL, "NAME=VALUE", check_args, defs, cli_opt_define,
                 "override a constant identifier of the model"),
    CLI_MAX_INPUT(check_args, max_input),
    CLI_GROUP("reachable states:"),
    CLI_CALLBACK(0, "explore", "WHEN", check_args, audit.explore, opt_explore,
                 "check rates and routing in the reachable states:\n"
                 "auto (default: up to --max-states of them,\n"
                 "else the first ones, said so), always (all,\n"
                 "within --max-memory) or never (the text alone)"),
    CLI_INT(0, "max-states", "N", check_args, audit.max_states, 1, 2147483646,
            "a positive integer", "--explore auto: explore at most N states\n"
            "(default 200000, fewer for many automata)", NULL),
    CLI_BYTES(0, "max-memory", "M", check_args, audit.max_memory,
              "memory the exploration may take (default 80%\n"
              "of physical memory)", NULL),
    CLI_INCLUDE(cli_diag_options, check_args, diag),
    CLI_END
};

static const cli_spec check_spec = {
    .name = "check",
    .usage = "usage: san check [options] MODEL\n",
    .intro =
        "Parse and check a .san model; print its automata, events, functions,\n"
        "the size of its product state space, estimates of the memory the\n"
        "sparse generator and the tensor descriptor would take (from a sample\n"
        "of states, not from the whole state space), and every diagnostic.\n"
        "Then it runs the checks of the solve on the reachable states, as the\n"
        "solve explores them: every enabled event's rate (negative, infinite,\n"
        "not a number), its routing probabilities (in [0, 1], summing to 1)\n"
        "and the exit rates, each problem once with its place and the first\n"
        "state where it occurs; and it warns about local states no reachable\n"
        "state leaves, events that never fire, automata that never move.\n"
        "Past the cap it checks the first states only, and says so.\n",
    .opts = check_options,
    .outro =
        "MODEL may be - for standard input.  Exit status: 0 valid (warnings\n"
        "allowed), 2 errors in the model or bad usage, 1 other failures.\n",
    .flags = CLI_ABBREV | CLI_OPERAND_FILES,
};

void help_check(FILE *out)
{
    cli_help(out, &check_spec);
}

static const char *rate_text(const san_event *e, char *buf, size_t n)
{
    if (san_expr_is_const(e->rate))
        snprintf(buf, n, "%.10g", san_expr_const(e->rate));
    else
        snprintf(buf, n, "function");
    return buf;
}

static void text_memory(const san_estimate *e)
{
    char b1[32], b2[32];
    printf("memory (estimates): ");
    if (!e->ok) {
        printf("%s\n", e->why);
        return;
    }
    if (e->nonzeros_known)
        printf("sparse generator ~%s (", san_format_bytes(e->sparse_bytes, b1, sizeof b1));
    else
        printf("sparse generator not estimated (");
    if (e->basis == SAN_EST_DECLARED)
        printf("%lld states accepted by the reachability function", (long long)e->states);
    else if (e->basis == SAN_EST_REACHABLE)
        printf("%lld reachable states", (long long)e->states);
    else
        printf("at most %lld states, the product space", (long long)e->states);
    if (e->states_at_least)
        printf("; at least %lld reachable", (long long)e->states_at_least);
    if (e->nonzeros_known)
        printf(", %s%.2f nonzeros per state", e->nonzeros_exact ? "" : "~", e->nonzeros_per_state);
    else
        printf(": %s", e->why_nonzeros);
    printf("), tensor descriptor ~%s\n", san_format_bytes(e->kron_bytes, b2, sizeof b2));
    if (e->over_sparse_limit)
        printf("  more states than the sparse path can number (2^31 - 1)\n");
}

static void json_memory(const san_estimate *e)
{
    printf(",\n  \"memory\": {");
    if (!e->ok) {
        printf("\"error\": ");
        san_json_string(stdout, e->why);
        printf("}");
        return;
    }
    printf("\n    \"states\": %lld, \"states_basis\": \"%s\",", (long long)e->states,
           san_estimate_basis_name(e->basis));
    if (e->states_at_least)
        printf(" \"states_at_least\": %lld,", (long long)e->states_at_least);
    if (e->nonzeros_known)
        printf("\n    \"nonzeros_per_state\": %.17g, \"nonzeros_exact\": %s, \"sampled_states\": %lld,"
               "\n    \"nonzeros\": %.0f, \"sparse_bytes\": %.0f,", e->nonzeros_per_state,
               e->nonzeros_exact ? "true" : "false", (long long)e->sampled, e->nonzeros,
               e->sparse_bytes);
    else
        printf("\n    \"nonzeros_per_state\": null, \"nonzeros_exact\": false, \"sampled_states\": 0,"
               "\n    \"nonzeros\": null, \"sparse_bytes\": null,");
    printf("\n    \"kron_bytes\": %.0f, \"sparse_over_limit\": %s\n  }", e->kron_bytes,
           e->over_sparse_limit ? "true" : "false");
}

/* s left-aligned in w columns (printf's "%-*s", without its cost: the
 * lines of 10^6 automata and 2 10^6 events took half of checking them) */
static void put_padded(const char *s, int w)
{
    fputs(s, stdout);
    for (int n = (int)strlen(s); n < w; n++)
        putchar(' ');
}

/* "BASE[FIRST..LAST]" of a run of replicas, or the one name, padded. */
static void put_run(const char *first, const char *last, int w)
{
    char buf[160];
    put_padded(cli_replica_run(first, last, buf, sizeof buf), w);
}

static int same_states(const san_automaton *A, const san_automaton *B)
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
static void text_automata(const san_model *m)
{
    printf("automata: %d\n", m->naut);
    for (int a = 0; a < m->naut;) {
        const san_automaton *A = &m->aut[a];
        int b = a;
        while (b + 1 < m->naut && cli_next_replica(m->aut[b].name, m->aut[b + 1].name) &&
               same_states(A, &m->aut[b + 1]))
            b++;
        char n[16];
        snprintf(n, sizeof n, "%4d", A->nstates);
        fputs("  ", stdout);
        put_run(A->name, m->aut[b].name, 16);
        putchar(' ');
        fputs(n, stdout);
        fputs(A->nstates == 1 ? " state :" : " states:", stdout);
        for (int s = 0; s < A->nstates && s < 12; s++) {
            putchar(' ');
            fputs(A->states[s], stdout);
        }
        if (A->nstates > 12)
            printf(" ... %s", A->states[A->nstates - 1]);
        putchar('\n');
        a = b + 1;
    }
}

/* Does event F repeat event E for the next replica: the same kind and rate,
 * a replica-indexed name, and its one automaton the next replica of E's? */
static int next_event_replica(const san_model *m, const san_event *E, const san_event *F)
{
    return E->sync == F->sync && E->rate == F->rate && E->nparts == 1 && F->nparts == 1 &&
           cli_next_replica(E->name, F->name) &&
           cli_next_replica(m->aut[E->parts[0]].name, m->aut[F->parts[0]].name);
}

static void text_events(const san_model *m)
{
    int nloc = 0;
    for (int e = 0; e < m->nev; e++)
        nloc += !m->ev[e].sync;
    printf("events: %d (%d local, %d synchronizing)\n", m->nev, nloc, m->nev - nloc);
    char buf[64];
    for (int e = 0; e < m->nev;) {
        const san_event *E = &m->ev[e];
        int f = e;
        while (f + 1 < m->nev && next_event_replica(m, &m->ev[f], &m->ev[f + 1]))
            f++;
        rate_text(E, buf, sizeof buf);
        fputs("  ", stdout);
        put_run(E->name, m->ev[f].name, 16);
        fputs(E->sync ? " syn rate " : " loc rate ", stdout);
        put_padded(buf, 10);
        if (f > e) {
            putchar(' ');
            put_run(m->aut[E->parts[0]].name, m->aut[m->ev[f].parts[0]].name, 0);
        }
        for (int k = 0; f == e && k < E->nparts && k < 8; k++) {
            putchar(' ');
            fputs(m->aut[E->parts[k]].name, stdout);
        }
        if (f == e && E->nparts > 8)
            printf(" ... (%d automata)", E->nparts);
        putchar('\n');
        e = f + 1;
    }
}

/* What the audit checked, and what it could not without every state.
 * The audit reads the model as written; when the solve lumps it, "a
 * sample of 200000" stood beside "1016 reachable states" of the lumped
 * chain with nothing to tell them apart. */
static void text_audit(const san_audit *r, int lumped)
{
    const char *of = lumped ? " of the model as written (not lumped)" : "";
    if (r->complete) {
        printf("reachable states%s: %lld, each checked (rates, routing, exit rates)\n", of,
               (long long)r->states);
        return;
    }
    if (r->explored)
        printf("reachable states%s: a sample of %lld checked (rates, routing, exit rates): "
               "%s\n", of, (long long)r->states, r->why);
    else
        printf("reachable states: not checked: %s\n", r->why);
    printf("  not checked without them all: absorbing states, events that never fire, "
           "automata\n  that never move (the text's constant routing and states without "
           "exits instead)\n");
}

static void json_audit(const san_audit *r)
{
    printf(",\n  \"reachable\": {\"explored\": %s, \"complete\": %s, \"states_checked\": %lld",
           r->explored ? "true" : "false", r->complete ? "true" : "false",
           (long long)r->states);
    if (!r->complete) {
        printf(", \"why\": ");
        san_json_string(stdout, r->why);
    }
    printf("}");
}

static void text_summary(const san_model *m, const san_lumping *L, const san_diag *d,
                         const san_estimate *mem, const san_audit *audit)
{
    cli_meta_text(stdout);
    printf("network %s\n", m->name);
    text_automata(m);
    text_events(m);
    printf("identifiers:");
    int any = 0;
    for (int i = 0; i < m->nid; i++) {
        const san_ident *id = &m->id[i];
        printf("%s %s", any++ ? "," : "", id->name);
        if (id->is_domain)
            printf(" (domain)");
        else if (id->is_function)
            printf(" (function)");
        else
            printf(" = %.10g", id->value);
    }
    printf("%s\n", any ? "" : " none");
    printf("reachability: %s%s\n", m->partial ? "partial, " : "",
           san_expr_is_const(m->reach) ? "constant" : "function");
    printf("results: %d\n", m->nres);
    printf("product states: %s\n", m->product_str);
    if (L)
        printf("lumped: %s; product of the lumped model %s states (the estimates below "
               "are its)\n", san_lumping_summary(L), san_lumping_model(L)->product_str);
    text_memory(mem);
    text_audit(audit, L != NULL);
    printf("diagnostics: %d error%s, %d warning%s\n", d->nerrors, d->nerrors == 1 ? "" : "s",
           d->nwarnings, d->nwarnings == 1 ? "" : "s");
}

static void json_diags(const san_diag *d, san_severity sev)
{
    int first = 1;
    for (int i = 0; i < d->n; i++) {
        const san_diag_item *it = &d->items[i];
        if (it->sev != sev)
            continue;
        printf("%s\n    {\"line\": %d, \"col\": %d, \"message\": ", first ? "" : ",", it->line, it->col);
        san_json_string(stdout, it->msg);
        printf("}");
        first = 0;
    }
    printf("%s]", first ? "" : "\n  ");
}

static void json_summary(const san_model *m, const san_lumping *L, const san_diag *d,
                         const san_estimate *mem, const san_audit *audit)
{
    printf("{\n  ");
    cli_meta_json(stdout, NULL);
    printf("\"model\": ");
    san_json_string(stdout, m ? m->name : "");
    printf(",\n  \"file\": ");
    san_json_string(stdout, d->file);
    printf(",\n  \"valid\": %s", m && !d->nerrors ? "true" : "false");
    if (m) {
        printf(",\n  \"product_states\": ");
        san_json_size(stdout, m->product_str);
        printf(",\n  \"product_states_log10\": %.6f", m->product_log10);
        if (L) {
            printf(",\n  \"lumped\": {\"classes\": ");
            san_json_string(stdout, san_lumping_summary(L));
            printf(", \"product_states\": ");
            san_json_size(stdout, san_lumping_model(L)->product_str);
            printf("}");
        }
        json_memory(mem);
        json_audit(audit);
        printf(",\n  \"automata\": [");
        for (int a = 0; a < m->naut; a++) {
            printf("%s\n    {\"name\": ", a ? "," : "");
            san_json_string(stdout, m->aut[a].name);
            printf(", \"states\": [");
            for (int s = 0; s < m->aut[a].nstates; s++) {
                printf("%s", s ? ", " : "");
                san_json_string(stdout, m->aut[a].states[s]);
            }
            printf("]}");
        }
        printf("\n  ],\n  \"events\": [");
        for (int e = 0; e < m->nev; e++) {
            const san_event *E = &m->ev[e];
            printf("%s\n    {\"name\": ", e ? "," : "");
            san_json_string(stdout, E->name);
            printf(", \"type\": \"%s\", \"rate\": ", E->sync ? "syn" : "loc");
            if (san_expr_is_const(E->rate))
                san_json_num(stdout, san_expr_const(E->rate));
            else
                printf("\"function\"");
            printf(", \"automata\": [");
            for (int k = 0; k < E->nparts; k++) {
                printf("%s", k ? ", " : "");
                san_json_string(stdout, m->aut[E->parts[k]].name);
            }
            printf("]}");
        }
        printf("\n  ],\n  \"functions\": [");
        int first = 1;
        for (int i = 0; i < m->nid; i++)
            if (m->id[i].is_function) {
                printf("%s", first ? "" : ", ");
                san_json_string(stdout, m->id[i].name);
                first = 0;
            }
        printf("],\n  \"results\": [");
        for (int r = 0; r < m->nres; r++) {
            printf("%s", r ? ", " : "");
            san_json_string(stdout, m->res[r].name);
        }
        printf("]");
    }
    printf(",\n  \"errors\": [");
    json_diags(d, SAN_ERROR);
    printf(",\n  \"warnings\": [");
    json_diags(d, SAN_WARNING);
    printf("\n}\n");
}

int cmd_check(int argc, char **argv)
{
    check_args A = { FMT_TEXT, { 0 }, { 0 }, 0, { SAN_EXPLORE_AUTO, 0, 0, 0, NULL },
                     SAN_LUMP_AUTO };
    char **rest;
    int nrest;
    int rc = cli_parse(&check_spec, argc, argv, &A, &rest, &nrest);
    if (rc) {
        cli_defines_free(&A.defs);
        return rc == CLI_HELP_SHOWN ? EXIT_OK : rc;
    }
    if (nrest != 1) {
        free(rest);
        cli_defines_free(&A.defs);
        return cli_usage_error("check", "%s", nrest == 0 ? "missing MODEL" : "expected one MODEL");
    }
    cli_defines defs = A.defs;
    cli_format fmt = A.fmt;
    const char *path = rest[0];
    free(rest);
    size_t len;
    char *text;
    int rc_read = cli_read_model(path, A.max_input, 0, &text, &len);
    int prism = rc_read == EXIT_OK && san_is_prism_path(path);
    if (prism) {
        /* the -D are the PRISM constants: the importer's; what PEPS would
         * read differently is not the user's text */
        A.diag.no_peps_warnings = 1;
        rc_read = cli_prism_to_san(strcmp(path, "-") ? path : "<stdin>", &text, &len, &defs);
        cli_defines_free(&defs);
        if (rc_read != EXIT_OK)
            free(text);
    }
    if (rc_read != EXIT_OK) {
        cli_defines_free(&defs);
        return rc_read;
    }
    san_diag d;
    char nb[4096];
    san_diag_init(&d, cli_model_name(path, nb, sizeof nb), text, len);
    san_load_opts opt = { .defs = defs.defs, .ndefs = defs.n, .peps_warnings = !A.diag.no_peps_warnings,
                          .progress = cli_stderr_is_tty() };
    for (int i = 0; i < defs.n; i++) {
        char why[2048];
        if (cli_structural_define(text, len, &defs.defs[i], why, sizeof why)) {
            san_diag_add(&d, SAN_ERROR, 0, 0, "-D %s: %s", defs.defs[i].name, why);
            defs.defs[i].used = 1;      /* said why: not "no constant" as well */
        }
    }
    san_model *m = d.nerrors ? NULL : san_model_load(text, len, &d, &opt);
    for (int i = 0; m && i < defs.n; i++)
        if (!defs.defs[i].used) {
            char why[1024];
            san_model_define_why(m, defs.defs[i].name, defs.defs[i].value, why, sizeof why);
            san_diag_add(&d, SAN_ERROR, 0, 0, "-D %s: %s", defs.defs[i].name, why);
        }
    if (m && !d.nerrors && A.diag.peers)
        san_model_lint_peers(m, text, len, &d);
    else if (m && !d.nerrors && !A.diag.no_peps_warnings)
        san_model_lint_peers_brief(m, text, len, &d);
    if (d.nerrors && m) {
        san_model_free(m);
        m = NULL;
    }
    san_estimate mem;
    memset(&mem, 0, sizeof mem);
    san_audit audit;
    memset(&audit, 0, sizeof audit);
    int status = m ? EXIT_OK : EXIT_USAGE;
    san_lumping *L = NULL;
    if (m && A.lump == SAN_LUMP_AUTO) {
        /* the size is what check shows; why some replicas stay apart is
         * the solve's note (check's diagnostics are the model's) */
        san_diag why;
        san_diag_init(&why, NULL, NULL, 0);
        if (san_model_lump(m, &L, &why) != SAN_OK) {
            san_diag_add(&d, SAN_ERROR, 0, 0, "out of memory while lumping the replicas");
            status = EXIT_FAIL;
        }
        san_diag_free(&why);
    }
    if (m) {
        /* what the solve will build: the lumped model when there is one */
        san_estimate_memory(L ? san_lumping_model(L) : m, &mem);
        A.audit.progress = cli_stderr_is_tty();
        if (san_audit_model(m, &A.audit, &audit, &d) != SAN_OK)
            status = EXIT_FAIL;
        else if (d.nerrors)
            status = EXIT_USAGE;    /* the model is wrong, as the solve would say */
    }
    if (fmt == FMT_JSON)
        json_summary(m, L, &d, &mem, &audit);
    san_diag_print(&d, stderr, isatty(2));
    if (fmt == FMT_TEXT && m)
        text_summary(m, L, &d, &mem, &audit);
    san_lumping_free(L);
    san_model_free(m);
    san_diag_free(&d);
    free(text);
    cli_defines_free(&defs);
    return status;
}
