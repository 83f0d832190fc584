/*
 * mw_out.c - san mw's report: seed 000's master/worker closed form per
 * number of workers (analytic/mw.c), with the marks of the lowest Tt,
 * the lowest Pi and the rows past the master's capability, and the SAN's
 * figures beside them when the caller solved it; one writer per format.
 */
#include <math.h>
#include <stdlib.h>
#include "report/commands.h"

typedef struct {
    san_mw_point pt;
    double gain, index;     /* from the row before; NAN on the first */
    double san_tt, san_eff; /* NAN when not asked or failed */
} mw_row;

typedef struct {
    const san_mw_params *p;
    const san_mw_report_opts *o;
    int n, san;
    mw_row *row;
    san_mw_bounds b;
    int best_tt, best_pi;   /* rows of the lowest Tt and Pi */
} mw_table;

static void fill_rows(mw_table *t, const double *workers)
{
    t->best_tt = t->best_pi = 0;
    for (int i = 0; i < t->n; i++) {
        mw_row *r = &t->row[i];
        san_mw_eval(t->p, workers[i], &r->pt);
        r->gain = r->index = NAN;
        r->san_tt = t->san ? t->o->san_tt[i] : NAN;
        r->san_eff = t->san ? t->o->san_eff[i] : NAN;
        if (i > 0 && workers[i] != workers[i - 1])
            san_mw_step(t->p, workers[i - 1], workers[i], &r->gain, &r->index);
        if (r->pt.tt < t->row[t->best_tt].pt.tt)
            t->best_tt = i;
        if (r->pt.pi < t->row[t->best_pi].pt.pi)
            t->best_pi = i;
    }
    san_mw_bounds_of(t->p, &t->b);
}

/* What a row is remarkable for: the lowest Tt, the lowest Pi, past the
 * master's capability ("" for none). */
static const char *mark(const mw_table *t, int i)
{
    static const char *const marks[] = {
        "", "lowest Tt", "lowest Pi", "lowest Tt and Pi",
        "past MCMC", "lowest Tt, past MCMC", "lowest Pi, past MCMC",
        "lowest Tt and Pi, past MCMC"
    };
    int m = (i == t->best_tt) | (i == t->best_pi) << 1 | (t->row[i].pt.over_mcmc != 0) << 2;
    return marks[m];
}

/* ---- text ---- */

/* A number in a column w wide, with as many digits as fit (at most 10,
 * the digits the seed prints and a few more); "-" when there is none. */
static void text_num(FILE *out, int w, double v)
{
    if (isfinite(v))
        fprintf(out, "  %*.*g", w, w - 4 > 10 ? 10 : w - 4, v);
    else
        fprintf(out, "  %*s", w, "-");
}

static void text_summary(const mw_table *t, FILE *out)
{
    const san_mw_bounds *b = &t->b;
    const mw_row *bt = &t->row[t->best_tt], *bp = &t->row[t->best_pi];
    if (b->n_opt_eq > 0)
        fprintf(out, "optimum (eq. %d): n = %.6g", b->n_opt_eq, b->n_opt);
    else
        fprintf(out, "optimum: n = %.6g, where eq. 8 gives way to eq. 7", b->n_opt);
    fprintf(out, "; lowest Tt over the rows: n = %g, Tt = %.10g\n", bt->pt.n, bt->pt.tt);
    fprintf(out, "performance index: real minimum at n = %.6g; lowest over the rows: n = %g, "
            "Pi = %.10g\n", b->pi_opt, bp->pt.n, bp->pt.pi);
    fprintf(out, "master's chunk managing capability (eq. %d): n <= %.6g\n", b->mcmc_eq, b->mcmc);
}

static void rep_mw_text(const mw_table *t, FILE *out)
{
    const san_mw_params *p = t->p;
    if (t->o->preamble)
        t->o->preamble(out, SAN_REPORT_TEXT, t->o->ctx);
    fprintf(out, "master/worker, %s sends: mo %g, lambda %g, V %g%s, alpha %g, Tc %g, mu_m %g\n",
            p->protocol == SAN_MW_SYNC ? "synchronous" : "asynchronous", p->mo, p->lambda,
            p->volume, p->per_worker ? " per worker" : "", p->alpha, p->tc, p->mu_m);
    fprintf(out, "%6s  %4s  %14s  %10s  %10s  %14s  %10s  %10s", "n", "eq", "Tt", "speedup",
            "efficiency", "Pi", "gain", "index");
    if (t->san)
        fprintf(out, "  %14s  %10s  %10s  %10s", "SAN Tt", "Tt ratio", "SAN E", "E ratio");
    fputs("  \n", out);
    for (int i = 0; i < t->n; i++) {
        const mw_row *r = &t->row[i];
        fprintf(out, "%6g  %4d", r->pt.n, r->pt.eq);
        text_num(out, 14, r->pt.tt);
        text_num(out, 10, r->pt.speedup);
        text_num(out, 10, r->pt.efficiency);
        text_num(out, 14, r->pt.pi);
        text_num(out, 10, r->gain);
        text_num(out, 10, r->index);
        if (t->san) {
            text_num(out, 14, r->san_tt);
            text_num(out, 10, r->san_tt / r->pt.tt);
            text_num(out, 10, r->san_eff);
            text_num(out, 10, r->san_eff / r->pt.efficiency);
        }
        fprintf(out, "  %s\n", mark(t, i));
    }
    text_summary(t, out);
}

/* ---- CSV ---- */

static void csv_num(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, ",%.17g", v);
    else
        fputc(',', out);
}

static void rep_mw_csv(const mw_table *t, FILE *out)
{
    if (t->o->preamble)
        t->o->preamble(out, SAN_REPORT_CSV, t->o->ctx);
    fputs("n,expression,tt,speedup,efficiency,performance_index,gain,index,over_mcmc,mark", out);
    if (t->san)
        fputs(",san_execution_time,tt_ratio,san_efficiency,efficiency_ratio", out);
    fputc('\n', out);
    for (int i = 0; i < t->n; i++) {
        const mw_row *r = &t->row[i];
        fprintf(out, "%.17g,%d", r->pt.n, r->pt.eq);
        csv_num(out, r->pt.tt);
        csv_num(out, r->pt.speedup);
        csv_num(out, r->pt.efficiency);
        csv_num(out, r->pt.pi);
        csv_num(out, r->gain);
        csv_num(out, r->index);
        fprintf(out, ",%d,%s", r->pt.over_mcmc, mark(t, i));
        if (t->san) {
            csv_num(out, r->san_tt);
            csv_num(out, r->san_tt / r->pt.tt);
            csv_num(out, r->san_eff);
            csv_num(out, r->san_eff / r->pt.efficiency);
        }
        fputc('\n', out);
    }
}

/* ---- JSON ---- */

/* "key": v, null for NaN (not computed: a first row's gain) */
static void json_num(FILE *out, const char *key, double v)
{
    fprintf(out, "\"%s\": ", key);
    rep_json_figure(out, v);
}

static void json_row(const mw_table *t, int i, FILE *out)
{
    const mw_row *r = &t->row[i];
    fprintf(out, "    { \"n\": %.17g, \"expression\": %d, ", r->pt.n, r->pt.eq);
    json_num(out, "tt", r->pt.tt);
    fputs(", ", out);
    json_num(out, "speedup", r->pt.speedup);
    fputs(", ", out);
    json_num(out, "efficiency", r->pt.efficiency);
    fputs(", ", out);
    json_num(out, "performance_index", r->pt.pi);
    fputs(", ", out);
    json_num(out, "gain", r->gain);
    fputs(", ", out);
    json_num(out, "index", r->index);
    fprintf(out, ", \"over_mcmc\": %s", r->pt.over_mcmc ? "true" : "false");
    if (t->san) {
        fputs(", ", out);
        json_num(out, "san_execution_time", r->san_tt);
        fputs(", ", out);
        json_num(out, "san_efficiency", r->san_eff);
    }
    fputs(" }", out);
}

static void rep_mw_json(const mw_table *t, FILE *out)
{
    const san_mw_params *p = t->p;
    fputs("{\n  ", out);
    if (t->o->preamble)
        t->o->preamble(out, SAN_REPORT_JSON, t->o->ctx);
    fprintf(out, "\"model\": \"mw\",\n  \"protocol\": \"%s\",\n  \"params\": { ",
            p->protocol == SAN_MW_SYNC ? "sync" : "async");
    json_num(out, "mo", p->mo);
    fputs(", ", out);
    json_num(out, "lambda", p->lambda);
    fputs(", ", out);
    json_num(out, "volume", p->volume);
    fprintf(out, ", \"volume_per_worker\": %s, ", p->per_worker ? "true" : "false");
    json_num(out, "alpha", p->alpha);
    fputs(", ", out);
    json_num(out, "tc", p->tc);
    fputs(", ", out);
    json_num(out, "mu_m", p->mu_m);
    fprintf(out, " },\n  \"optimum\": { \"eq\": %d, ", t->b.n_opt_eq);
    json_num(out, "n", t->b.n_opt);
    fprintf(out, " },\n  \"mcmc\": { \"eq\": %d, ", t->b.mcmc_eq);
    json_num(out, "n", t->b.mcmc);
    fputs(" },\n  ", out);
    json_num(out, "pi_minimum", t->b.pi_opt);
    fprintf(out, ",\n  \"lowest_tt\": %.17g,\n  \"lowest_pi\": %.17g,\n  \"rows\": [\n",
            t->row[t->best_tt].pt.n, t->row[t->best_pi].pt.n);
    for (int i = 0; i < t->n; i++) {
        json_row(t, i, out);
        fputs(i + 1 < t->n ? ",\n" : "\n", out);
    }
    fputs("  ]\n}\n", out);
}

void san_mw_report_opts_default(san_mw_report_opts *o)
{
    *o = (san_mw_report_opts){ .struct_size = sizeof *o };
}

san_status san_report_mw(FILE *out, san_report_format f, const san_mw_params *p, int n,
                         const double *workers, const san_mw_report_opts *o)
{
    if (o && BASE_OPTS_FOREIGN(o, "report", "san_mw_report_opts_default", NULL, 0))
        return SAN_E_USAGE;
    if (BASE_OPTS_FOREIGN(p, "mw", "san_mw_default", NULL, 0))
        return SAN_E_USAGE;
    san_mw_report_opts oo;
    if (o)
        oo = *o;
    else
        san_mw_report_opts_default(&oo);
    if (n < 1)
        return SAN_E_USAGE;
    mw_table t = { .p = p, .o = &oo, .n = n, .san = oo.san_tt && oo.san_eff };
    t.row = calloc((size_t)n, sizeof *t.row);
    if (!t.row)
        return SAN_E_NOMEM;
    fill_rows(&t, workers);
    if (f == SAN_REPORT_JSON)
        rep_mw_json(&t, out);
    else if (f == SAN_REPORT_CSV)
        rep_mw_csv(&t, out);
    else
        rep_mw_text(&t, out);
    free(t.row);
    return SAN_OK;
}
