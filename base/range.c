/*
 * range.c - a range of numbers as every flag that takes a list writes
 * it: a..b (step 1) or a..b:step.  `san sweep -D x=0..1:0.5` and
 * `san transient --time 0..1/0.5` had two parsers, each refusing the
 * other's spelling (issue 30); a..b/step, the transient's, is still read
 * and flagged, so that the callers warn instead of refusing.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "base/services.h"

/* One end or the step: a number in [lo, hi]; 0, or -1 with why. */
static int range_part(const char *item, const char *what, const char *s, double lo, double hi,
                      double *out, char *why, size_t n)
{
    if (san_parse_double(s, lo, hi, out) == 0)
        return 0;
    snprintf(why, n, "bad range '%s': expected a..b or a..b:step with numbers (%s '%s' is %s)",
             item, what, s, san_parse_why(s, lo, hi, 0));
    return -1;
}

int san_parse_range(const char *s, double lo, double hi, san_range *r, char *why, size_t n)
{
    char buf[128];
    memset(r, 0, sizeof *r);
    r->step = 1;
    if (strlen(s) >= sizeof buf) {
        snprintf(why, n, "range too long: '%.40s...'", s);
        return -1;
    }
    strcpy(buf, s);
    char *dots = strstr(buf, "..");
    if (!dots) {
        snprintf(why, n, "'%s' is not a range a..b or a..b:step", s);
        return -1;
    }
    *dots = '\0';
    char *tail = dots + 2, *sep = strpbrk(tail, ":/");
    if (sep) {
        r->old_spelling = *sep == '/';
        *sep = '\0';
    }
    if (range_part(s, "the start", buf, lo, hi, &r->a, why, n) < 0 ||
        range_part(s, "the end", tail, lo, hi, &r->b, why, n) < 0 ||
        (sep && range_part(s, "the step", sep + 1, -HUGE_VAL, HUGE_VAL, &r->step, why, n) < 0))
        return -1;
    if (!(r->step > 0)) {
        snprintf(why, n, "bad range '%s': the step must be > 0", s);
        return -1;
    }
    if (r->b < r->a) {
        snprintf(why, n, "bad range '%s': empty (%g > %g)", s, r->a, r->b);
        return -1;
    }
    /* b itself when rounding leaves it a hair past the last step
     * (0.1..0.3:0.1 has 3 points, 2.011e-12..0.15:0.05 ends at 0.15) */
    r->count = floor((r->b - r->a) / r->step * (1 + 1e-12) + 1e-9) + 1;
    return 0;
}

double san_range_at(const san_range *r, long i)
{
    /* + 0.0: -0 is written 0; the last point is b, never past it */
    return fmin(r->a + i * r->step, r->b) + 0.0;
}
