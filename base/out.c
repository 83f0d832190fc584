/*
 * out.c - the writers of machine-readable output: JSON strings and
 * numbers, CSV fields.  Numbers are written with 17 significant digits,
 * which read back to the same double; infinities and NaN as the strings
 * "inf", "-inf", "nan" (doc/output.md).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "base/services.h"

void san_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '"':  fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (*p < 0x20)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out);
        }
    }
    fputc('"', out);
}

void san_json_num(FILE *out, double v)
{
    /* JSON has no number for these: strings a reader can tell apart
     * from null (not computed), the same in every report */
    if (isfinite(v))
        fprintf(out, "%.17g", v);
    else if (isnan(v))
        fputs("\"nan\"", out);
    else
        fputs(v > 0 ? "\"inf\"" : "\"-inf\"", out);
}

void san_json_size(FILE *out, const char *digits)
{
    /* a size beyond 2^53 is exact only as digits; the double is for
     * plots and comparisons */
    digits = digits ? digits : "";
    fputs("{ \"digits\": ", out);
    san_json_string(out, digits);
    fputs(", \"approx\": ", out);
    san_json_num(out, strtod(digits, NULL));
    fputs(" }", out);
}

void san_csv_field(FILE *out, const char *s)
{
    s = s ? s : "";
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}
