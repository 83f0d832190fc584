/*
 * cmd_print.c - `san print MODEL`: the model as normalized .san text.
 */
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "tool/options.h"

typedef struct {
    tool_defines defs;
    const char *output;
    const char *dialect;
    double max_input;
    tool_diag diag;
} print_args;

static const tool_option print_options[] = {
    TOOL_GROUP("options:"),
    TOOL_CALLBACK('D', NULL, "NAME=VALUE", print_args, defs, tool_opt_define,
                 "override a constant (printed with its new value)"),
    TOOL_OUTPUT('o', "output", "FILE", print_args, output,
               "write to FILE instead of standard output (atomically:\n"
               "see OUTPUT FILES in san(1))"),
    TOOL_STRING(0, "dialect", "NAME", print_args, dialect,
               "san (default), peps2003 or peps2007: text that tool reads\n"
               "unchanged and solves to the same numbers (rewritten where\n"
               "it reads differently; doc/compat.md)"),
    TOOL_MAX_INPUT(print_args, max_input),
    TOOL_INCLUDE(tool_diag_options, print_args, diag),
    TOOL_END
};

static const tool_spec print_spec = {
    .name = "print",
    .usage = "usage: san print [options] MODEL\n",
    .intro =
        "Check a model and print it back as normalized .san text: every\n"
        "expression fully parenthesized, one transition per line.  Printing a\n"
        "printed model gives the same text; both compile to the same model.\n",
    .opts = print_options,
    .flags = TOOL_ABBREV | TOOL_OPERAND_FILES,
};

void help_print(FILE *out)
{
    tool_help(out, &print_spec);
}

typedef struct {
    const char *text;
    size_t len;
} print_text;

static int write_text(const void *arg, FILE *out)
{
    const print_text *t = arg;
    fwrite(t->text, 1, t->len, out);
    return 0;       /* a failed write shows in the stream's error */
}

/* The text in memory first: a model the dialect cannot express is
 * refused before anything (or any -o file) is written. */
/* src: the model's text, whose comments the san dialect writes back
 * (the PEPS dialects write none: doc/compat.md). */
static int print_in_dialect(const san_model *m, san_dialect dialect, const char *name,
                            const char *output, const char *src, size_t srclen)
{
    char err[512] = "";
    print_text t = { NULL, 0 };
    FILE *mem = open_memstream((char **)&t.text, &t.len);
    if (!mem)
        return tool_exit_status(SAN_E_NOMEM);
    san_status st = dialect == SAN_DIALECT_SAN ? san_model_print_commented(m, src, srclen, mem)
                                               : san_model_print_dialect(m, dialect, mem, err,
                                                                         sizeof err);
    if (fclose(mem) != 0 && st == SAN_OK)
        st = SAN_E_NOMEM;
    int status;
    if (st != SAN_OK) {
        fprintf(stderr, "san print: %s: %s\n", name, err[0] ? err : "cannot write it");
        status = tool_exit_status(st);
    } else {
        status = tool_write_output(output, write_text, &t);
    }
    free((char *)t.text);
    return status;
}

int cmd_print(int argc, char **argv)
{
    print_args A = { { 0 }, NULL, NULL, 0, { 0 } };
    char **rest;
    int nrest;
    int rc = tool_parse(&print_spec, argc, argv, &A, &rest, &nrest);
    if (rc) {
        tool_defines_free(&A.defs);
        return rc == TOOL_HELP_SHOWN ? EXIT_OK : rc;
    }
    if (nrest != 1) {
        free(rest);
        tool_defines_free(&A.defs);
        return tool_usage_error("print", "%s", nrest == 0 ? "missing MODEL" : "expected one MODEL");
    }
    san_dialect dialect = SAN_DIALECT_SAN;
    if (A.dialect && !san_dialect_from_name(A.dialect, &dialect)) {
        free(rest);
        tool_defines_free(&A.defs);
        return tool_usage_error("print", "unknown dialect '%s' (san, peps2003, peps2007)", A.dialect);
    }
    int status = EXIT_OK;
    /* the text is the output: warnings only when asked for (--peps) */
    size_t len;
    char *text;
    san_model *m = NULL;
    status = tool_read_model(rest[0], A.max_input, 0, &text, &len);
    int prism = status == EXIT_OK && san_is_prism_path(rest[0]);
    if (prism)
        status = tool_prism_to_san(rest[0], &text, &len, &A.defs);
    char nb[4096];
    if (status == EXIT_OK)
        m = tool_load_text(tool_model_name(rest[0], nb, sizeof nb), text, len,
                          prism ? NULL : &A.defs, &status, !A.diag.peers, &A.diag);
    tool_defines_free(&A.defs);
    if (m)
        status = print_in_dialect(m, dialect, rest[0], A.output, text, len);
    free(text);
    free(rest);
    san_model_free(m);
    return status;
}
