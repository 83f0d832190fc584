/*
 * compare.c - two or more models, or generator command lines, solved and
 * lined up: every result and every marginal probability of every model,
 * in the order first seen (san compare).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "sweep/sweep_int.h"

/* Does the line have flags (a word after the first that starts with
 * '-')?  Without, blanks are part of a file name. */
static int has_flags(char **words, int nw)
{
    for (int i = 1; i < nw; i++)
        if (words[i][0] == '-')
            return 1;
    return 0;
}

/* A model argument as words: an existing path is one word whatever it
 * holds (blanks, quotes: "my model's copy.san"); a line with flags is a
 * generator line or a file with its -D, split as a shell would (quotes
 * group words); anything else is one word, a template or a file name
 * that the sweep reads or names in its message.  *copy keeps the words'
 * text.  The count, or -1 when out of memory. */
static int model_words(const char *model, char **copy, char ***words)
{
    struct stat st;
    *copy = strdup(model);
    if (!*copy)
        return -1;
    if (stat(model, &st) != 0 && strpbrk(model, " \t\n")) {
        int nw = sweep_split_words(*copy, words);
        if (nw < 0 || has_flags(*words, nw))
            return nw;
        free(*words);
        strcpy(*copy, model);           /* the split wrote NULs into it */
    }
    *words = malloc(2 * sizeof **words);
    if (!*words)
        return -1;
    (*words)[0] = *copy;
    (*words)[1] = NULL;
    return 1;
}

/* The words of the model, then "-D" DEF for each of defs. */
static char **with_defines(char **words, int nw, int ndefs, const char *const *defs)
{
    char **argv = malloc((nw + 2 * (size_t)ndefs + 1) * sizeof *argv);
    if (!argv)
        return NULL;
    memcpy(argv, words, nw * sizeof *argv);
    for (int i = 0; i < ndefs; i++) {
        argv[nw + 2 * i] = "-D";
        argv[nw + 2 * i + 1] = (char *)defs[i];
    }
    argv[nw + 2 * ndefs] = NULL;
    return argv;
}

/* One model: its sweep of exactly one variant. */
static san_status load_model(san_compare_model *e, int i, const char *model, int ndefs,
                             const char *const *defs, const san_sweep_opts *o, char *err,
                             size_t n)
{
    snprintf(e->name, sizeof e->name, "%c%s", 'A' + i % 26, i >= 26 ? "'" : "");
    char *copy = NULL, **words = NULL, **argv = NULL;
    int nw = model_words(model, &copy, &words);
    if (nw >= 0)
        argv = with_defines(words, nw, ndefs, defs);
    if (!argv) {
        free(words);
        free(copy);
        sweep_err(err, n, "%s: out of memory", e->name);
        return SAN_E_NOMEM;
    }
    char msg[1024];
    int rc = san_sweep_init(&e->sweep, nw + 2 * ndefs, argv, o, msg, sizeof msg);
    free(argv);
    free(words);
    free(copy);
    if (rc == -3) {             /* the file's name says which model */
        sweep_err(err, n, "%s", msg);
        return SAN_E_INPUT;
    }
    if (rc < 0) {
        sweep_err(err, n, "%s: %s", e->name, msg);
        return rc == -2 ? SAN_E_USAGE : SAN_E_IO;
    }
    if (e->sweep.nvariants != 1) {
        sweep_err(err, n, "%s: '%s' has %d variants; compare takes one model each (san sweep "
                  "compares families)", e->name, model, e->sweep.nvariants);
        return SAN_E_USAGE;
    }
    return SAN_OK;
}

san_status san_compare_init(san_compare *c, int n, const char *const *models, int ndefs,
                            const char *const *defs, const san_sweep_opts *o, char *err,
                            size_t errn)
{
    memset(c, 0, sizeof *c);
    if (o && sweep_opts_foreign(o, err, errn))
        return SAN_E_USAGE;
    c->model = calloc(n > 0 ? n : 1, sizeof *c->model);
    if (!c->model) {
        sweep_err(err, errn, "out of memory");
        return SAN_E_NOMEM;
    }
    c->n = n;
    san_status st = SAN_OK;
    for (int i = 0; i < n && st == SAN_OK; i++)
        st = load_model(&c->model[i], i, models[i], ndefs, defs, o, err, errn);
    if (st != SAN_OK)
        san_compare_free(c);
    return st;
}

typedef struct {
    san_compare *c;
    const san_sweep_opts *o;
} solve_job;

static void solve_model(void *ctx, int i)
{
    solve_job *j = ctx;
    san_compare_model *e = &j->c->model[i];
    const char **vals = calloc(e->sweep.spec.naxes + 1, sizeof *vals);
    if (!vals) {
        e->row.error = strdup("out of memory");
        return;
    }
    sweep_variant_values(&e->sweep, 0, vals);
    san_sweep_eval(&e->sweep.spec, vals, j->o, &e->row);
    free(vals);
}

/* ------------------------------------------------------------------ */
/* The lines: results, then marginals                                   */
/* ------------------------------------------------------------------ */

static int add_line(san_compare *c, int marginal, const char *name, const char *state)
{
    for (int i = 0; i < c->nlines; i++)
        if (c->line[i].marginal == marginal && !strcmp(c->line[i].name, name) &&
            !strcmp(c->line[i].state, state))
            return 0;
    san_compare_line *p = realloc(c->line, (c->nlines + 1) * sizeof *p);
    if (!p)
        return -1;
    c->line = p;
    p[c->nlines] = (san_compare_line){ marginal, strdup(name), strdup(state) };
    if (!p[c->nlines].name || !p[c->nlines].state) {
        free(p[c->nlines].name);
        free(p[c->nlines].state);
        return -1;
    }
    c->nlines++;
    return 0;
}

/* Every result, then every marginal, of every model, in the order seen. */
static int collect_lines(san_compare *c, int marginals)
{
    int rc = 0;
    for (int i = 0; i < c->n && rc == 0; i++)
        for (int r = 0; r < c->model[i].row.nres && rc == 0; r++)
            rc = add_line(c, 0, c->model[i].row.res_name[r], "");
    for (int i = 0; marginals && i < c->n && rc == 0; i++) {
        const san_sweep_row *row = &c->model[i].row;
        for (int a = 0; a < row->naut && rc == 0; a++)
            for (int s = 0; s < row->nstates[a] && rc == 0; s++)
                rc = add_line(c, 1, row->aut_name[a], row->state_name[a][s]);
    }
    return rc;
}

san_status san_compare_run(san_compare *c, const san_sweep_opts *o, int marginals, char *err,
                           size_t n)
{
    if (sweep_opts_foreign(o, err, n))
        return SAN_E_USAGE;
    san_sweep_opts run = *o;
    run.marginals = 1;
    solve_job j = { c, &run };
    san_sweep_parallel(c->n, NULL, run.jobs, solve_model, &j, NULL, run.progress, "models");
    if (collect_lines(c, marginals) < 0) {
        sweep_err(err, n, "out of memory");
        return SAN_E_NOMEM;
    }
    return SAN_OK;
}

int san_compare_value(const san_compare *c, int model, int line, double *v)
{
    const san_sweep_row *r = &c->model[model].row;
    const san_compare_line *k = &c->line[line];
    if (!r->ok)
        return 0;
    if (!k->marginal)
        return san_sweep_row_result(r, k->name, v);
    for (int a = 0; a < r->naut; a++)
        if (!strcmp(r->aut_name[a], k->name))
            for (int s = 0; s < r->nstates[a]; s++)
                if (!strcmp(r->state_name[a][s], k->state))
                    return *v = r->marginal[a][s], 1;
    return 0;
}

void san_compare_free(san_compare *c)
{
    for (int i = 0; c->model && i < c->n; i++) {
        san_sweep_row_free(&c->model[i].row);
        san_sweep_clear(&c->model[i].sweep);
    }
    free(c->model);
    for (int i = 0; i < c->nlines; i++) {
        free(c->line[i].name);
        free(c->line[i].state);
    }
    free(c->line);
    memset(c, 0, sizeof *c);
}
