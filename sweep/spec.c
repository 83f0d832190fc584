/*
 * spec.c - what a sweep is made of: the flags and their values (axes),
 * the cartesian product of the values (variants), and the preparation
 * that compiles every variant once for its size and result names before
 * anything is solved.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/services.h"
#include "sweep/sweep_int.h"
#include "lang/model_int.h"

static const char *const templates[] = { "ms", "pipeline", NULL };

/* Flags of the templates whose own value is a comma list. */
static const struct { const char *tmpl, *flag; } list_flags[] = {
    { "pipeline", "--stages" }, { "pipeline", "--buffers" },
    { "pipeline", "--replicas" }, { "pipeline", "--group" },
};

/* A flag that only means something next to another flag's value.  When
 * that other flag is swept, the variants where it does not apply leave
 * the flag out (one row for sync, not one per buffer size) instead of
 * failing; when it is not swept the template's own message stands. */
static const struct { const char *tmpl, *flag, *when, *is; } rules[] = {
    { "ms", "--buffer", "--mode", "async" },
    { "ms", "--rate-down", "--work", "slices" },
    { "pipeline", "--buffer", "--mode", "async" },
    { "pipeline", "--buffers", "--mode", "async" },
};

int sweep_list_valued(const char *tmpl, const char *flag)
{
    for (size_t i = 0; tmpl && i < sizeof list_flags / sizeof list_flags[0]; i++)
        if (!strcmp(list_flags[i].tmpl, tmpl) && !strcmp(list_flags[i].flag, flag))
            return 1;
    return 0;
}

static int find_flag(const san_sweep_spec *sp, const char *flag)
{
    for (int a = 0; a < sp->naxes; a++)
        if (!sp->axis[a].is_define && !strcmp(sp->axis[a].flag, flag))
            return a;
    return -1;
}

int sweep_applies(const san_sweep_spec *sp, int axis, const char *const *vals)
{
    const san_sweep_axis *ax = &sp->axis[axis];
    if (ax->is_define || !sp->tmpl)
        return 1;
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        if (strcmp(rules[i].tmpl, sp->tmpl) || strcmp(rules[i].flag, ax->flag))
            continue;
        int w = find_flag(sp, rules[i].when);
        if (w >= 0 && sp->axis[w].nvalues > 1 && vals[w] && strcmp(vals[w], rules[i].is))
            return 0;
    }
    return 1;
}

/* ------------------------------------------------------------------ */
/* Parsing the flags                                                    */
/* ------------------------------------------------------------------ */

static void axis_free(san_sweep_axis *a)
{
    free(a->flag);
    free(a->name);
    san_sweep_values_free(a->values, a->nvalues);
}

/* A finite number, by the one parser (base/parse.c): what -D takes. */
static int is_number(const char *s)
{
    double v;
    return san_parse_double(s, -DBL_MAX, DBL_MAX, &v) == 0;
}

/* Append an axis named flag (or -D name) with the values of text. */
static int add_axis(san_sweep_spec *sp, const char *flag, int is_define, const char *text,
                    char *err, size_t n)
{
    char label[96];
    snprintf(label, sizeof label, "%s%s", is_define ? "-D " : "", flag);
    for (int a = 0; a < sp->naxes; a++)
        if (sp->axis[a].is_define == is_define && !strcmp(sp->axis[a].flag, flag)) {
            sweep_err(err, n, "%s: given twice (give its values as one list)", label);
            return -2;
        }
    san_sweep_axis *p = realloc(sp->axis, (sp->naxes + 1) * sizeof *p);
    if (!p)
        return -1;
    sp->axis = p;
    san_sweep_axis *ax = &p[sp->naxes];
    memset(ax, 0, sizeof *ax);
    int nv = san_sweep_values(label, text, !is_define && sweep_list_valued(sp->tmpl, flag),
                              &ax->values, err, n);
    if (nv < 0)
        return -2;
    ax->nvalues = nv;
    ax->is_define = is_define;
    ax->flag = strdup(flag);
    ax->name = strdup(is_define ? flag : flag + 2);
    sp->naxes++;
    if (!ax->flag || !ax->name)
        return -1;
    ax->numeric = 1;
    for (int i = 0; i < nv; i++)
        ax->numeric &= is_number(ax->values[i]);
    if (is_define && !ax->numeric) {
        for (int i = 0; i < nv; i++)
            if (!is_number(ax->values[i]))
                sweep_err(err, n, "%s: '%s' is %s", label, ax->values[i],
                          san_parse_why(ax->values[i], -DBL_MAX, DBL_MAX, 0));
        return -2;
    }
    return 0;
}

/* -D NAME=VALUES */
static int add_define(san_sweep_spec *sp, const char *arg, char *err, size_t n)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1]) {
        sweep_err(err, n, "-D: expected NAME=VALUES such as lambda=1..4 or mu=2,3,5, not '%s'", arg);
        return -2;
    }
    char name[80];
    if ((size_t)(eq - arg) >= sizeof name) {
        sweep_err(err, n, "-D: name too long in '%.40s...'", arg);
        return -2;
    }
    memcpy(name, arg, eq - arg);
    name[eq - arg] = '\0';
    /* A constant the template's structure follows from (N_slaves) is
     * its flag's axis (--slaves): the model is regenerated per variant,
     * which -D could not do. */
    int scalar;
    const char *flag = sp->tmpl ? san_gen_structural(sp->tmpl, name, &scalar) : NULL;
    for (int a = 0; flag && scalar && a < sp->naxes; a++)
        if (!sp->axis[a].is_define && !strcmp(sp->axis[a].flag, flag)) {
            sweep_err(err, n, "-D %s: '%s' sets the structure of the %s model (its automata "
                      "and their states), which %s already gives: give its values there", name,
                      name, sp->tmpl, flag);
            return -2;
        }
    if (flag && scalar)
        return add_axis(sp, flag, 0, eq + 1, err, n);
    if (flag) {
        sweep_err(err, n, "-D %s: '%s' sets the structure of the %s model (its automata and "
                  "their states), which -D cannot change; sweep %s instead", name, name,
                  sp->tmpl, flag);
        return -2;
    }
    return add_axis(sp, name, 1, eq + 1, err, n);
}

/* --flag VALUES or --flag=VALUES; *i advances past a separate value. */
static int add_flag(san_sweep_spec *sp, int argc, char **argv, int *i, char *err, size_t n)
{
    const char *a = argv[*i];
    const char *eq = strchr(a, '=');
    char flag[80];
    size_t fl = eq ? (size_t)(eq - a) : strlen(a);
    if (fl >= sizeof flag) {
        sweep_err(err, n, "%.40s...: unknown flag", a);
        return -2;
    }
    memcpy(flag, a, fl);
    flag[fl] = '\0';
    if (!sp->tmpl) {
        sweep_err(err, n, "%s: a model file takes -D NAME=VALUES, not template flags", flag);
        return -2;
    }
    const char *val = eq ? eq + 1 : NULL;
    if (!val && *i + 1 < argc)
        val = argv[++*i];
    if (!val) {
        sweep_err(err, n, "%s: missing value", flag);
        return -2;
    }
    return add_axis(sp, flag, 0, val, err, n);
}

/* san_sweep_input_limit of options already checked (or NULL). */
static double input_limit(const san_sweep_opts *o)
{
    double limit = o && o->max_input > 0 ? o->max_input : SAN_MAX_INPUT_DEFAULT;
    if (o && o->space.max_memory > 0 && o->space.max_memory < limit)
        limit = o->space.max_memory;
    return limit;
}

san_status san_sweep_input_limit(const san_sweep_opts *o, double *limit, char *err, size_t n)
{
    if (o && sweep_opts_foreign(o, err, n))
        return SAN_E_USAGE;
    *limit = input_limit(o);
    return SAN_OK;
}

int san_sweep_is_template(const char *name)
{
    if (san_analytic_is_model(name))
        return 1;
    for (int t = 0; templates[t]; t++)
        if (!strcmp(name, templates[t]))
            return 1;
    return 0;
}

/* A template's name, or a model file read (san_read_input) under the
 * input limit; 0, -3 (the file cannot be used), -1 (reading failed, or
 * out of memory: with err). */
static int parse_target(san_sweep_spec *sp, const char *target, const san_sweep_opts *o,
                        char *err, size_t n)
{
    if (san_sweep_is_template(target)) {
        sp->tmpl = strdup(target);
        return sp->tmpl ? 0 : -1;
    }
    char msg[512];
    san_status st = san_read_input(target, input_limit(o), &sp->text, &sp->len,
                                   msg, sizeof msg);
    if (st == SAN_E_INPUT && errno == ENOENT) {
        sweep_err(err, n, "%s (nor a template: ms, pipeline, mw or cluster)", msg);
        return -3;
    }
    if (st == SAN_E_INPUT && errno == EFBIG) {
        double asked = o && o->max_input > 0 ? o->max_input : SAN_MAX_INPUT_DEFAULT;
        sweep_err(err, n, "%s; raise %s", msg,
                  input_limit(o) < asked ? "--max-memory" : "--max-input");
        return -3;
    }
    if (st != SAN_OK) {
        sweep_err(err, n, "%s", msg);
        return st == SAN_E_INPUT ? -3 : -1;
    }
    sp->path = strdup(target);
    return sp->path ? 0 : -1;
}

static int parse_spec(san_sweep_spec *sp, int argc, char **argv, const san_sweep_opts *o,
                      char *err, size_t n)
{
    if (argc < 1 || !argv[0] || !argv[0][0]) {
        sweep_err(err, n, "missing template (ms, pipeline, mw, cluster) or model file");
        return -2;
    }
    int rc = parse_target(sp, argv[0], o, err, n);
    for (int i = 1; rc == 0 && i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-D")) {
            if (i + 1 >= argc) {
                sweep_err(err, n, "-D: missing NAME=VALUES");
                return -2;
            }
            rc = add_define(sp, argv[++i], err, n);
        } else if (!strncmp(a, "-D", 2)) {
            rc = add_define(sp, a + 2, err, n);
        } else if (!strncmp(a, "--", 2) && a[2]) {
            rc = add_flag(sp, argc, argv, &i, err, n);
        } else {
            sweep_err(err, n, "unexpected argument '%s' (flags start with --, constants with -D)", a);
            rc = -2;
        }
    }
    if (rc == -1 && !(err && err[0]))
        sweep_err(err, n, "out of memory");
    return rc;
}

/* ------------------------------------------------------------------ */
/* Variants                                                             */
/* ------------------------------------------------------------------ */

void sweep_variant_values(const san_sweep *s, int v, const char **vals)
{
    for (int a = 0; a < s->spec.naxes; a++)
        vals[a] = s->pick[v][a] >= 0 ? s->spec.axis[a].values[s->pick[v][a]] : NULL;
}

/* Decode the k-th combination (last axis fastest), leave out the flags
 * that do not apply; returns 0 when the combination is a duplicate of an
 * earlier one (a left-out flag at other than its first value). */
static int decode(const san_sweep_spec *sp, long k, int *pick, const char **vals)
{
    for (int a = sp->naxes - 1; a >= 0; a--) {
        pick[a] = (int)(k % sp->axis[a].nvalues);
        k /= sp->axis[a].nvalues;
        vals[a] = sp->axis[a].values[pick[a]];
    }
    for (int a = 0; a < sp->naxes; a++)
        if (!sweep_applies(sp, a, vals)) {
            if (pick[a] != 0)
                return 0;
            pick[a] = -1;
        }
    return 1;
}

static int expand(san_sweep *s, char *err, size_t n)
{
    const san_sweep_spec *sp = &s->spec;
    double total = 1;
    for (int a = 0; a < sp->naxes; a++)
        total *= sp->axis[a].nvalues;
    if (total > SWEEP_MAX_VARIANTS) {
        sweep_err(err, n, "%.0f variants (at most %d): narrow the ranges", total, SWEEP_MAX_VARIANTS);
        return -2;
    }
    int na = sp->naxes ? sp->naxes : 1;
    int *pick = malloc(na * sizeof *pick);
    const char **vals = malloc(na * sizeof *vals);
    s->pick = malloc((size_t)total * sizeof *s->pick);
    if (!pick || !vals || !s->pick) {
        free(pick);
        free(vals);
        return -1;
    }
    int rc = 0;
    for (long k = 0; k < (long)total && rc == 0; k++) {
        if (!decode(sp, k, pick, vals))
            continue;
        int *copy = malloc(na * sizeof *copy);
        if (!copy) {
            rc = -1;
            break;
        }
        memcpy(copy, pick, na * sizeof *copy);
        s->pick[s->nvariants++] = copy;
    }
    free(pick);
    free(vals);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Preparation: compile every variant                                   */
/* ------------------------------------------------------------------ */

static int add_result_name(san_sweep *s, const char *name)
{
    for (int i = 0; i < s->nres; i++)
        if (!strcmp(s->res_name[i], name))
            return 0;
    char **p = realloc(s->res_name, (s->nres + 1) * sizeof *p);
    if (!p)
        return -1;
    s->res_name = p;
    if (!(p[s->nres] = strdup(name)))
        return -1;
    s->nres++;
    return 0;
}

/* A closed form's variants are evaluated at once (microseconds): their
 * result names come from the evaluation, their weights are equal. */
static int prepare_analytic(san_sweep *s, const char **vals, char *first, size_t n)
{
    for (int v = 0; v < s->nvariants; v++) {
        sweep_variant_values(s, v, vals);
        char msg[512];
        san_analytic_results res;
        san_status st = sweep_analytic(&s->spec, vals, &res, msg, sizeof msg);
        if (st == SAN_E_NOMEM)
            return -1;
        if (st != SAN_OK) {
            if (!first[0])
                snprintf(first, n, "%s", msg);
            s->nfailed_prepare++;
            continue;
        }
        s->weight[v] = 1;
        for (int r = 0; r < res.n; r++)
            if (add_result_name(s, res.name[r]) < 0) {
                san_analytic_results_free(&res);
                return -1;
            }
        san_analytic_results_free(&res);
    }
    return 0;
}

/* The product of the first variant that compiles names the estimate of
 * the others; a variant that does not compile gets weight 0 (it fails
 * at once when run). */
static int prepare(san_sweep *s, const san_sweep_opts *o, char *err, size_t n)
{
    const char **vals = malloc((s->spec.naxes + 1) * sizeof *vals);
    s->weight = calloc(s->nvariants + 1, sizeof *s->weight);
    if (!vals || !s->weight) {
        free(vals);
        return -1;
    }
    char first[512] = "";
    for (int v = 0; sweep_is_analytic(&s->spec) && v < 1; v++)
        if (prepare_analytic(s, vals, first, sizeof first) < 0) {
            free(vals);
            return -1;
        }
    for (int v = 0; !sweep_is_analytic(&s->spec) && v < s->nvariants; v++) {
        sweep_variant_values(s, v, vals);
        char msg[512];
        san_model *m = sweep_compile(&s->spec, vals, o, s, msg, sizeof msg);
        if (!m) {
            if (!first[0])
                snprintf(first, sizeof first, "%s", msg);
            s->nfailed_prepare++;
            continue;
        }
        s->weight[v] = m->product_log10 < 300 ? pow(10, m->product_log10) : 1e300;
        for (int r = 0; r < m->nres; r++)
            if (add_result_name(s, m->res[r].name) < 0) {
                san_model_free(m);
                free(vals);
                return -1;
            }
        san_model_free(m);
    }
    free(vals);
    if (s->nvariants > 0 && s->nfailed_prepare == s->nvariants) {
        sweep_err(err, n, "%s%s", first, s->nvariants > 1 ? " (in every variant)" : "");
        return -2;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Entry points                                                         */
/* ------------------------------------------------------------------ */

int san_sweep_init(san_sweep *s, int argc, char **argv, const san_sweep_opts *o,
                   char *err, size_t n)
{
    memset(s, 0, sizeof *s);
    if (err && n)
        err[0] = '\0';
    if (o && sweep_opts_foreign(o, err, n))
        return -2;
    int rc = parse_spec(&s->spec, argc, argv, o, err, n);
    if (rc == 0)
        rc = expand(s, err, n);
    if (rc == 0)
        rc = prepare(s, o, err, n);
    if (rc == -1 && !(err && err[0]))
        sweep_err(err, n, "out of memory");
    if (rc < 0)
        san_sweep_clear(s);
    return rc;
}

int san_sweep_init_line(san_sweep *s, const char *line, const san_sweep_opts *o,
                        char *err, size_t n)
{
    memset(s, 0, sizeof *s);
    char *copy = strdup(line), **argv = NULL;
    int argc = copy ? sweep_split_words(copy, &argv) : -1;
    if (argc < 0) {
        free(copy);
        sweep_err(err, n, "out of memory");
        return -1;
    }
    int rc = san_sweep_init(s, argc, argv, o, err, n);
    free(argv);
    free(copy);
    return rc;
}

san_sweep *san_sweep_new(void)
{
    return calloc(1, sizeof(san_sweep));
}

void san_sweep_free(san_sweep *s)
{
    if (s) {
        san_sweep_clear(s);
        free(s);
    }
}

void san_sweep_delete(san_sweep *s)
{
    san_sweep_free(s);
}

void san_sweep_clear(san_sweep *s)
{
    san_sweep_spec *sp = &s->spec;
    for (int a = 0; a < sp->naxes; a++)
        axis_free(&sp->axis[a]);
    free(sp->axis);
    free(sp->tmpl);
    free(sp->path);
    free(sp->text);
    for (int v = 0; s->pick && v < s->nvariants; v++)
        free(s->pick[v]);
    free(s->pick);
    free(s->weight);
    for (int i = 0; i < s->nres; i++)
        free(s->res_name[i]);
    free(s->res_name);
    for (int v = 0; s->rows && v < s->nvariants; v++)
        san_sweep_row_free(&s->rows[v]);
    free(s->rows);
    for (int i = 0; i < s->nwarnings; i++)
        free(s->warnings[i]);
    free(s->warnings);
    memset(s, 0, sizeof *s);
}

/* ------------------------------------------------------------------ */
/* Lookups                                                              */
/* ------------------------------------------------------------------ */

int san_sweep_find_axis(const san_sweep *s, const char *name)
{
    for (int a = 0; a < s->spec.naxes; a++) {
        const san_sweep_axis *ax = &s->spec.axis[a];
        if (!strcmp(ax->name, name) || !strcmp(ax->flag, name))
            return a;
    }
    return -1;
}

int san_sweep_find_result(const san_sweep *s, const char *name)
{
    for (int i = 0; i < s->nres; i++)
        if (!strcmp(s->res_name[i], name))
            return i;
    return -1;
}

double san_sweep_row_value(const san_sweep *s, const san_sweep_row *r, int a)
{
    if (a < 0 || a >= s->spec.naxes || !r->pick || r->pick[a] < 0)
        return NAN;
    const char *v = s->spec.axis[a].values[r->pick[a]];
    char *end;
    double x = strtod(v, &end);
    return end != v && !*end ? x : NAN;
}
