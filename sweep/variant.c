/*
 * variant.c - one variant's model: the template's text generated for the
 * variant's values (or the model file's), compiled with its -D
 * overrides, its warnings kept once for the sweep; or, for a closed form
 * of analytic/, its evaluation.  A leaf of sweep/: the preparation
 * (spec.c) and the run (run.c) both compile variants.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/services.h"
#include "sweep/sweep_int.h"

/* The template's argv: its name and its applicable flags; NULL when out
 * of memory (free it, not its words). */
static char **template_argv(const san_sweep_spec *sp, const char *const *vals, int *argc)
{
    char **argv = malloc((2 * sp->naxes + 2) * sizeof *argv);
    if (!argv)
        return NULL;
    *argc = 0;
    argv[(*argc)++] = sp->tmpl;
    for (int a = 0; a < sp->naxes; a++)
        if (!sp->axis[a].is_define && vals[a]) {
            argv[(*argc)++] = sp->axis[a].flag;
            argv[(*argc)++] = (char *)vals[a];
        }
    argv[*argc] = NULL;
    return argv;
}

int sweep_is_analytic(const san_sweep_spec *sp)
{
    return sp->tmpl && san_analytic_is_model(sp->tmpl);
}

san_status sweep_analytic(const san_sweep_spec *sp, const char *const *vals,
                          san_analytic_results *res, char *msg, size_t n)
{
    memset(res, 0, sizeof *res);
    for (int a = 0; a < sp->naxes; a++)
        if (sp->axis[a].is_define && vals[a]) {
            sweep_err(msg, n, "-D %s: a closed form has no constants; give its flags",
                      sp->axis[a].flag);
            return SAN_E_USAGE;
        }
    int argc;
    char **argv = template_argv(sp, vals, &argc);
    if (!argv) {
        sweep_err(msg, n, "out of memory");
        return SAN_E_NOMEM;
    }
    san_status st = san_analytic_eval(argc, argv, res, msg, n);
    free(argv);
    return st;
}

static char *generate(const san_sweep_spec *sp, const char *const *vals, char *msg, size_t n)
{
    int argc;
    char **argv = template_argv(sp, vals, &argc);
    if (!argv) {
        sweep_err(msg, n, "out of memory");
        return NULL;
    }
    char *text = NULL;
    san_gen(argc, argv, &text, NULL, msg, n);
    free(argv);
    return text;
}

/* The first error of a diagnostic list, with its position. */
void sweep_first_error(const san_diag *d, char *msg, size_t n)
{
    for (int i = 0; i < d->n; i++)
        if (d->items[i].sev == SAN_ERROR) {
            if (d->items[i].line > 0)
                snprintf(msg, n, "%s:%d:%d: %s", d->file, d->items[i].line, d->items[i].col,
                         d->items[i].msg);
            else
                snprintf(msg, n, "%s", d->items[i].msg);
            return;
        }
    snprintf(msg, n, "failed");
}

/* Add line to the sweep's warnings unless it is there (a few distinct
 * warnings, many variants: a scan does). */
static void keep_warning(san_sweep *s, char *line)
{
    for (int i = 0; i < s->nwarnings; i++)
        if (!strcmp(s->warnings[i], line)) {
            free(line);
            return;
        }
    char **w = realloc(s->warnings, (s->nwarnings + 1) * sizeof *w);
    if (!w) {
        free(line);
        return;
    }
    s->warnings = w;
    s->warnings[s->nwarnings++] = line;
}

/* Source order, as san check prints them (stable: ties keep theirs). */
static int by_position(const void *x, const void *y)
{
    const san_diag_item *a = *(san_diag_item *const *)x, *b = *(san_diag_item *const *)y;
    if (a->line != b->line)
        return (a->line > b->line) - (a->line < b->line);
    if (a->col != b->col)
        return (a->col > b->col) - (a->col < b->col);
    return (a > b) - (a < b);
}

static void keep_warnings(san_sweep *s, const san_diag *d, int generated)
{
    const san_diag_item **order = s && d->n ? malloc(d->n * sizeof *order) : NULL;
    if (!order)
        return;
    for (int i = 0; i < d->n; i++)
        order[i] = &d->items[i];
    qsort(order, d->n, sizeof *order, by_position);
    for (int i = 0; i < d->n; i++) {
        const san_diag_item *it = order[i];
        if (it->sev != SAN_WARNING)
            continue;
        char *line = generated || it->line <= 0
                         ? sweep_strf("%s: warning: %s", d->file, it->msg)
                         : sweep_strf("%s:%d:%d: warning: %s", d->file, it->line, it->col,
                                      it->msg);
        if (line)
            keep_warning(s, line);
    }
    free(order);
}

san_model *sweep_compile(const san_sweep_spec *sp, const char *const *vals,
                         const san_sweep_opts *o, san_sweep *keep, char *msg, size_t n)
{
    char *gen = sp->tmpl ? generate(sp, vals, msg, n) : NULL;
    if (sp->tmpl && !gen)
        return NULL;
    const char *text = gen ? gen : sp->text;
    size_t len = gen ? strlen(gen) : sp->len;
    /* The compiler marks the definitions it used: a copy per call keeps
     * concurrent variants apart. */
    san_define *defs = calloc(sp->naxes + 1, sizeof *defs);
    int nd = 0;
    for (int a = 0; defs && a < sp->naxes; a++)
        if (sp->axis[a].is_define && vals[a]) {
            defs[nd].name = sp->axis[a].flag;
            defs[nd++].value = strtod(vals[a], NULL);
        }
    /* a PRISM model: the values are its constants, which set the
     * structure: imported per variant (gen/prism.c) */
    char *imported = NULL;
    if (!gen && defs && sp->path && san_is_prism_path(sp->path)) {
        san_diag pd;
        san_diag_init(&pd, sp->path, sp->text, sp->len);
        if (san_import_prism(sp->path, sp->text, sp->len, defs, nd, NULL, &imported, &pd) !=
            SAN_OK) {
            if (pd.nerrors)
                sweep_first_error(&pd, msg, n);
            else
                snprintf(msg, n, "out of memory");
            san_diag_clear(&pd);
            free(defs);
            return NULL;
        }
        san_diag_clear(&pd);
        text = imported;
        len = strlen(imported);
        nd = 0;
    }
    san_load_opts lo;
    san_load_opts_default(&lo);
    lo.defs = defs;
    lo.ndefs = nd;
    lo.peps_warnings = !(o && o->no_peps_warnings) && !imported;
    san_diag d;
    san_diag_init(&d, gen ? "<gen>" : sp->path, text, len);
    san_model *m = defs ? san_model_load(text, len, &d, &lo) : NULL;
    if (!defs)
        snprintf(msg, n, "out of memory");
    else if (!m)
        sweep_first_error(&d, msg, n);
    for (int i = 0; m && i < nd; i++)
        if (!defs[i].used) {
            char why[1024];
            san_model_define_why(m, defs[i].name, defs[i].value, why, sizeof why);
            snprintf(msg, n, "-D %s: %s", defs[i].name, why);
            san_model_free(m);
            m = NULL;
        }
    if (m && o && o->peers)
        san_model_lint_peers(m, text, len, &d);
    if (m)
        keep_warnings(keep, &d, gen != NULL);
    san_diag_clear(&d);
    free(defs);
    free(gen);
    free(imported);
    return m;
}
