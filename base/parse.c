/*
 * parse.c - numbers and sizes as users type them, one parser for every
 * subcommand (--max-memory 1T used to work in solve and fail in sweep),
 * the reason a refused one is refused, and sizes written back for people.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/services.h"

/* What strtod makes of the whole of s. */
typedef enum { NUM_OK, NUM_SYNTAX, NUM_NAN, NUM_INF, NUM_UNDERFLOW } num_kind;

static num_kind read_number(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end)
        return NUM_SYNTAX;
    if (isnan(v))
        return NUM_NAN;
    /* "inf", or a finite text past DBL_MAX (ERANGE, HUGE_VAL) */
    if (isinf(v))
        return NUM_INF;
    /* ERANGE with a zero result: a nonzero text rounded to 0.  ERANGE with
     * a nonzero result is a subnormal: the nearest double, kept (glibc
     * flags every inexact subnormal, 1e-308 included). */
    if (errno == ERANGE && v == 0)
        return NUM_UNDERFLOW;
    *out = v;
    return NUM_OK;
}

int san_parse_double(const char *s, double lo, double hi, double *out)
{
    double v;
    if (!s || read_number(s, &v) != NUM_OK || !(v >= lo && v <= hi))
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

const char *san_parse_why(const char *s, double lo, double hi, int whole)
{
    double v = 0;
    switch (s ? read_number(s, &v) : NUM_SYNTAX) {
    case NUM_SYNTAX:
        return "not a number";
    case NUM_NAN:
        return "not a number";
    case NUM_INF:
        return "infinite, or too large for a double: beyond 1.8e308";
    case NUM_UNDERFLOW:
        return "too small: it rounds to 0, the smallest positive double being 4.9e-324";
    case NUM_OK:
        break;
    }
    if (!(v >= lo && v <= hi))
        return v < lo ? "too small" : "too large";
    if (whole && v != floor(v))
        return "not a whole number";
    return NULL;
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
    /* Less than a byte is no limit anyone means (0.001 was taken as a
     * thousandth of a byte); 1e30 is far past any machine. */
    if (*end || !(v * unit >= 1) || !(v * unit < 1e30))
        return -1;
    *out = v * unit;
    return 0;
}

const char *san_format_bytes(double bytes, char *buf, size_t n)
{
    static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
    enum { LAST = sizeof unit / sizeof unit[0] - 1 };
    if (!isfinite(bytes) || bytes < 0) {
        snprintf(buf, n, "? B");
        return buf;
    }
    /* The largest unit the size is at least one of, so that the number
     * is never 0.00 (a limit of 1k read "0.00 GiB"); three significant
     * digits tell a need from a limit near it. */
    int u = 0;
    double x = bytes;
    while (x >= 1024 && u < LAST) {
        x /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, n, "%.0f B", x);
    else if (x < 9.995)
        snprintf(buf, n, "%.2f %s", x, unit[u]);
    else if (x < 99.95)
        snprintf(buf, n, "%.1f %s", x, unit[u]);
    else
        snprintf(buf, n, "%.0f %s", x, unit[u]);
    return buf;
}
