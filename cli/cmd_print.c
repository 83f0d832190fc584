/*
 * cmd_print.c - `san print MODEL`: the model as normalized .san text.
 */
#include <stdlib.h>
#include "cli.h"
#include "options.h"

typedef struct {
    cli_defines defs;
    const char *output;
} print_args;

static const cli_option print_options[] = {
    CLI_GROUP("options:"),
    CLI_CALLBACK('D', NULL, "NAME=VALUE", print_args, defs, cli_opt_define,
                 "override a constant (printed with its new value)"),
    CLI_STRING('o', "output", "FILE", print_args, output,
               "write to FILE instead of standard output"),
    CLI_END
};

static const cli_spec print_spec = {
    .name = "print",
    .usage = "usage: san print [options] MODEL\n",
    .intro =
        "Check a model and print it back as normalized .san text: every\n"
        "expression fully parenthesized, one transition per line.  Printing a\n"
        "printed model gives the same text; both compile to the same model.\n",
    .opts = print_options,
    .flags = CLI_ABBREV,
};

void help_print(FILE *out)
{
    cli_help(out, &print_spec);
}

static void print_model(const void *m, FILE *out)
{
    san_model_print(m, out);
}

int cmd_print(int argc, char **argv)
{
    print_args A = { { 0 }, NULL };
    char **rest;
    int nrest;
    int rc = cli_parse(&print_spec, argc, argv, &A, &rest, &nrest);
    if (rc) {
        cli_defines_free(&A.defs);
        return rc == CLI_HELP_SHOWN ? EXIT_OK : rc;
    }
    if (nrest != 1) {
        free(rest);
        cli_defines_free(&A.defs);
        return cli_usage_error("print", "%s", nrest == 0 ? "missing MODEL" : "expected one MODEL");
    }
    int status = EXIT_OK;
    san_model *m = cli_load_model(rest[0], &A.defs, &status, 1);
    free(rest);
    cli_defines_free(&A.defs);
    if (!m)
        return status;
    status = cli_write_output(A.output, print_model, m);
    san_model_free(m);
    return status;
}
