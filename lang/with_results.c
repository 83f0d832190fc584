/*
 * with_results.c - a model text with expressions appended as results:
 * how a state selection given outside the model (san transient --until
 * 'EXPR', Python's Model.passage(until=...)) is compiled in the model's
 * own scope, with its constants, automata and functions.
 *
 * A results entry can go in one of three places: a new block (the model
 * has none), after a last entry ended by ';', or after one that is not
 * (the grammar allows the last without it).  Which one fits is found by
 * compiling the text with a constant probe in each place: cheap (no state
 * space), and exact where reading the grammar's state from the text
 * would not be (comments, strings).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "san/model.h"
#include "base/services.h"

static const char *const head[3] = { "\nresults\n", "\n", ";\n" };

/* The text with the entries appended in place `variant`; at[i] where
 * expression i starts (at NULL: not wanted).  NULL when out of memory. */
static char *append(const char *text, size_t len, int variant, const char *const *names,
                    const char *const *exprs, int n, size_t *outlen, san_text_pos *at)
{
    size_t need = len + 16;
    for (int i = 0; i < n; i++)
        need += strlen(names[i]) + strlen(exprs[i]) + 16;
    char *t = malloc(need);
    if (!t)
        return NULL;
    memcpy(t, text, len);
    size_t k = len;
    k += (size_t)sprintf(t + k, "%s", head[variant]);
    int line = 1;
    for (size_t c = 0; c < k; c++)
        line += t[c] == '\n';
    for (int i = 0; i < n; i++) {
        int lead = sprintf(t + k, "  %s = (", names[i]);
        if (at) {
            at[i].line = line;
            at[i].col = lead + 1;
        }
        k += (size_t)sprintf(t + k, "  %s = (%s);\n", names[i], exprs[i]);
        for (const char *c = exprs[i]; *c; c++)
            line += *c == '\n';
        line++;
    }
    *outlen = k;
    return t;
}

/* Does the text compile with a constant result in place `variant`? */
static int fits(const char *text, size_t len, int variant, const san_load_opts *opt)
{
    static const char *const probe_name[1] = { "__san_probe" }, *const probe[1] = { "0" };
    size_t l;
    char *t = append(text, len, variant, probe_name, probe, 1, &l, NULL);
    if (!t)
        return 0;
    san_diag d;
    san_diag_init(&d, "", t, l);
    san_load_opts o;
    if (opt)
        o = *opt;
    else
        san_load_opts_default(&o);
    o.peps_warnings = 0;
    o.progress = 0;
    san_model *m = san_model_load(t, l, &d, &o);
    int ok = m != NULL;
    san_model_free(m);
    san_diag_clear(&d);
    free(t);
    return ok;
}

san_status san_text_with_results(const char *text, size_t len, const san_load_opts *opt,
                                 const char *const *names, const char *const *exprs, int n,
                                 char **out, size_t *outlen, san_text_pos *at)
{
    *out = NULL;
    *outlen = 0;
    if (opt && BASE_OPTS_FOREIGN(opt, "load", "san_load_opts_default", NULL, 0))
        return SAN_E_USAGE;
    for (int v = 0; v < 3; v++)
        if (fits(text, len, v, opt)) {
            *out = append(text, len, v, names, exprs, n, outlen, at);
            return *out ? SAN_OK : SAN_E_NOMEM;
        }
    return SAN_E_MODEL;
}
