/*
 * words.c - option words the subcommands share: --format, --petsc-matrix,
 * and a report figure that may be "not computed" (JSON null).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tool/tool.h"

int tool_parse_format(const char *s, tool_format *f, int allow_csv)
{
    if (!strcmp(s, "text"))
        *f = FMT_TEXT;
    else if (!strcmp(s, "json"))
        *f = FMT_JSON;
    else if (allow_csv && !strcmp(s, "csv"))
        *f = FMT_CSV;
    else
        return -1;
    return 0;
}

void tool_json_figure(FILE *out, double v)
{
    if (isnan(v))
        fputs("null", out);
    else
        san_json_num(out, v);
}

int tool_engine_matrix(const char *word)
{
    return !strcmp(word, "auto") ? SAN_EMATRIX_AUTO : !strcmp(word, "aij") ? SAN_EMATRIX_AIJ
           : !strcmp(word, "shell") ? SAN_EMATRIX_SHELL : -1;
}
