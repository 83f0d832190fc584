/*
 * parse.c - numbers and sizes as users type them, one parser for every
 * subcommand (--max-memory 1T used to work in solve and fail in sweep).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "base.h"

int san_parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno == ERANGE || !(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

int san_parse_integer(const char *s, double lo, double hi, double *out)
{
    double v;
    if (san_parse_double(s, lo, hi, &v) < 0 || v != floor(v))
        return -1;
    *out = v;
    return 0;
}

int san_parse_bytes(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !(v > 0) || !isfinite(v))
        return -1;
    double unit = 1;
    switch (*end) {
    case 'k': case 'K': unit = 1024.0; break;
    case 'm': case 'M': unit = 1024.0 * 1024; break;
    case 'g': case 'G': unit = 1024.0 * 1024 * 1024; break;
    case 't': case 'T': unit = 1024.0 * 1024 * 1024 * 1024; break;
    default: break;
    }
    if (unit > 1) {
        end++;
        if (*end == 'i')        /* GiB */
            end++;
    }
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end || !(v * unit < 1e30))
        return -1;
    *out = v * unit;
    return 0;
}
