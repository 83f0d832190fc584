/*
 * cmd_import.c - `san import prism MODEL [-D N=4] [-o FILE]`: a PRISM
 * CTMC model as .san text, the same front door as `san gen`.  The step
 * every model-reading subcommand takes when its model is a PRISM file
 * (tool_prism_to_san, so that `san solve cluster.prism -D N=16` works as
 * well) is tool/prism.c's, beside the reading of a model.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"
#include "tool/options.h"

typedef struct {
    tool_defines defs;
    const char *output;
    double max_input;
} import_args;

static const tool_option import_options[] = {
    TOOL_GROUP("options:"),
    TOOL_CALLBACK('D', NULL, "NAME=VALUE", import_args, defs, tool_opt_define,
                 "give a PRISM constant its value (every undefined one\n"
                 "needs one; a defined one is overridden)"),
    TOOL_OUTPUT('o', "output", "FILE", import_args, output,
               "write the model to FILE instead of stdout (atomically:\n"
               "see OUTPUT FILES in san(1))"),
    TOOL_MAX_INPUT(import_args, max_input),
    TOOL_END
};

static const tool_spec import_spec = {
    .name = "import",
    .usage = "usage: san import prism [options] MODEL\n",
    .intro =
        "Write a PRISM CTMC model (ctmc; constants, formulas, labels, global and\n"
        "module variables with ranges, renamed modules, commands and synchronized\n"
        "actions, state and transition rewards, init ... endinit, system ... endsystem\n"
        "composing all modules with ||) as .san text.\n"
        "Each variable becomes an automaton whose states are its values; each\n"
        "alternative of a command an event of rate guard * rate, and each\n"
        "combination of the commands of a synchronized action one event whose rate\n"
        "is the product of theirs.  Labels become results (their probability),\n"
        "reward structures results (the long-run reward rate).  Every subcommand\n"
        "reads a .prism, .sm or .pm file this way itself.\n",
    .opts = import_options,
    .outro =
        "examples:\n"
        "  san import prism models/mm1k.prism -D K=10 -o mm1k.san\n"
        "  san import prism models/mm1k.prism -D K=10 | san solve -\n"
        "  san solve models/mm1k.prism -D K=10\n"
        "\n"
        "exit status: 0 success, 2 a model outside the subset or wrong (its\n"
        "line and column named), 1 other failures.\n",
    .flags = TOOL_ABBREV | TOOL_OPERAND_FILES,
};

void help_import(FILE *out)
{
    tool_help(out, &import_spec);
}

static int write_text(const void *text, FILE *out)
{
    fputs(text, out);
    return 0;
}

int cmd_import(int argc, char **argv)
{
    import_args A = { { 0 }, NULL, 0 };
    char **rest;
    int nrest;
    int rc = tool_parse(&import_spec, argc, argv, &A, &rest, &nrest);
    if (rc) {
        tool_defines_free(&A.defs);
        return rc == TOOL_HELP_SHOWN ? EXIT_OK : rc;
    }
    int status = EXIT_OK;
    if (nrest == 0)
        status = tool_usage_error("import", "missing the format: prism");
    else if (strcmp(rest[0], "prism"))
        status = tool_usage_error("import", "unknown format '%s' (prism)", rest[0]);
    else if (nrest != 2)
        status = tool_usage_error("import", "%s", nrest == 1 ? "missing MODEL"
                                                            : "expected one MODEL");
    if (status != EXIT_OK) {
        free(rest);
        tool_defines_free(&A.defs);
        return status;
    }
    size_t len;
    char *text = NULL;
    status = tool_read_model(rest[1], A.max_input, 0, &text, &len);
    if (status == EXIT_OK)
        status = tool_prism_to_san(strcmp(rest[1], "-") ? rest[1] : "<stdin>", &text, &len,
                                  &A.defs);
    if (status == EXIT_OK)
        status = tool_write_output(A.output, write_text, text);
    free(text);
    free(rest);
    tool_defines_free(&A.defs);
    return status;
}
