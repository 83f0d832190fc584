/*
 * values.c - the values of a swept flag: ranges a..b and a..b:step,
 * lists a,b,c (whose items may be ranges), and the small helpers of the
 * sweep code (messages, formatted strings, the clock, word splitting).
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "base/services.h"
#include "sweep/sweep_int.h"

int sweep_opts_foreign(const san_sweep_opts *o, char *err, size_t n)
{
    return BASE_OPTS_FOREIGN(o, "sweep", "san_sweep_opts_default", err, n);
}

void sweep_err(char *err, size_t n, const char *fmt, ...)
{
    if (!err || !n)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

char *sweep_strf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (need < 0)
        return NULL;
    char *s = malloc((size_t)need + 1);
    if (!s)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)need + 1, fmt, ap);
    va_end(ap);
    return s;
}


int sweep_split_words(char *s, char ***argv)
{
    int n = 0, cap = 8;
    char **v = malloc(cap * sizeof *v);
    if (!v)
        return -1;
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\n')
            s++;
        if (!*s)
            break;
        char q = (*s == '\'' || *s == '"') ? *s++ : 0;
        char *w = s;
        while (*s && (q ? *s != q : (*s != ' ' && *s != '\t' && *s != '\n')))
            s++;
        if (*s)
            *s++ = '\0';
        if (n + 1 >= cap) {
            char **p = realloc(v, (cap *= 2) * sizeof *v);
            if (!p) {
                free(v);
                return -1;
            }
            v = p;
        }
        v[n++] = w;
    }
    v[n] = NULL;
    *argv = v;
    return n;
}

/* ------------------------------------------------------------------ */
/* Value lists                                                          */
/* ------------------------------------------------------------------ */

typedef struct {
    char **v;
    int n, cap;
} vlist;

static int vlist_add(vlist *l, char *s)
{
    if (!s)
        return -1;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        char **p = realloc(l->v, cap * sizeof *p);
        if (!p) {
            free(s);
            return -1;
        }
        l->v = p;
        l->cap = cap;
    }
    l->v[l->n++] = s;
    return 0;
}

void san_sweep_values_free(char **values, int n)
{
    for (int i = 0; values && i < n; i++)
        free(values[i]);
    free(values);
}

/* Two neighbours of a range printed alike: the step is below the
 * precision of the values (1e20..1e20+10 would give eleven 1e+20). */
static int step_too_fine(const vlist *l)
{
    return l->n >= 2 && !strcmp(l->v[l->n - 1], l->v[l->n - 2]);
}

/* The numbers of a..b:step (san_parse_range), written so that
 * 0.1..0.3:0.1 gives 0.1, 0.2, 0.3 (12 significant digits hide the
 * binary rounding of i * step) and integer ranges print as integers.
 * a..b/step, the spelling san transient had, is refused here: a value
 * of -D may hold a '/' of its own, and a sweep has no warning channel
 * for the values of its flags. */
static int expand_range(const char *flag, const char *item, vlist *out, char *err, size_t n)
{
    san_range r;
    char why[256];
    if (san_parse_range(item, -DBL_MAX, DBL_MAX, &r, why, sizeof why) < 0) {
        sweep_err(err, n, "%s: %s", flag, why);
        return -1;
    }
    if (r.count > SWEEP_MAX_VALUES) {
        if (isfinite(r.count))
            sweep_err(err, n, "%s: range '%s' has %.0f values (at most %d)", flag, item, r.count,
                      SWEEP_MAX_VALUES);
        else
            sweep_err(err, n, "%s: range '%s' has more values than a double counts (at most %d)",
                      flag, item, SWEEP_MAX_VALUES);
        return -1;
    }
    if (r.old_spelling) {
        sweep_err(err, n, "%s: bad range '%s': the step follows ':' (a..b:step)", flag, item);
        return -1;
    }
    int integral = r.a == floor(r.a) && r.step == floor(r.step) && fabs(r.a) < 1e15 &&
                   fabs(r.b) < 1e15;
    int first = out->n;
    for (long i = 0; i < (long)r.count; i++) {
        double x = san_range_at(&r, i);
        char *s = integral ? sweep_strf("%.0f", x) : sweep_strf("%.12g", x);
        if (vlist_add(out, s) < 0) {
            sweep_err(err, n, "out of memory");
            return -1;
        }
        if (out->n - first >= 2 && step_too_fine(out)) {
            sweep_err(err, n, "%s: bad range '%s': the step %g is below the precision of its "
                      "values (two of them read %s)", flag, item, r.step, out->v[out->n - 1]);
            return -1;
        }
    }
    return 0;
}

/* One item of a list: a range, or a value taken as it is. */
static int add_item(const char *flag, const char *item, int may_range, vlist *out,
                    char *err, size_t n)
{
    if (!*item) {
        sweep_err(err, n, "%s: empty value in the list", flag);
        return -1;
    }
    if (may_range && strstr(item, ".."))
        return expand_range(flag, item, out, err, n);
    if (vlist_add(out, strdup(item)) < 0) {
        sweep_err(err, n, "out of memory");
        return -1;
    }
    return 0;
}

/* Split text on any of seps and add each item. */
static int split_items(const char *flag, const char *text, const char *seps, int may_range,
                       vlist *out, char *err, size_t n)
{
    char *copy = strdup(text);
    if (!copy) {
        sweep_err(err, n, "out of memory");
        return -1;
    }
    int rc = 0;
    char *p = copy;
    for (;;) {
        size_t len = strcspn(p, seps);
        char save = p[len];
        p[len] = '\0';
        rc = add_item(flag, p, may_range, out, err, n);
        if (rc < 0 || !save)
            break;
        p += len + 1;
    }
    free(copy);
    return rc;
}

int san_sweep_values(const char *flag, const char *text, int list_valued,
                     char ***values, char *err, size_t n)
{
    vlist l = { 0 };
    /* A value that is itself a list (1,2,1) is never a range. */
    int rc = split_items(flag, text, list_valued ? ";" : ",;", !list_valued, &l, err, n);
    if (rc == 0 && l.n > SWEEP_MAX_VALUES) {
        sweep_err(err, n, "%s: %d values (at most %d)", flag, l.n, SWEEP_MAX_VALUES);
        rc = -1;
    }
    if (rc < 0) {
        san_sweep_values_free(l.v, l.n);
        return -1;
    }
    *values = l.v;
    return l.n;
}
