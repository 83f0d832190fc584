/*
 * cmd_props.c - `san props MODEL [PROPS-FILE] [--props FILE]
 * [--property 'P=? [...]']...`: CSL properties of PRISM's property
 * language checked on a model's chain (san/props.h), as `prism MODEL
 * PROPS` does for a CTMC.  This file reads the options and the property
 * texts and writes the table; parsing and checking are the library's.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"
#include "tool/options.h"

typedef struct {
    tool_strings props, property;
    tool_defines defs;
    tool_format fmt;
    double max_memory, max_input, eps, max_steps, tol;
    int64_t max_states;
    int quiet;
    tool_diag diag;
} props_args;

static const tool_option props_options[] = {
    TOOL_GROUP("properties (PRISM's property language, CTMC fragment):"),
    TOOL_CALLBACK(0, "props", "FILE", props_args, props, tool_opt_string,
                 "a .props/.csl file: one property per line or\n"
                 "';'-separated, \"name\": before a property, const\n"
                 "declarations, // comments (repeatable; a second\n"
                 "operand is read the same way)"),
    TOOL_CALLBACK(0, "property", "'P'", props_args, property, tool_opt_string,
                 "one property, e.g. 'S=? [ \"full\" ]' (repeatable)"),
    TOOL_GROUP("numerics:"),
    TOOL_DOUBLE(0, "eps", "X", props_args, eps, 1e-300, 1e-3, 0, "a number in (0, 1e-3]",
               "Poisson mass cut of uniformization (Fox-Glynn)", "1e-13"),
    TOOL_DOUBLE(0, "max-steps", "N", props_args, max_steps, 1, 1e15, 0, "a number >= 1",
               "refuse when uniformization needs more products", "1e8"),
    TOOL_DOUBLE(0, "tol", "X", props_args, tol, 1e-300, 1e-2, 0, "a number in (0, 1e-2]",
               "accuracy of the steady-state solves (S, R[S])", "1e-10"),
    TOOL_GROUP("limits:"),
    TOOL_BYTES(0, "max-memory", "M", props_args, max_memory,
              "refuse models needing more (e.g. 4G, 512M)", NULL),
    TOOL_INT(0, "max-states", "N", props_args, max_states, 1, 9e18, "a positive integer",
            "refuse more reachable states than N", NULL),
    TOOL_MAX_INPUT(props_args, max_input),
    TOOL_GROUP("model:"),
    TOOL_CALLBACK('D', NULL, "NAME=VALUE", props_args, defs, tool_opt_define,
                 "a constant of the model or of the properties"),
    TOOL_INCLUDE(tool_diag_options, props_args, diag),
    TOOL_GROUP("output:"),
    TOOL_FORMAT(props_args, fmt, TOOL_FMT_TEXT | TOOL_FMT_JSON | TOOL_FMT_CSV, NULL),
    TOOL_FLAG('q', "quiet", props_args, quiet, 1, "no provenance header (text)"),
    TOOL_END
};

static const tool_spec props_spec = {
    .name = "props",
    .usage = "usage: san props [options] MODEL [PROPS-FILE] [--property 'P']...\n",
    .intro =
        "Check CSL properties on the model's chain, as PRISM does for a CTMC:\n"
        "S=? [phi], P=? [F phi], P=? [F<=t phi], P=? [F[a,b] phi], P=? [a U b],\n"
        "P=? [a U<=t b], P=? [G phi], R{\"r\"}=? [S], R=? [C<=t], R=? [I=t],\n"
        "R=? [F phi].  phi: labels \"name\" (declared in the property file,\n"
        "label \"up\" = x >= 2;, or the model's results or functions),\n"
        "variables (automata), constants, ! & | => <=>, comparisons.  The\n"
        "answer is from the initial distribution (uniform over the initial\n"
        "states); several closed classes are weighted by the probability of\n"
        "reaching each (doc/props.md).\n",
    .outro =
        "examples:\n"
        "  san props models/mm1k.prism models/mm1k.props -D K=10\n"
        "  san props models/mm1k.prism -D K=10 -D T=2 --props models/mm1k.props \\\n"
        "      --property 'P=? [ !\"full\" U<=T n=0 ]' -f json\n",
    .opts = props_options,
    .flags = TOOL_ABBREV | TOOL_OPERAND_FILES,
};

void help_props(FILE *out)
{
    tool_help(out, &props_spec);
}

/* Parse every property source into *P: EXIT_OK or the exit status. */
static int read_props(const props_args *A, const char *file, san_props **P)
{
    int status = EXIT_OK;
    int nf = A->props.n + (file != NULL);
    for (int i = 0; i < nf && status == EXIT_OK; i++) {
        const char *path = i < A->props.n ? A->props.v[i] : file;
        char *text;
        size_t len;
        status = tool_read_model(path, A->max_input, 0, &text, &len);
        if (status != EXIT_OK)
            return status;
        san_diag d;
        san_diag_init(&d, strcmp(path, "-") ? path : "<stdin>", text, len);
        san_status st = san_props_parse(text, len, A->defs.defs, A->defs.n, P, &d);
        if (st != SAN_OK) {
            san_diag_print(&d, stderr, isatty(2));
            status = tool_exit_status(st);
        }
        san_diag_clear(&d);
        free(text);
    }
    for (int i = 0; i < A->property.n && status == EXIT_OK; i++) {
        char name[32];
        snprintf(name, sizeof name, "--property %d", i + 1);
        const char *t = A->property.v[i];
        san_diag d;
        san_diag_init(&d, A->property.n == 1 ? "--property" : name, t, strlen(t));
        san_status st = san_props_parse(t, strlen(t), A->defs.defs, A->defs.n, P, &d);
        if (st != SAN_OK) {
            san_diag_print(&d, stderr, isatty(2));
            status = tool_exit_status(st);
        }
        san_diag_clear(&d);
    }
    return status;
}

int cmd_props(int argc, char **argv)
{
    props_args A;
    memset(&A, 0, sizeof A);
    char **rest;
    int nrest;
    int rc = tool_parse(&props_spec, argc, argv, &A, &rest, &nrest);
    if (rc) {
        tool_defines_free(&A.defs);
        free(A.props.v);
        free(A.property.v);
        return rc == TOOL_HELP_SHOWN ? EXIT_OK : rc;
    }
    int status = EXIT_OK;
    san_props *P = NULL;
    san_model *m = NULL;
    san_checker *C = NULL;
    tool_defines mdefs = { 0 };
    if (nrest < 1 || nrest > 2) {
        status = tool_usage_error("props", "%s", nrest ? "expected MODEL and at most one "
                                 "PROPS-FILE" : "missing MODEL");
        goto out;
    }
    if (nrest == 1 && !A.props.n && !A.property.n) {
        status = tool_usage_error("props", "no property: give a PROPS-FILE, --props FILE or "
                                 "--property 'P=? [...]'");
        goto out;
    }
    status = read_props(&A, nrest == 2 ? rest[1] : NULL, &P);
    if (status != EXIT_OK)
        goto out;
    /* the -D that set constants of the properties are not the model's */
    for (int i = 0; i < A.defs.n; i++)
        if (!san_props_has_const(P, A.defs.defs[i].name) &&
            tool_define_add(&mdefs, A.defs.defs[i].name, strlen(A.defs.defs[i].name),
                           A.defs.defs[i].value) < 0) {
            status = tool_exit_status(SAN_E_NOMEM);
            goto out;
        }
    if (!(m = tool_load_model_flags(rest[0], &mdefs, SAN_IMPORT_PROPS, &status, A.max_input,
                                   A.max_memory, &A.diag)))
        goto out;
    san_props_opts o;
    san_props_opts_default(&o);
    /* a command may fork: the LU runs in a child the time limit ends */
    o.solve.fork_lu = 1;
    o.space.max_memory = A.max_memory;
    o.space.max_states = A.max_states;
    o.space.interrupt = tool_interrupt("props", TOOL_SOLVE_GRACE);
    o.solve.interrupt = o.space.interrupt;
    if (A.tol > 0)
        o.solve.tol = A.tol;
    if (A.eps > 0)
        o.eps = A.eps;
    if (A.max_steps > 0)
        o.max_steps = A.max_steps;
    san_diag d;
    char nb[4096];
    san_diag_init(&d, tool_model_name(rest[0], nb, sizeof nb), NULL, 0);
    san_status st = san_checker_new(m, &o, &C, &d);
    if (st != SAN_OK) {
        san_diag_print(&d, stderr, isatty(2));
        san_diag_clear(&d);
        status = tool_exit_status(st);
        goto out;
    }
    san_diag_clear(&d);
    int np = san_props_count(P);
    san_prop_answer *ans = calloc((size_t)np, sizeof *ans);
    if (!ans) {
        status = tool_exit_status(SAN_E_NOMEM);
        goto out;
    }
    /* every name first: the errors of all the properties before any
     * long computation */
    for (int i = 0; i < np; i++) {
        size_t len;
        const char *file;
        const char *src = san_props_source(P, i, &len, &file);
        san_diag_init(&d, file, src, len);
        if (san_checker_validate(C, P, i, &d) != SAN_OK) {
            san_diag_print(&d, stderr, isatty(2));
            status = tool_exit_status(SAN_E_MODEL);
        }
        san_diag_clear(&d);
    }
    if (status != EXIT_OK) {
        free(ans);
        goto out;
    }
    for (int i = 0; i < np; i++) {
        size_t len;
        const char *file;
        const char *src = san_props_source(P, i, &len, &file);
        san_diag_init(&d, file, src, len);
        st = san_checker_eval(C, P, i, &ans[i], &d);
        if (st != SAN_OK) {
            if (!d.n)
                san_diag_add(&d, SAN_ERROR, 0, 0, "%s: %s", san_props_text(P, i),
                             san_status_name(st));
            san_diag_print(&d, stderr, isatty(2));
            san_diag_clear(&d);
            status = tool_exit_status(st);
            free(ans);
            goto out;
        }
        san_diag_clear(&d);
    }
    tool_run run = { .method = "csl", .tol = o.eps, .storage = "sparse", .converged = 1 };
    if (A.quiet && A.fmt == FMT_TEXT)
        tool_meta_quiet();
    san_props_report_opts ro;
    san_props_report_opts_default(&ro);
    ro.preamble = tool_provenance;
    ro.ctx = &run;
    san_report_props(stdout, tool_report_format(A.fmt), P, C, ans, &ro);
    free(ans);
out:
    san_checker_free(C);
    san_model_free(m);
    san_props_free(P);
    tool_defines_free(&mdefs);
    tool_defines_free(&A.defs);
    free(A.props.v);
    free(A.property.v);
    free(rest);
    return status;
}
