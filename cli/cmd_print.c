/*
 * cmd_print.c - `san print MODEL`: the model as normalized .san text.
 */
#include <getopt.h>
#include <stdlib.h>
#include "cli.h"

void help_print(FILE *out)
{
    fprintf(out,
        "usage: san print [options] MODEL\n"
        "\n"
        "Check a model and print it back as normalized .san text: every\n"
        "expression fully parenthesized, one transition per line.  Printing a\n"
        "printed model gives the same text; both compile to the same model.\n"
        "\n"
        "  -D NAME=VALUE        override a constant (printed with its new value)\n"
        "  -o, --output FILE    write to FILE instead of standard output\n"
        "  -h, --help           this help\n");
}

static void print_model(const void *m, FILE *out)
{
    san_model_print(m, out);
}

int cmd_print(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "output", required_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    cli_defines defs = { 0 };
    const char *outpath = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "D:o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'D':
            if (cli_define_add(&defs, optarg) < 0)
                return cli_usage_error("print", "-D: expected NAME=NUMBER, not '%s'", optarg);
            break;
        case 'o':
            outpath = optarg;
            break;
        case 'h':
            help_print(stdout);
            return EXIT_OK;
        default:
            return cli_usage_error("print", "unknown option");
        }
    }
    if (optind != argc - 1)
        return cli_usage_error("print", optind >= argc ? "missing MODEL" : "expected one MODEL");
    int status = EXIT_OK;
    san_model *m = cli_load_model(argv[optind], &defs, &status, 1);
    cli_defines_free(&defs);
    if (!m)
        return status;
    status = cli_write_output(outpath, print_model, m);
    san_model_free(m);
    return status;
}
