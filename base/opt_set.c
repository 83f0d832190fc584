/*
 * opt_set.c - one keyed setter for every options struct a binding fills
 * (issue 30 item 4): san_analysis_opts_set(o, "tol", "1e-12", msg, n)
 * and its kin look the key up in their table and write the field at its
 * offset, so that no caller outside the library depends on where a
 * field is.  Values are text, read by the command's own parsers, with
 * its words for the enumerations ("kron", "off", "always"): a binding
 * holds neither a layout nor an enum value.
 */
#include <stdio.h>
#include <string.h>
#include "base/services.h"

static const base_opt *find(const base_opt *tab, const char *key)
{
    for (const base_opt *t = tab; t->key; t++)
        if (!strcmp(t->key, key))
            return t;
    return NULL;
}

static san_status unknown(const base_opt *tab, const char *key, char *msg, size_t n)
{
    san_suggest s;
    san_suggest_init(&s, key);
    for (const base_opt *t = tab; t->key; t++)
        san_suggest_add(&s, t->key);
    const char *best = san_suggest_best(&s);
    if (best)
        snprintf(msg, n, "unknown option '%s' (did you mean '%s'?)", key, best);
    else
        snprintf(msg, n, "unknown option '%s'", key);
    return SAN_E_USAGE;
}

static void store(const base_opt *t, void *obj, double v)
{
    char *p = (char *)obj + t->off;
    switch (t->store) {
    case BASE_OPT_DOUBLE: *(double *)p = v; break;
    case BASE_OPT_INT: *(int *)p = (int)v; break;
    case BASE_OPT_LONG: *(long *)p = (long)v; break;
    case BASE_OPT_INT64: *(int64_t *)p = (int64_t)v; break;
    }
}

/* The index of value among t->words (or what t->parse makes of it); -1. */
static int word_of(const base_opt *t, const char *value)
{
    if (t->parse) {
        int v;
        return t->parse(value, &v) == 0 ? v : -1;
    }
    for (int i = 0; t->words[i]; i++)
        if (!strcmp(t->words[i], value))
            return i;
    return -1;
}

/* msg = "KEY: expected auto, sparse or kron, not 'VALUE'" (no static
 * buffer: the setters may run in several threads at once). */
static void words_message(const base_opt *t, const char *value, char *msg, size_t n)
{
    size_t k = (size_t)snprintf(msg, n, "%s: expected ", t->key);
    for (int i = 0; t->words[i] && k < n; i++)
        k += (size_t)snprintf(msg + k, n - k, "%s%s",
                              i == 0 ? "" : t->words[i + 1] ? ", " : " or ", t->words[i]);
    if (k < n)
        snprintf(msg + k, n - k, ", not '%s'", value);
}

static san_status set_word(const base_opt *t, void *obj, const char *value, char *msg,
                           size_t n)
{
    int w = word_of(t, value);
    if (w < 0 && t->words) {
        words_message(t, value, msg, n);
        return SAN_E_USAGE;
    }
    if (w < 0) {
        snprintf(msg, n, "%s: unknown value '%s'", t->key, value);
        return SAN_E_USAGE;
    }
    store(t, obj, w);
    return SAN_OK;
}

static san_status set_number(const base_opt *t, void *obj, const char *value, char *msg,
                             size_t n)
{
    int whole = t->kind == BASE_OPT_INTEGER;
    double v;
    if (t->zero_ok && san_parse_double(value, 0, 0, &v) == 0) {
        store(t, obj, 0);
        return SAN_OK;
    }
    int bad = whole ? san_parse_integer(value, t->lo, t->hi, &v)
                    : san_parse_double(value, t->lo, t->hi, &v);
    if (bad) {
        snprintf(msg, n, "%s: expected a %s in [%g, %g]%s, not '%s' (%s)", t->key,
                 whole ? "whole number" : "number", t->lo, t->hi, t->zero_ok ? " or 0" : "",
                 value, san_parse_why(value, t->lo, t->hi, whole));
        return SAN_E_USAGE;
    }
    store(t, obj, v);
    return SAN_OK;
}

san_status base_opt_set(const base_opt *tab, void *obj, const char *key, const char *value,
                        char *msg, size_t n)
{
    if (msg && n)
        msg[0] = 0;
    char dummy[1];
    if (!msg || !n) {
        msg = dummy;
        n = sizeof dummy;
    }
    const base_opt *t = key ? find(tab, key) : NULL;
    if (!t)
        return unknown(tab, key ? key : "", msg, n);
    if (!value) {
        snprintf(msg, n, "%s: no value", key);
        return SAN_E_USAGE;
    }
    return t->kind == BASE_OPT_WORD ? set_word(t, obj, value, msg, n)
                                    : set_number(t, obj, value, msg, n);
}

int base_opts_foreign(size_t got, size_t want, const char *what, const char *init, char *msg,
                      size_t n)
{
    if (got == want)
        return 0;
    if (msg && n)
        snprintf(msg, n, "the %s options are not libsan's (struct_size %zu, expected %zu): "
             "fill them with %s", what, got, want, init);
    return 1;
}
