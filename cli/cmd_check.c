/*
 * cmd_check.c - `san check MODEL`: validate and summarize.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"
#include "tool/options.h"

typedef struct {
    tool_format fmt;
    tool_defines defs;
    tool_diag diag;
    double max_input;
    san_audit_opts audit;
    san_lump lump;
} check_args;

/* --explore auto|always|never */
static int opt_explore(const tool_parser *p, const tool_option *o, const char *arg, void *dest)
{
    static const char *const names[] = { "auto", "always", "never" };
    (void)o;
    for (int k = 0; k < 3; k++)
        if (!strcmp(arg, names[k])) {
            *(san_explore_mode *)dest = (san_explore_mode)k;
            return 0;
        }
    return tool_usage_error(p->cmd, "--explore: expected auto, always or never, not '%s'", arg);
}

/* --lump auto|off */
static int opt_lump(const tool_parser *p, const tool_option *o, const char *arg, void *dest)
{
    (void)o;
    if (strcmp(arg, "auto") && strcmp(arg, "off"))
        return tool_usage_error(p->cmd, "--lump: expected auto or off, not '%s'", arg);
    *(san_lump *)dest = strcmp(arg, "off") ? SAN_LUMP_AUTO : SAN_LUMP_OFF;
    return 0;
}

static const tool_option check_options[] = {
    TOOL_GROUP("options:"),
    TOOL_CALLBACK(0, "lump", "WHEN", check_args, lump, opt_lump,
                 "auto (default): the memory estimates are those of\n"
                 "the lumped model the solve uses when replicas are\n"
                 "interchangeable (its size is shown); off: as written"),
    TOOL_FORMAT(check_args, fmt, TOOL_FMT_TEXT | TOOL_FMT_JSON, NULL),
    TOOL_CALLBACK('D', NULL, "NAME=VALUE", check_args, defs, tool_opt_define,
                 "override a constant identifier of the model"),
    TOOL_MAX_INPUT(check_args, max_input),
    TOOL_GROUP("reachable states:"),
    TOOL_CALLBACK(0, "explore", "WHEN", check_args, audit.explore, opt_explore,
                 "check rates and routing in the reachable states:\n"
                 "auto (default: up to --max-states of them,\n"
                 "else the first ones, said so), always (all,\n"
                 "within --max-memory) or never (the text alone)"),
    TOOL_INT(0, "max-states", "N", check_args, audit.max_states, 1, 2147483646,
            "a positive integer", "--explore auto: explore at most N states\n"
            "(default 200000, fewer for many automata)", NULL),
    TOOL_BYTES(0, "max-memory", "M", check_args, audit.max_memory,
              "memory the exploration may take (default 80%\n"
              "of physical memory)", NULL),
    TOOL_INCLUDE(tool_diag_options, check_args, diag),
    TOOL_END
};

static const tool_spec check_spec = {
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
    .flags = TOOL_ABBREV | TOOL_OPERAND_FILES,
};

void help_check(FILE *out)
{
    tool_help(out, &check_spec);
}

int cmd_check(int argc, char **argv)
{
    check_args A = { .fmt = FMT_TEXT, .lump = SAN_LUMP_AUTO };
    san_audit_opts_default(&A.audit);
    char **rest;
    int nrest;
    int rc = tool_parse(&check_spec, argc, argv, &A, &rest, &nrest);
    if (rc) {
        tool_defines_free(&A.defs);
        return rc == TOOL_HELP_SHOWN ? EXIT_OK : rc;
    }
    if (nrest != 1) {
        free(rest);
        tool_defines_free(&A.defs);
        return tool_usage_error("check", "%s", nrest == 0 ? "missing MODEL" : "expected one MODEL");
    }
    tool_defines defs = A.defs;
    tool_format fmt = A.fmt;
    const char *path = rest[0];
    free(rest);
    size_t len;
    char *text;
    int rc_read = tool_read_model(path, A.max_input, 0, &text, &len);
    int prism = rc_read == EXIT_OK && san_is_prism_path(path);
    if (prism) {
        /* the -D are the PRISM constants: the importer's; what PEPS would
         * read differently is not the user's text */
        A.diag.no_peps_warnings = 1;
        rc_read = tool_prism_to_san(strcmp(path, "-") ? path : "<stdin>", &text, &len, &defs);
        tool_defines_free(&defs);
        if (rc_read != EXIT_OK)
            free(text);
    }
    if (rc_read != EXIT_OK) {
        tool_defines_free(&defs);
        return rc_read;
    }
    san_diag d;
    char nb[4096];
    san_diag_init(&d, tool_model_name(path, nb, sizeof nb), text, len);
    san_load_opts opt;
    san_load_opts_default(&opt);
    opt.defs = defs.defs;
    opt.ndefs = defs.n;
    opt.peps_warnings = !A.diag.no_peps_warnings;
    opt.progress = tool_stderr_is_tty();
    for (int i = 0; i < defs.n; i++) {
        char why[2048];
        if (tool_structural_define(text, len, &defs.defs[i], why, sizeof why)) {
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
        san_diag_clear(&why);
    }
    if (m) {
        /* what the solve will build: the lumped model when there is one */
        san_estimate_memory(L ? san_lumping_model(L) : m, &mem);
        A.audit.progress = tool_stderr_is_tty();
        if (san_audit_model(m, &A.audit, &audit, &d) != SAN_OK)
            status = EXIT_FAIL;
        else if (d.nerrors)
            status = EXIT_USAGE;    /* the model is wrong, as the solve would say */
    }
    san_check_report_opts ro;
    san_check_report_opts_default(&ro);
    ro.lumping = L;
    ro.memory = &mem;
    ro.audit = &audit;
    ro.preamble = tool_provenance;
    if (fmt == FMT_JSON)
        san_report_check(stdout, SAN_REPORT_JSON, m, &d, &ro);
    san_diag_print(&d, stderr, isatty(2));
    if (fmt == FMT_TEXT && m)
        san_report_check(stdout, SAN_REPORT_TEXT, m, &d, &ro);
    san_lumping_free(L);
    san_model_free(m);
    san_diag_clear(&d);
    free(text);
    tool_defines_free(&defs);
    return status;
}
