/*
 * output.c - the sweep's table: one row per variant with its parameters,
 * sizes, solver figures and results, as aligned text, CSV or JSON.
 * Text shows only the parameters that vary; CSV and JSON show them all,
 * with every number to 17 digits (a table read back equals the solve).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/services.h"
#include "sweep/sweep_int.h"

/* The value of result `name` in a row; 0 when the row lacks it. */
static int row_result(const san_sweep_row *r, const char *name, double *v)
{
    for (int i = 0; i < r->nres; i++)
        if (!strcmp(r->res_name[i], name)) {
            *v = r->res[i];
            return 1;
        }
    return 0;
}

static const char *param(const san_sweep *s, const san_sweep_row *r, int a)
{
    return r->pick && r->pick[a] >= 0 ? s->spec.axis[a].values[r->pick[a]] : NULL;
}

/* The result columns: the ones asked for, or all. */
typedef struct {
    char *const *name;
    int n;
} columns;

static columns result_columns(const san_sweep *s, char *const *only, int nonly)
{
    columns c = { only ? only : s->res_name, only ? nonly : s->nres };
    return c;
}

/* ------------------------------------------------------------------ */
/* Text                                                                 */
/* ------------------------------------------------------------------ */

/* A grid of cells, measured then printed left-aligned (text) or
 * right-aligned (numbers). */
typedef struct {
    int nrow, ncol;
    char **cell;            /* nrow * ncol, malloc'd */
    int *right;             /* per column: align right */
} grid;

static void set(grid *g, int r, int c, char *s)
{
    g->cell[r * g->ncol + c] = s ? s : strdup("?");
}

static void grid_print(const grid *g, FILE *out)
{
    int *w = calloc(g->ncol + 1, sizeof *w);
    if (!w)
        return;
    for (int r = 0; r < g->nrow; r++)
        for (int c = 0; c < g->ncol; c++) {
            int len = g->cell[r * g->ncol + c] ? (int)strlen(g->cell[r * g->ncol + c]) : 0;
            if (len > w[c])
                w[c] = len;
        }
    for (int r = 0; r < g->nrow; r++) {
        for (int c = 0; c < g->ncol; c++) {
            const char *s = g->cell[r * g->ncol + c] ? g->cell[r * g->ncol + c] : "";
            int last = c == g->ncol - 1;
            if (g->right[c] && r > 0)
                fprintf(out, "%*s", w[c], s);
            else
                fprintf(out, "%-*s", last ? 0 : w[c], s);
            if (!last)
                fputs("  ", out);
        }
        fputc('\n', out);
    }
    free(w);
}

static void write_text(const san_sweep *s, columns rc, int times, FILE *out)
{
    const san_sweep_spec *sp = &s->spec;
    int nvary = 0, errors = 0;
    for (int a = 0; a < sp->naxes; a++)
        nvary += sp->axis[a].nvalues > 1;
    for (int v = 0; v < s->nvariants; v++)
        errors |= s->rows[v].error != NULL;
    grid g;
    g.nrow = s->nvariants + 1;
    g.ncol = 1 + nvary + 5 + (times ? 1 : 0) + rc.n + errors;
    g.cell = calloc((size_t)g.nrow * g.ncol + 1, sizeof *g.cell);
    g.right = calloc(g.ncol + 1, sizeof *g.right);
    if (!g.cell || !g.right) {
        free(g.cell);
        free(g.right);
        return;
    }
    int c = 0;
    set(&g, 0, c++, strdup("#"));
    for (int a = 0; a < sp->naxes; a++)
        if (sp->axis[a].nvalues > 1)
            set(&g, 0, c++, strdup(sp->axis[a].name));
    const char *fixed[] = { "states", "reachable", "method", "iter", "residual", "time_s" };
    for (int k = 0; k < 5 + (times ? 1 : 0); k++)
        set(&g, 0, c++, strdup(fixed[k]));
    for (int k = 0; k < rc.n; k++)
        set(&g, 0, c++, strdup(rc.name[k]));
    if (errors)
        set(&g, 0, c++, strdup("error"));
    for (int k = 0; k < g.ncol - errors; k++)
        g.right[k] = 1;
    for (int v = 0; v < s->nvariants; v++) {
        const san_sweep_row *r = &s->rows[v];
        int row = v + 1;
        c = 0;
        set(&g, row, c++, sweep_strf("%d", v + 1));
        for (int a = 0; a < sp->naxes; a++)
            if (sp->axis[a].nvalues > 1)
                set(&g, row, c++, strdup(param(s, r, a) ? param(s, r, a) : "-"));
        set(&g, row, c++, strdup(r->product && r->product[0] ? r->product : "-"));
        set(&g, row, c++, r->reachable ? sweep_strf("%lld", (long long)r->reachable) : strdup("-"));
        set(&g, row, c++, strdup(r->reachable ? san_method_name(r->method) : "-"));
        set(&g, row, c++, r->reachable ? sweep_strf("%ld", r->iterations) : strdup("-"));
        set(&g, row, c++, isfinite(r->residual) ? sweep_strf("%.1e", r->residual) : strdup("-"));
        if (times)
            set(&g, row, c++, sweep_strf("%.3f", r->time_s));
        for (int k = 0; k < rc.n; k++) {
            double x;
            set(&g, row, c++, r->ok && row_result(r, rc.name[k], &x) ? sweep_strf("%.6g", x)
                                                                      : strdup("-"));
        }
        if (errors)
            set(&g, row, c++, strdup(r->error ? r->error : ""));
    }
    grid_print(&g, out);
    for (int k = 0; k < g.nrow * g.ncol; k++)
        free(g.cell[k]);
    free(g.cell);
    free(g.right);
}

/* ------------------------------------------------------------------ */
/* CSV                                                                  */
/* ------------------------------------------------------------------ */


/* The storage a variant was solved on, as the reports name it; NULL
 * for none (no solve ran). */
static const char *storage_name(san_storage s)
{
    return s == SAN_STORAGE_KRON ? "kron" : s == SAN_STORAGE_SPARSE ? "sparse" : NULL;
}

static void csv_num(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, ",%.17g", v);
    else
        fputc(',', out);
}

static void write_csv(const san_sweep *s, columns rc, int times, FILE *out)
{
    const san_sweep_spec *sp = &s->spec;
    fputs("variant", out);
    for (int a = 0; a < sp->naxes; a++) {
        fputc(',', out);
        san_csv_field(out, sp->axis[a].name);
    }
    fputs(",product_states,reachable_states,method,iterations,residual,error_estimate,converged,"
          "error_bound,storage,lumped", out);
    if (times)
        fputs(",time_s", out);
    for (int k = 0; k < rc.n; k++) {
        fputc(',', out);
        san_csv_field(out, rc.name[k]);
    }
    fputs(",error\n", out);
    for (int v = 0; v < s->nvariants; v++) {
        const san_sweep_row *r = &s->rows[v];
        fprintf(out, "%d", v + 1);
        for (int a = 0; a < sp->naxes; a++) {
            fputc(',', out);
            san_csv_field(out, param(s, r, a) ? param(s, r, a) : "");
        }
        fprintf(out, ",%s,%lld,%s,%ld", r->product ? r->product : "", (long long)r->reachable,
                r->reachable ? san_method_name(r->method) : "", r->iterations);
        csv_num(out, r->residual);
        csv_num(out, r->error_est);
        fprintf(out, ",%d,%d,", r->ok, r->error_bound);
        const int solved = r->reachable && !r->analytic;
        if (solved && storage_name(r->storage))
            fputs(storage_name(r->storage), out);
        fprintf(out, ",%d", solved && r->lumped);
        if (times)
            fprintf(out, ",%.6f", r->time_s);
        for (int k = 0; k < rc.n; k++) {
            double x;
            if (r->ok && row_result(r, rc.name[k], &x))
                csv_num(out, x);
            else
                fputc(',', out);
        }
        fputc(',', out);
        san_csv_field(out, r->error ? r->error : "");
        fputc('\n', out);
    }
}

/* ------------------------------------------------------------------ */
/* JSON                                                                 */
/* ------------------------------------------------------------------ */


static void json_num(FILE *out, double v)
{
    san_json_num(out, v);
}

void sweep_json_figure(FILE *out, double v)
{
    if (isnan(v))
        fputs("null", out);
    else
        san_json_num(out, v);
}

void san_sweep_json_accuracy(FILE *out, const san_sweep_accuracy *a)
{
    const char *storage = a->solved ? storage_name(a->storage) : NULL;
    fputs("\"method\": ", out);
    if (a->solved)
        san_json_string(out, san_method_name(a->method));
    else
        fputs("null", out);
    fprintf(out, ", \"iterations\": %ld, \"residual\": ", a->iterations);
    sweep_json_figure(out, a->residual);
    fprintf(out, ", \"converged\": %s, \"error_estimate\": ", a->converged ? "true" : "false");
    sweep_json_figure(out, a->error_est);
    fprintf(out, ", \"error_bound\": %s, \"storage\": ", a->error_bound ? "true" : "false");
    if (storage)
        san_json_string(out, storage);
    else
        fputs("null", out);
    fprintf(out, ", \"lumped\": %s", a->solved && a->lumped ? "true" : "false");
}

static void json_params(const san_sweep *s, const san_sweep_row *r, FILE *out)
{
    fputs("{", out);
    for (int a = 0; a < s->spec.naxes; a++) {
        fputs(a ? ", " : " ", out);
        san_json_string(out, s->spec.axis[a].name);
        fputs(": ", out);
        const char *p = param(s, r, a);
        if (!p)
            fputs("null", out);
        else if (s->spec.axis[a].numeric)
            json_num(out, strtod(p, NULL));
        else
            san_json_string(out, p);
    }
    fputs(" }", out);
}

static void json_row(const san_sweep *s, const san_sweep_row *r, columns rc, int times, FILE *out)
{
    fprintf(out, "    { \"variant\": %d, \"command\": ", r->variant + 1);
    san_json_string(out, r->command ? r->command : "");
    fputs(",\n      \"parameters\": ", out);
    json_params(s, r, out);
    fprintf(out, ",\n      \"ok\": %s, \"error\": ", r->ok ? "true" : "false");
    if (r->error)
        san_json_string(out, r->error);
    else
        fputs("null", out);
    fputs(",\n      \"product_states\": ", out);
    if (r->product && *r->product)
        san_json_size(out, r->product);
    else
        fputs("null", out);
    fprintf(out, ", \"reachable_states\": %lld,\n      \"solver\": { ",
            (long long)r->reachable);
    san_sweep_accuracy acc;
    san_sweep_row_accuracy(r, &acc);
    san_sweep_json_accuracy(out, &acc);
    if (times)
        fprintf(out, ", \"time_s\": %.6f", r->time_s);
    fputs(" },\n      \"results\": {", out);
    int first = 1;
    for (int k = 0; k < rc.n; k++) {
        double x;
        if (!row_result(r, rc.name[k], &x) || !r->ok)
            continue;
        fputs(first ? " " : ", ", out);
        first = 0;
        san_json_string(out, rc.name[k]);
        fputs(": ", out);
        json_num(out, x);
    }
    fputs(" } }", out);
}

static void write_json(const san_sweep *s, columns rc, int times, san_sweep_preamble pre,
                       const void *ctx, FILE *out)
{
    fputs("{\n  ", out);
    if (pre)
        pre(out, SAN_SWEEP_JSON, ctx);
    fputs("\"sweep\": ", out);
    san_json_string(out, s->spec.tmpl ? s->spec.tmpl : s->spec.path);
    fputs(",\n  \"parameters\": [", out);
    for (int a = 0; a < s->spec.naxes; a++) {
        fputs(a ? ", " : "", out);
        san_json_string(out, s->spec.axis[a].name);
    }
    fputs("],\n  \"results\": [", out);
    for (int k = 0; k < rc.n; k++) {
        fputs(k ? ", " : "", out);
        san_json_string(out, rc.name[k]);
    }
    fputs("],\n  \"rows\": [\n", out);
    for (int v = 0; v < s->nvariants; v++) {
        json_row(s, &s->rows[v], rc, times, out);
        fputs(v + 1 < s->nvariants ? ",\n" : "\n", out);
    }
    fputs("  ]\n}\n", out);
}

void san_sweep_write_ex(const san_sweep *s, san_sweep_format f, char *const *only,
                        int nonly, int times, san_sweep_preamble pre, const void *ctx,
                        FILE *out)
{
    if (!s->rows)
        return;
    columns rc = result_columns(s, only, nonly);
    if (f == SAN_SWEEP_JSON) {
        write_json(s, rc, times, pre, ctx, out);
        return;
    }
    if (pre)
        pre(out, f, ctx);
    if (f == SAN_SWEEP_CSV)
        write_csv(s, rc, times, out);
    else
        write_text(s, rc, times, out);
}

void san_sweep_write(const san_sweep *s, san_sweep_format f,
                     char *const *only, int nonly, int times, FILE *out)
{
    san_sweep_write_ex(s, f, only, nonly, times, NULL, NULL, out);
}
