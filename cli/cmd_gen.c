/*
 * cmd_gen.c - `san gen TEMPLATE [flags] [-o FILE] [--size]`: write a
 * master/slave or pipeline model from parameter flags, or report the size
 * of its product space.
 */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "tool/options.h"

typedef struct {
    const char *output;
    int size;
    const char *dialect;
} gen_args;

static const tool_option gen_options[] = {
    TOOL_GROUP("options:"),
    TOOL_OUTPUT('o', "output", "FILE", gen_args, output,
               "write the model to FILE instead of stdout (atomically:\n"
               "see OUTPUT FILES in san(1))"),
    TOOL_FLAG(0, "size", gen_args, size, 1,
             "compile the model and print its product-space size (the\n"
             "template's formula and the exact count) instead of the\n"
             "model; with -o the file is written as well"),
    TOOL_STRING(0, "dialect", "NAME", gen_args, dialect,
               "san (default), peps2003 or peps2007: text that tool\n"
               "reads unchanged, without comments (see san print)"),
    TOOL_END
};

static void gen_templates_help(FILE *out)
{
    fputc('\n', out);
    san_gen_help(out);
}

/* Our own options may appear anywhere; the rest goes to the template. */
static const tool_spec gen_spec = {
    .name = "gen",
    .usage = "usage: san gen TEMPLATE [template flags] [-o FILE] [--size]\n",
    .intro =
        "Write a SAN model of a parallel program from a few numbers.  The model\n"
        "is compact .san text: a first line that records the command line, the\n"
        "model, and a results block with the template's performance indices\n"
        "(doc/indices.md); the template flag --explain adds a header with every\n"
        "derived value and a comment on most lines.  Solve it with 'san solve'.\n"
        "For PEPS 2003 or GTAexpress write it with --dialect peps2003.\n",
    .opts = gen_options,
    .extra = gen_templates_help,
    .outro =
        "examples:\n"
        "  san gen ms --mode async --slaves 5 --buffer 40 | san solve -\n"
        "  san gen pipeline --mode async --stages 2,2,11,6,4 --replicas 1,1,2,1,1 -o p.san\n"
        "\n"
        "exit status: 0 success, 2 bad template flags, 1 other failures.\n",
    .flags = TOOL_PASS_UNKNOWN,
};

void help_gen(FILE *out)
{
    tool_help(out, &gen_spec);
}

static int write_text(const void *text, FILE *out)
{
    fputs(text, out);
    return 0;
}

/* log10 of a count written in decimal digits ("123...") or with an
 * exponent ("4.59272e+490", the compiled model's past 40 digits). */
static double count_log10(const char *s)
{
    const char *e = strchr(s, 'e');
    if (e) {
        char mant[32] = { 0 };
        memcpy(mant, s, (size_t)(e - s) < 31 ? (size_t)(e - s) : 31);
        return log10(strtod(mant, NULL)) + strtod(e + 1, NULL);
    }
    size_t n = strspn(s, "0123456789");
    char head[17] = { 0 };
    memcpy(head, s, n < 16 ? n : 16);
    return log10(strtod(head, NULL)) + (double)(n - strlen(head));
}

/* --size: the formula from the template, the count from the compiled model;
 * they must agree. */
static int print_size(char *text, const char *formula)
{
    int status = EXIT_OK;
    san_model *m = tool_load_text("<generated>", text, strlen(text), NULL, &status, 1, NULL);
    if (!m) {
        fprintf(stderr, "san gen: the generated model does not compile (a bug in the template)\n");
        return EXIT_FAIL;
    }
    printf("size formula: %s\n", formula);
    const char *product = san_model_product_text(m);
    printf("product states: %s\n", product);
    /* Past 2^53 the formula's value is rounded (printed with an exponent):
     * only exact values can be compared. */
    const char *value = strrchr(formula, '=');
    int agree = value && (strchr(value, 'e') || !strcmp(value + 2, product));
    /* past 40 digits the compiled model keeps six: they must agree */
    if (value && !agree && strchr(product, 'e'))
        agree = fabs(count_log10(value + 2) - count_log10(product)) < 1e-5;
    san_model_free(m);
    if (!agree) {
        fprintf(stderr, "san gen: the formula and the compiled model disagree (a bug in the template)\n");
        return EXIT_FAIL;
    }
    return EXIT_OK;
}

/* The generated text rewritten for another tool: compiled, then printed
 * in the dialect (the comments go; the numbers stay).  Replaces *text. */
static int to_dialect(char **text, const char *name)
{
    san_dialect d;
    if (!san_dialect_from_name(name, &d))
        return tool_usage_error("gen", "unknown dialect '%s' (san, peps2003, peps2007)", name);
    if (d == SAN_DIALECT_SAN)
        return EXIT_OK;
    int status = EXIT_OK;
    san_model *m = tool_load_text("<generated>", *text, strlen(*text), NULL, &status, 1, NULL);
    if (!m)
        return EXIT_FAIL;
    char err[512] = "", *out = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&out, &len);
    san_status st = mem ? san_model_print_dialect(m, d, mem, err, sizeof err) : SAN_E_NOMEM;
    if (mem && fclose(mem) != 0 && st == SAN_OK)
        st = SAN_E_NOMEM;
    san_model_free(m);
    if (st != SAN_OK) {
        fprintf(stderr, "san gen: %s\n", err[0] ? err : "cannot write the model in this dialect");
        free(out);
        return tool_exit_status(st);
    }
    free(*text);
    *text = out;
    return EXIT_OK;
}

int cmd_gen(int argc, char **argv)
{
    gen_args A = { NULL, 0, NULL };
    char **targ;
    int tn;
    int rc = tool_parse(&gen_spec, argc, argv, &A, &targ, &tn);
    if (rc)
        return rc == TOOL_HELP_SHOWN ? EXIT_OK : rc;
    const char *out = A.output;
    int size = A.size;
    if (tn == 0) {
        free(targ);
        return tool_usage_error("gen", "missing template: ms or pipeline");
    }

    /* For PEPS the master/slave template writes its slaves out itself
     * (--expanded): the text the peers were measured on (doc/compat.md),
     * names included, rather than the dialect's C_v of each replica. */
    san_dialect d;
    if (A.dialect && san_dialect_from_name(A.dialect, &d) && d != SAN_DIALECT_SAN &&
        !strcmp(targ[0], "ms")) {
        char **more = realloc(targ, (size_t)(tn + 1) * sizeof *targ);
        if (!more) {
            free(targ);
            return tool_usage_error("gen", "out of memory");
        }
        targ = more;
        targ[tn++] = "--expanded";
    }
    char err[512] = "";
    char *formula = NULL;
    char *text = NULL;
    san_gen(tn, targ, &text, &formula, err, sizeof err);
    free(targ);
    if (!text)
        return tool_usage_error("gen", "%s", err[0] ? err : "out of memory");

    /* --size replaces the text on stdout, not the file of -o. */
    int status = A.dialect ? to_dialect(&text, A.dialect) : EXIT_OK;
    if (status == EXIT_OK && (out || !size))
        status = tool_write_output(out, write_text, text);
    if (status == EXIT_OK && size)
        status = print_size(text, formula);
    free(text);
    free(formula);
    return status;
}
