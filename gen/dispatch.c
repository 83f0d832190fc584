/*
 * dispatch.c - the model generators' entry: a template's name to its
 * generator (ms.c, pipeline.c), and the help of them all.
 */
#include <stdio.h>
#include <string.h>
#include "san.h"
#include "gen/gen_int.h"

char *gen_run(int argc, char **argv, char **size, char *err, size_t n)
{
    if (size)
        *size = NULL;
    if (argc < 1 || !argv[0]) {
        gen_err(err, n, "missing template: ms or pipeline");
        return NULL;
    }
    if (!strcmp(argv[0], "ms"))
        return gen_ms(argc, argv, size, err, n);
    if (!strcmp(argv[0], "pipeline"))
        return gen_pipeline(argc, argv, size, err, n);
    gen_err(err, n, "unknown template '%s' (ms or pipeline)", argv[0]);
    return NULL;
}

san_status san_gen(int argc, char **argv, char **text, char **size, char *err, size_t n)
{
    *text = gen_run(argc, argv, size, err, n);
    if (*text)
        return SAN_OK;
    return strstr(err, "out of memory") ? SAN_E_NOMEM : SAN_E_USAGE;
}

void san_gen_help(FILE *out)
{
    fprintf(out,
        "templates:\n"
        "\n");
    gen_ms_help(out);
    fprintf(out, "\n");
    gen_pipeline_help(out);
    fprintf(out,
        "\n"
        "Flags take a value as '--flag VALUE' or '--flag=VALUE'.  Times are in\n"
        "seconds (any unit works if all times use it; rates are their inverses).\n"
        "Ranges: times and rates %g..%g; counts (buffers, replicas, slices,\n"
        "capacities) 1..%ld; probabilities 0 or %g..1-%g; the product\n"
        "space at most 2^63-1 states (the solver's 64-bit state indices).  A\n"
        "value outside is refused (exit 2) with the flag, the range and the reason.\n"
        "The indices each template emits, and its product-space size, are\n"
        "documented in doc/indices.md.\n", GEN_TIME_MIN, GEN_TIME_MAX, GEN_MAX_COUNT,
        GEN_PROB_EPS, GEN_PROB_EPS);
}
