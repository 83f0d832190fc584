/*
 * cmd_export.c - `san export MODEL --format FMT`: the chain or the
 * automata in other tools' formats (the writers are the library's,
 * include/san/export.h; this file picks one and where it goes).
 */
#include <stdlib.h>
#include <string.h>
#include "tool/export_out.h"
#include "tool/options.h"

typedef struct {
    san_sweep_opts run;     /* the limits (--max-memory, --max-states) */
    const char *format, *output, *gen;
    long max_nodes;
    int quiet;
    tool_defines defs;
    tool_diag diag;
} export_args;

static const tool_option export_options[] = {
    TOOL_GROUP("output:"),
    TOOL_STRING('f', "format", "FMT", export_args, format,
               "mtx        the generator Q, Matrix Market (CHOLMOD's writer)\n"
               "states     the reachable states, CSV (state, index, local states)\n"
               "prism      PRISM's explicit files: BASE.tra, BASE.sta, BASE.lab,\n"
               "           BASE1.srew ... (results, throughputs), BASE.map.csv\n"
               "dot        the automata, Graphviz DOT\n"
               "dot-reach  the reachable chain, Graphviz DOT (small models)"),
    TOOL_STRING('o', "output", "FILE", export_args, output,
               "write to FILE (prism: BASE) instead of standard output\n"
               "(atomically: see OUTPUT FILES in san(1))"),
    TOOL_INT(0, "max-nodes", "N", export_args, max_nodes, 1, 1e9, "a positive integer",
            "dot-reach: refuse chains of more states", "1000"),
    TOOL_FLAG('q', "quiet", export_args, quiet, 1, "no progress on stderr"),
    TOOL_CHOICE(TOOL_OPT_LUMP, 0, "lump", "L", export_args, run.lump,
               "auto: the chain san solve solves, interchangeable\n"
               "replicas lumped into counts (occupancy states; the\n"
               "files say so); off: the chain as written", "auto"),
    TOOL_GROUP("limits:"),
    TOOL_INCLUDE(tool_limit_options, export_args, run),
    TOOL_MAX_INPUT(export_args, run.max_input),
    TOOL_GROUP("model:"),
    TOOL_CALLBACK('D', NULL, "NAME=VALUE", export_args, defs, tool_opt_define,
                 "override a constant identifier"),
    TOOL_STRING(0, "gen", "'ARGS'", export_args, gen,
               "export a generated model (see san gen --help)"),
    TOOL_INCLUDE(tool_diag_options, export_args, diag),
    TOOL_END
};

static const tool_spec export_spec = {
    .name = "export",
    .usage =
        "usage: san export --format FMT [options] MODEL\n"
        "       san export --format FMT [options] --gen 'TEMPLATE FLAGS...'\n",
    .intro =
        "Write the model's chain or automata for another tool.  The states are\n"
        "numbered by their mixed-radix index, ascending, in every format: row k\n"
        "of the Matrix Market file (1-based) is state k-1 of the states CSV and\n"
        "of PRISM's files.  PRISM loads the files with\n"
        "    prism -importmodel BASE.all -ctmc\n"
        "its init label marks the model's initial states, its names are in\n"
        "BASE.map.csv (made unique and none of PRISM's keywords).\n"
        "A model with interchangeable replicas is exported lumped, as san solve\n"
        "solves it (--lump off: as written): each class of replicas is one\n"
        "automaton named after them, Slave[1..4], whose states are occupancy\n"
        "vectors, (I:2 Pr:1 Tx:1) for two slaves in I, one in Pr, one in Tx;\n"
        "mtx and dot say so in a comment, every format in a note on stderr.\n",
    .opts = export_options,
    .outro = "Exit status: 0 written, 2 bad model, usage or over a limit, 1 failed.\n",
    .flags = TOOL_ABBREV | TOOL_OPERAND_FILES,
};

void help_export(FILE *out)
{
    tool_help(out, &export_spec);
}

static int parse_format(const char *s, export_format *f)
{
    static const char *const names[] = { "mtx", "states", "prism", "dot", "dot-reach" };
    for (int k = 0; k < (int)(sizeof names / sizeof names[0]); k++)
        if (s && !strcmp(s, names[k])) {
            *f = (export_format)k;
            return 0;
        }
    return -1;
}

/* ---- the command ---- */

static int check_args(const export_args *A, int nrest, export_format *fmt)
{
    if (!A->format)
        return tool_usage_error("export", "missing --format (mtx, states, prism, dot, dot-reach)");
    if (parse_format(A->format, fmt) != 0)
        return tool_usage_error("export", "--format: expected mtx, states, prism, dot or dot-reach, not '%s'",
                               A->format);
    if (*fmt == EXP_PRISM && (!A->output || !strcmp(A->output, "-")))
        return tool_usage_error("export", "--format prism writes BASE.tra, BASE.sta, BASE.lab, ...: give -o BASE");
    if (A->gen && nrest != 0)
        return tool_usage_error("export", "--gen replaces MODEL; give one or the other");
    if (!A->gen && nrest != 1)
        return tool_usage_error("export", "%s", nrest == 0 ? "missing MODEL" : "expected one MODEL");
    return 0;
}

/* The state space through the one pipeline, stopped before the solve:
 * with its generator unless only the states are asked for; lumped as
 * the solve would be (its lumping, its space over the lumped model). */
static int build_space(const export_args *A, const san_model *m, const char *path,
                       export_format fmt, san_analysis *a)
{
    san_analysis_opts ao;
    san_analysis_opts_default(&ao);
    ao.space = A->run.space;
    ao.space.progress = !A->quiet && tool_stderr_is_tty();
    ao.space.interrupt = tool_interrupt("export", TOOL_SOLVE_GRACE);
    ao.storage = fmt == EXP_STATES ? SAN_STORAGE_AUTO : SAN_STORAGE_SPARSE;
    ao.space_only = 1;
    ao.lump = A->run.lump;
    san_diag d;
    char nb[4096];
    san_diag_init(&d, tool_model_name(path, nb, sizeof nb), NULL, 0);
    san_status st = san_analyze(m, &ao, a, &d);
    san_diag_print(&d, stderr, tool_stderr_is_tty());
    san_diag_clear(&d);
    return tool_exit_status(st);
}

/* The automata (dot) need no space: the lumped model itself. */
static int lump_model(const export_args *A, const san_model *m, const char *path,
                      san_lumping **L)
{
    *L = NULL;
    if (A->run.lump == SAN_LUMP_OFF)
        return EXIT_OK;
    san_diag d;
    char nb[4096];
    san_diag_init(&d, tool_model_name(path, nb, sizeof nb), NULL, 0);
    san_status st = san_model_lump(m, L, &d);
    san_diag_print(&d, stderr, tool_stderr_is_tty());
    san_diag_clear(&d);
    if (st != SAN_OK)
        fprintf(stderr, "san export: out of memory while lumping the replicas\n");
    return tool_exit_status(st);
}

int cmd_export(int argc, char **argv)
{
    export_args A;
    memset(&A, 0, sizeof A);
    san_sweep_opts_default(&A.run);
    A.max_nodes = 1000;
    char **rest;
    int nrest;
    export_format fmt = EXP_MTX;
    int rc = tool_parse(&export_spec, argc, argv, &A, &rest, &nrest);
    if (rc == 0)
        rc = check_args(&A, nrest, &fmt);
    if (rc) {
        free(rest);
        tool_defines_free(&A.defs);
        return rc == TOOL_HELP_SHOWN ? EXIT_OK : rc;
    }
    int status = EXIT_OK;
    const char *path = A.gen ? "<gen>" : rest[0];
    san_model *m = A.gen ? tool_load_gen("export", A.gen, &A.defs, &status, &A.diag)
                         : tool_load_model(path, &A.defs, &status, 0, A.run.max_input,
                                          A.run.space.max_memory, &A.diag);
    tool_defines_free(&A.defs);
    free(rest);
    if (!m)
        return status;
    if (!A.gen && (status = tool_export_refuse_overwrite(A.output, fmt, m, path)) != EXIT_OK) {
        san_model_free(m);
        return status;
    }
    san_analysis *a = san_analysis_new();
    if (!a)
        fprintf(stderr, "san export: out of memory\n");
    san_lumping *L = NULL;          /* dot: the lumped automata */
    status = !a ? EXIT_FAIL : fmt == EXP_DOT ? lump_model(&A, m, path, &L)
                                             : build_space(&A, m, path, fmt, a);
    const san_lumping *lumped = fmt == EXP_DOT || !a ? L : san_analysis_lumping(a);
    char *note = status == EXIT_OK ? san_export_lump_note(lumped, m, fmt == EXP_DOT ? -1
                                                          : san_analysis_states(a))
                                   : NULL;
    if (note)       /* its first line: on stderr whatever the format */
        fprintf(stderr, "%.*s\n", (int)strcspn(note, "\n"), note);
    if (status == EXIT_OK) {
        export_job j = { .m = L ? san_lumping_model(L) : m, .sp = san_analysis_space(a),
                         .note = note, .fmt = fmt, .max_nodes = A.max_nodes };
        status = tool_export_write(&j, A.output);
    }
    free(note);
    san_lumping_free(L);
    san_analysis_free(a);
    san_model_free(m);
    return status;
}
