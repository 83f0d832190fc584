/*
 * numbers.c - the lists of numbers a flag takes (san transient's --time,
 * san passage's --percentiles): items separated by commas, each a number
 * or a range a..b:step (san_parse_range, the range of every flag).
 */
#include <stdlib.h>
#include <string.h>
#include "tool/tool.h"

int tool_numbers_add(tool_numbers *l, double x)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        double *p = realloc(l->v, cap * sizeof *p);
        if (!p)
            return -1;
        l->v = p;
        l->cap = cap;
    }
    l->v[l->n++] = x;
    return 0;
}

void tool_numbers_free(tool_numbers *l)
{
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* Points of a..b:step; the old spelling a..b/step sets *old for the
 * caller's warning.  0, or -1 with why. */
static int add_range(tool_numbers *l, const char *item, int *old, char *why, size_t n)
{
    san_range r;
    if (san_parse_range(item, 0, 1e300, &r, why, n) < 0)
        return -1;
    if (r.count > 1e6) {
        snprintf(why, n, "range '%s' has %.3g times (at most 1000000)", item, r.count);
        return -1;
    }
    *old |= r.old_spelling;
    for (long k = 0; k < (long)r.count; k++)
        if (tool_numbers_add(l, san_range_at(&r, k)) < 0) {
            snprintf(why, n, "out of memory");
            return -1;
        }
    return 0;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

void tool_numbers_sort(tool_numbers *l)
{
    qsort(l->v, l->n, sizeof *l->v, cmp_double);
}

int tool_numbers_insert(tool_numbers *l, double x)
{
    if (tool_numbers_add(l, x) < 0)
        return -1;
    tool_numbers_sort(l);
    return 0;
}

int tool_numbers_times(const char *list, tool_numbers *l, int *old, char *why, size_t n)
{
    char *copy = strdup(list), *save = NULL;
    if (!copy)
        return -1;
    int rc = 0;
    for (char *it = strtok_r(copy, ",", &save); it && rc == 0; it = strtok_r(NULL, ",", &save)) {
        double t;
        if (strstr(it, ".."))
            rc = add_range(l, it, old, why, n);
        else if (san_parse_double(it, 0, 1e300, &t) == 0)
            rc = tool_numbers_add(l, t);
        else {
            snprintf(why, n, "'%s' is %s", it, san_parse_why(it, 0, 1e300, 0));
            rc = -1;
        }
    }
    free(copy);
    if (rc == 0 && l->n == 0) {
        snprintf(why, n, "no time given");
        rc = -1;
    }
    if (rc == 0) {
        tool_numbers_sort(l);
        int k = 0;
        for (int i = 0; i < l->n; i++)
            if (k == 0 || l->v[i] != l->v[k - 1])
                l->v[k++] = l->v[i];
        l->n = k;
    }
    return rc;
}

int tool_numbers_percents(const char *list, tool_numbers *l)
{
    char *copy = strdup(list), *save = NULL;
    if (!copy)
        return -1;
    int rc = 0;
    for (char *it = strtok_r(copy, ",", &save); it && rc == 0; it = strtok_r(NULL, ",", &save)) {
        double p;
        if (san_parse_double(it, 0, 100, &p) || !(p > 0 && p < 100))
            rc = -1;
        else
            rc = tool_numbers_add(l, p / 100);
    }
    free(copy);
    if (rc == 0 && l->n == 0)
        rc = -1;
    if (rc == 0)
        tool_numbers_sort(l);
    return rc;
}
