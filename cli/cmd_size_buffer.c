/*
 * cmd_size_buffer.c - `san size-buffer`: for each configuration, the
 * smallest buffer whose index is within a tolerance of its large-buffer
 * limit.
 *
 * The index of a buffered model levels off as the buffer grows (004,
 * section 6.2), so a search needs far fewer solves than a scan: doubling
 * K until the index stops moving gives the limit and a power of two that
 * is close enough; bisection between it and the previous power finds
 * the smallest K.  This assumes the distance to the limit shrinks as K
 * grows, which the paper's curves (and every case we tried) show.
 * For pipelines the search is run for each inter-stage buffer in turn,
 * the others held at the size where the limit was found.
 */
#include <math.h>
#include <stdarg.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

void help_size_buffer(FILE *out)
{
    fprintf(out,
        "usage: san size-buffer ms [--mode async] [template flags] [options]\n"
        "       san size-buffer pipeline --mode async --stages T1,...,Tm [flags] [options]\n"
        "\n"
        "For each configuration (template flags may take several values, as in\n"
        "san sweep), find the smallest buffer K whose index is within a relative\n"
        "tolerance of its large-buffer limit, and print the curve behind it.\n"
        "The limit is the index once doubling K changes it by less than half\n"
        "the tolerance; then bisection between the last two powers of two finds\n"
        "the smallest K (about 2 log2(K) solves instead of K).  For a pipeline,\n"
        "each inter-stage buffer is sized in turn, the others held large.\n"
        "\n"
        "options:\n"
        "      --index NAME     the index (ms: slave_transmitting, pipeline: throughput)\n"
        "      --within X       relative tolerance (0.01: within 1%% of the limit)\n"
        "      --max-buffer K   give up past this size (1024)\n"
        "  -f, --format F       text (default) or json\n"
        "      --plot FILE      the curves, index against K, as .svg, .png or .pdf\n"
        "  -j, --jobs N         configurations at once (default: one per core)\n"
        "  -m, --method M, --tol X, --max-iter N, --time-limit S, --max-states N,\n"
        "      --max-memory M   as san sweep\n"
        "  -q, --quiet          no progress on stderr\n"
        "\n"
        "example:\n"
        "  san size-buffer ms --mode async --slaves 2..7 --within 0.05\n"
        "\n"
        "Exit status: 0 every configuration sized, 1 some failed, 2 bad usage.\n");
}

static volatile int interrupted;        /* SIGINT; see cmd_sweep.c */

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* ------------------------------------------------------------------ */
/* The search for one buffer of one configuration                       */
/* ------------------------------------------------------------------ */

typedef struct {
    long k;
    double v;
} point;

/* What a search needs to evaluate the index at a buffer size. */
typedef struct {
    const san_sweep *s;
    const san_sweep_opts *o;
    const char *index;
    double within;
    long max_k;
    int buf_axis;           /* the --buffer axis of the spec */
    int pipeline;
    int nbuf;               /* pipeline: buffers between the stages */
} search_ctx;

/* The outcome for one buffer. */
typedef struct {
    long k;                 /* the answer */
    double value;           /* the index at k */
    point *curve;           /* every size evaluated, ascending */
    int n;
    char *error;
} sizing;

/* One configuration: the limit, then one sizing per buffer. */
typedef struct {
    double limit;
    long k_limit;
    sizing all;             /* ms: the buffer; pipeline: all buffers together */
    sizing *each;           /* pipeline: per inter-stage buffer */
    int neach;
    double combined;        /* pipeline: every buffer at its own size */
    int combined_ok;
} config;

static int add_point(sizing *z, long k, double v)
{
    point *p = realloc(z->curve, (z->n + 1) * sizeof *p);
    if (!p)
        return -1;
    z->curve = p;
    int i = z->n++;
    while (i > 0 && p[i - 1].k > k) {
        p[i] = p[i - 1];
        i--;
    }
    p[i] = (point){ k, v };
    return 0;
}

static const point *find_point(const sizing *z, long k)
{
    for (int i = 0; i < z->n; i++)
        if (z->curve[i].k == k)
            return &z->curve[i];
    return NULL;
}

/* A malloc'd printf (NULL when out of memory). */
static char *strf(const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 1, 2)))
#endif
    ;

static char *strf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    return s;
}

/* The value of the buffer axis for one evaluation: K for --buffer, or
 * for --buffers every buffer at big except buffer j at k. */
static char *buffer_value(const search_ctx *c, int j, long k, long big)
{
    if (j < 0)
        return strf("%ld", k);
    char *s = strf("%s", "");
    for (int i = 0; s && i < c->nbuf; i++) {
        char *t = strf("%s%s%ld", s, i ? "," : "", i == j ? k : big);
        free(s);
        s = t;
    }
    return s;
}

/* The index in a solved row; an error message otherwise. */
static int row_index(const san_sweep_row *r, const char *index, double *v, char **error)
{
    if (!r->ok) {
        *error = strf("%s", r->error ? r->error : "failed");
        return -1;
    }
    for (int i = 0; i < r->nres; i++)
        if (!strcmp(r->res_name[i], index)) {
            *v = r->res[i];
            return 0;
        }
    *error = strf("the model has no result '%s'", index);
    return -1;
}

/* The index with buffer j (or all, j < 0) at k; remembered in z. */
static int evaluate(const search_ctx *c, const san_sweep_spec *spec, const char **vals,
                    int j, long k, long big, sizing *z, double *v)
{
    const point *p = find_point(z, k);
    if (p) {
        *v = p->v;
        return 0;
    }
    char *bv = buffer_value(c, j, k, big);
    if (!bv) {
        z->error = strf("out of memory");
        return -1;
    }
    const char *saved = vals[c->buf_axis];
    vals[c->buf_axis] = bv;
    san_sweep_row r;
    memset(&r, 0, sizeof r);
    san_sweep_eval(spec, vals, c->o, &r);
    vals[c->buf_axis] = saved;
    free(bv);
    char *error = NULL;
    int rc = row_index(&r, c->index, v, &error);
    san_sweep_row_free(&r);
    if (rc < 0) {
        z->error = strf("K = %ld: %s", k, error ? error : "failed");
        free(error);
        return -1;
    }
    return add_point(z, k, *v);
}

static int close_to(double v, double ref, double tol)
{
    return fabs(v - ref) <= tol * (ref != 0 ? fabs(ref) : 1);
}

/* Doubling with every buffer at K until the index moves by less than
 * half the tolerance: the last value is the limit. */
static int find_limit(const search_ctx *c, const san_sweep_spec *spec, const char **vals,
                      config *cf)
{
    sizing *z = &cf->all;
    double prev, cur = 0;
    if (evaluate(c, spec, vals, -1, 1, 0, z, &prev) < 0)
        return -1;
    for (long k = 2;; k *= 2) {
        if (k > c->max_k) {
            z->error = strf("no plateau up to K = %ld (--max-buffer): the index still moves "
                            "by %.3g%% per doubling", k / 2, 100 * fabs(cur - prev) /
                            (cur != 0 ? fabs(cur) : 1));
            return -1;
        }
        if (evaluate(c, spec, vals, -1, k, 0, z, &cur) < 0)
            return -1;
        if (close_to(prev, cur, c->within / 2)) {
            cf->limit = cur;
            cf->k_limit = k;
            return 0;
        }
        prev = cur;
    }
}

/* The smallest K within the tolerance of the limit: the first power of
 * two that is, then bisection down to the last one that is not. */
static int smallest(const search_ctx *c, const san_sweep_spec *spec, const char **vals, int j,
                    const config *cf, sizing *z)
{
    long lo = 0, hi = 1;
    double v;
    for (;;) {
        if (evaluate(c, spec, vals, j, hi, cf->k_limit, z, &v) < 0)
            return -1;
        if (close_to(v, cf->limit, c->within) || hi >= cf->k_limit)
            break;
        lo = hi;
        hi = hi * 2 < cf->k_limit ? hi * 2 : cf->k_limit;
    }
    while (hi - lo > 1) {
        long mid = lo + (hi - lo) / 2;
        if (evaluate(c, spec, vals, j, mid, cf->k_limit, z, &v) < 0)
            return -1;
        if (close_to(v, cf->limit, c->within))
            hi = mid;
        else
            lo = mid;
    }
    z->k = hi;
    return evaluate(c, spec, vals, j, hi, cf->k_limit, z, &z->value);
}

/* Pipeline: every buffer at its own size at once, the honest check (the
 * buffers' effects add up). */
static void check_combined(const search_ctx *c, const san_sweep_spec *spec, const char **vals,
                           config *cf)
{
    char *s = strf("%s", "");
    for (int i = 0; s && i < cf->neach; i++) {
        char *t = strf("%s%s%ld", s, i ? "," : "", cf->each[i].k);
        free(s);
        s = t;
    }
    if (!s)
        return;
    const char *saved = vals[c->buf_axis];
    vals[c->buf_axis] = s;
    san_sweep_row r;
    memset(&r, 0, sizeof r);
    san_sweep_eval(spec, vals, c->o, &r);
    vals[c->buf_axis] = saved;
    char *error = NULL;
    cf->combined_ok = row_index(&r, c->index, &cf->combined, &error) == 0;
    free(error);
    san_sweep_row_free(&r);
    free(s);
}

/* ------------------------------------------------------------------ */
/* All configurations                                                   */
/* ------------------------------------------------------------------ */

typedef struct {
    search_ctx c;
    san_sweep_spec per_buffer;      /* the spec with --buffers for --buffer */
    config *cf;
} job;

static void size_config_with(job *J, const search_ctx *c, int v)
{
    config *cf = &J->cf[v];
    const char **vals = calloc(c->s->spec.naxes + 1, sizeof *vals);
    if (!vals) {
        cf->all.error = strf("out of memory");
        return;
    }
    for (int a = 0; a < c->s->spec.naxes; a++)
        vals[a] = c->s->pick[v][a] >= 0 ? c->s->spec.axis[a].values[c->s->pick[v][a]] : NULL;
    if (find_limit(c, &c->s->spec, vals, cf) == 0 &&
        smallest(c, &c->s->spec, vals, -1, cf, &cf->all) == 0 && c->pipeline) {
        cf->each = calloc(c->nbuf, sizeof *cf->each);
        cf->neach = cf->each ? c->nbuf : 0;
        int ok = 1;
        for (int j = 0; j < cf->neach; j++)
            ok &= smallest(c, &J->per_buffer, vals, j, cf, &cf->each[j]) == 0;
        if (ok)
            check_combined(c, &J->per_buffer, vals, cf);
    }
    free(vals);
}

/* One configuration's search, on one thread: each buffer size tried
 * starts from the answer of the nearest one tried before (sweep/warm.c),
 * from a cache of its own, so that the answers do not depend on the
 * other threads. */
static void size_config(void *ctx, int v)
{
    job *J = ctx;
    search_ctx mine = J->c;
    san_sweep_opts o = *J->c.o;
    o.warm = san_warm_cache_new(J->c.s->spec.naxes,
                                0.1 * san_default_max_memory() / (o.jobs > 0 ? o.jobs : 1));
    mine.o = &o;
    size_config_with(J, &mine, v);
    san_warm_cache_free(o.warm);
}

static void free_sizing(sizing *z)
{
    free(z->curve);
    free(z->error);
}

static void free_configs(config *cf, int n)
{
    for (int v = 0; cf && v < n; v++) {
        free_sizing(&cf[v].all);
        for (int j = 0; j < cf[v].neach; j++)
            free_sizing(&cf[v].each[j]);
        free(cf[v].each);
    }
    free(cf);
}

/* ------------------------------------------------------------------ */
/* Output                                                               */
/* ------------------------------------------------------------------ */

/* "slaves=2, mode=async": the parameters that vary. */
static char *config_label(const san_sweep *s, int v)
{
    char *l = strf("%s", "");
    for (int a = 0; l && a < s->spec.naxes; a++) {
        const san_sweep_axis *ax = &s->spec.axis[a];
        if (ax->nvalues < 2 || s->pick[v][a] < 0)
            continue;
        char *t = strf("%s%s%s=%s", l, *l ? ", " : "", ax->name, ax->values[s->pick[v][a]]);
        free(l);
        l = t;
    }
    if (l && !*l) {
        free(l);
        l = strf("%s", s->spec.tmpl ? s->spec.tmpl : "model");
    }
    return l;
}

static const char *first_error(const config *cf)
{
    if (cf->all.error)
        return cf->all.error;
    for (int j = 0; j < cf->neach; j++)
        if (cf->each[j].error)
            return cf->each[j].error;
    return NULL;
}

static void text_curve(const sizing *z, const config *cf, const char *index, FILE *out)
{
    fprintf(out, "    %8s  %-14s  %s\n", "K", index, "vs limit");
    for (int i = 0; i < z->n; i++)
        fprintf(out, "    %8ld  %-14.8g  %+.3g%%%s\n", z->curve[i].k, z->curve[i].v,
                cf->limit != 0 ? 100 * (z->curve[i].v - cf->limit) / fabs(cf->limit) : 0.0,
                z->curve[i].k == z->k ? "   <- smallest within" : "");
}

static void text_config(const search_ctx *c, const config *cf, const char *label, FILE *out)
{
    const char *err = first_error(cf);
    if (err) {
        fprintf(out, "%s: failed: %s\n", label, err);
        return;
    }
    fprintf(out, "%s: buffer %ld  (%s %.8g; limit %.8g, reached at K = %ld; %d solves)\n", label,
            cf->all.k, c->index, cf->all.value, cf->limit, cf->k_limit, cf->all.n);
    if (!c->pipeline) {
        text_curve(&cf->all, cf, c->index, out);
        return;
    }
    fprintf(out, "  every buffer at %ld (above); each buffer alone, the others at %ld:\n",
            cf->all.k, cf->k_limit);
    for (int j = 0; j < cf->neach; j++) {
        fprintf(out, "  buffer %d (after stage %d): %ld  (%s %.8g)\n", j + 1, j + 1,
                cf->each[j].k, c->index, cf->each[j].value);
        text_curve(&cf->each[j], cf, c->index, out);
    }
    if (cf->combined_ok)
        fprintf(out, "  all at their own sizes: %s %.8g, %s the tolerance of the limit\n", c->index,
                cf->combined, close_to(cf->combined, cf->limit, c->within) ? "within" : "NOT within");
}

static void json_curve(const sizing *z, FILE *out)
{
    fputs("[", out);
    for (int i = 0; i < z->n; i++)
        fprintf(out, "%s[%ld, %.17g]", i ? ", " : "", z->curve[i].k, z->curve[i].v);
    fputs("]", out);
}

static void json_config(const search_ctx *c, const config *cf, const char *label, FILE *out)
{
    const char *err = first_error(cf);
    fputs("    { \"configuration\": ", out);
    cli_json_string(out, label);
    if (err) {
        fputs(", \"error\": ", out);
        cli_json_string(out, err);
        fputs(" }", out);
        return;
    }
    fprintf(out, ", \"error\": null, \"buffer\": %ld, \"value\": %.17g, \"limit\": %.17g, "
            "\"limit_buffer\": %ld,\n      \"curve\": ", cf->all.k, cf->all.value, cf->limit,
            cf->k_limit);
    json_curve(&cf->all, out);
    if (c->pipeline) {
        fputs(",\n      \"buffers\": [", out);
        for (int j = 0; j < cf->neach; j++) {
            fprintf(out, "%s\n        { \"buffer\": %ld, \"value\": %.17g, \"curve\": ",
                    j ? "," : "", cf->each[j].k, cf->each[j].value);
            json_curve(&cf->each[j], out);
            fputs(" }", out);
        }
        fputs(" ],\n      \"combined\": ", out);
        if (cf->combined_ok)
            fprintf(out, "%.17g", cf->combined);
        else
            fputs("null", out);
    }
    fputs(" }", out);
}

static void write_all(const search_ctx *c, const config *cf, cli_format fmt, FILE *out)
{
    if (fmt == FMT_JSON)
        fprintf(out, "{\n  \"index\": \"%s\",\n  \"within\": %.17g,\n  \"configurations\": [\n",
                c->index, c->within);
    else
        fprintf(out, "smallest buffer with %s within %g%% of its large-buffer limit\n\n",
                c->index, 100 * c->within);
    for (int v = 0; v < c->s->nvariants; v++) {
        char *label = config_label(c->s, v);
        if (fmt == FMT_JSON) {
            json_config(c, &cf[v], label ? label : "", out);
            fputs(v + 1 < c->s->nvariants ? ",\n" : "\n", out);
        } else {
            text_config(c, &cf[v], label ? label : "", out);
            fputs("\n", out);
        }
        free(label);
    }
    if (fmt == FMT_JSON)
        fputs("  ]\n}\n", out);
}

static int plot_curves(const search_ctx *c, const config *cf, const char *file)
{
    san_plot_series *ps = calloc(c->s->nvariants + 1, sizeof *ps);
    int n = 0;
    for (int v = 0; ps && v < c->s->nvariants; v++) {
        const sizing *z = &cf[v].all;
        if (first_error(&cf[v]) || z->n == 0)
            continue;
        ps[n].label = config_label(c->s, v);
        ps[n].x = malloc(z->n * sizeof *ps[n].x);
        ps[n].y = malloc(z->n * sizeof *ps[n].y);
        for (int i = 0; ps[n].x && ps[n].y && i < z->n; i++) {
            ps[n].x[i] = (double)z->curve[i].k;
            ps[n].y[i] = z->curve[i].v;
        }
        ps[n].n = ps[n].x && ps[n].y && ps[n].label ? z->n : 0;
        n++;
    }
    char err[512], title[256];
    snprintf(title, sizeof title, "%s against the buffer size", c->index);
    int rc = ps ? san_plot(file, title, c->pipeline ? "K (every buffer)" : "K", c->index, ps, n,
                           err, sizeof err) : -1;
    if (rc < 0)
        fprintf(stderr, "san size-buffer: %s\n", ps ? err : "out of memory");
    for (int k = 0; ps && k < n; k++) {
        free(ps[k].label);
        free(ps[k].x);
        free(ps[k].y);
    }
    free(ps);
    return rc == 0 ? EXIT_OK : rc == -2 ? EXIT_USAGE : EXIT_FAIL;
}

/* ------------------------------------------------------------------ */
/* The command                                                          */
/* ------------------------------------------------------------------ */

typedef struct {
    san_sweep_opts run;
    cli_format fmt;
    const char *index, *plot;
    double within;
    long max_k;
    int quiet;
    int nspec;
    char **spec;
} size_args;

static int parse_number(const char *flag, const char *val, double lo, double hi, double *out)
{
    char *end;
    double v = strtod(val, &end);
    if (end == val || *end || !(v >= lo && v <= hi))
        return cli_usage_error("size-buffer", "%s: expected a number in [%g, %g], not '%s'",
                               flag, lo, hi, val);
    *out = v;
    return 0;
}

static int set_option(size_args *A, const char *name, const char *val)
{
    char err[512];
    double x;
    int rc = san_sweep_opts_set(&A->run, name, val, err, sizeof err);
    if (rc < 0)
        return cli_usage_error("size-buffer", "%s", err);
    if (rc == 0)
        return 0;
    if (!strcmp(name, "--index"))
        A->index = val;
    else if (!strcmp(name, "--plot"))
        A->plot = val;
    else if (!strcmp(name, "--within"))
        return parse_number(name, val, 1e-12, 10, &A->within);
    else if (!strcmp(name, "--max-buffer")) {
        if (parse_number(name, val, 2, 1e6, &x))
            return EXIT_USAGE;
        A->max_k = (long)x;
    } else if (cli_parse_format(val, &A->fmt, 0) < 0)
        return cli_usage_error("size-buffer", "--format: expected text or json, not '%s'", val);
    return 0;
}

static const char *const valued[] = {
    "--index", "--within", "--max-buffer", "-f", "--format", "--plot", "-j", "--jobs", "-m",
    "--method", "--tol", "--max-iter", "--time-limit", "--max-states", "--max-memory", "--storage", NULL
};

static int parse_args(int argc, char **argv, size_args *A)
{
    A->spec = calloc(argc + 4, sizeof *A->spec);
    if (!A->spec)
        return EXIT_FAIL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
        char name[64];
        snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - a) : 63, a);
        int known = 0;
        for (int k = 0; valued[k]; k++)
            known |= !strcmp(valued[k], name);
        if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            A->quiet = 1;
        } else if (known) {
            const char *val = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
            if (!val)
                return cli_usage_error("size-buffer", "%s: missing value", name);
            int rc = set_option(A, name, val);
            if (rc)
                return rc;
        } else if (!strcmp(name, "--buffer") || !strcmp(name, "--buffers")) {
            return cli_usage_error("size-buffer", "%s: this is what size-buffer searches; "
                                   "leave it out", name);
        } else {
            A->spec[A->nspec++] = argv[i];
        }
    }
    if (A->nspec == 0 || (strcmp(A->spec[0], "ms") && strcmp(A->spec[0], "pipeline")))
        return cli_usage_error("size-buffer", "expected a template with a buffer: ms or pipeline");
    return 0;
}

/* The mode defaults to async (the only one with a buffer) for ms. */
static int check_mode(size_args *A)
{
    for (int i = 1; i < A->nspec; i++)
        if (!strncmp(A->spec[i], "--mode", 6)) {
            const char *v = A->spec[i][6] == '=' ? A->spec[i] + 7 : (i + 1 < A->nspec ? A->spec[i + 1] : "");
            if (strcmp(v, "async"))
                return cli_usage_error("size-buffer", "--mode: only async has buffers (got '%s')", v);
            return 0;
        }
    if (!strcmp(A->spec[0], "pipeline"))
        return cli_usage_error("size-buffer", "--mode: give --mode async");
    A->spec[A->nspec++] = "--mode";
    A->spec[A->nspec++] = "async";
    return 0;
}

/* Number of stages of a pipeline configuration: items of --stages. */
static int pipeline_buffers(const san_sweep *s)
{
    int a = san_sweep_find_axis(s, "--stages");
    if (a < 0)
        return 0;
    int nb = -1;
    for (int k = 0; k < s->spec.axis[a].nvalues; k++) {
        int m = 1;
        for (const char *p = s->spec.axis[a].values[k]; *p; p++)
            m += *p == ',';
        if (nb >= 0 && nb != m - 1)
            return -1;
        nb = m - 1;
    }
    return nb;
}

static int size_main(size_args *A)
{
    A->spec[A->nspec++] = "--buffer";
    A->spec[A->nspec++] = "1";
    char err[1024];
    san_sweep s;
    int rc = san_sweep_init(&s, A->nspec, A->spec, err, sizeof err);
    if (rc < 0)
        return rc == -2 ? cli_usage_error("size-buffer", "%s", err)
                        : (fprintf(stderr, "san size-buffer: %s\n", err), EXIT_FAIL);
    job J;
    memset(&J, 0, sizeof J);
    search_ctx *c = &J.c;
    c->s = &s;
    c->o = &A->run;
    c->pipeline = !strcmp(s.spec.tmpl, "pipeline");
    c->index = A->index ? A->index : c->pipeline ? "throughput" : "slave_transmitting";
    c->within = A->within;
    c->max_k = A->max_k;
    c->buf_axis = san_sweep_find_axis(&s, "--buffer");
    c->nbuf = c->pipeline ? pipeline_buffers(&s) : 1;
    int status = EXIT_OK;
    if (san_sweep_find_result(&s, c->index) < 0)
        status = cli_usage_error("size-buffer", "--index: unknown index '%s' (not a result of "
                                 "the %s template)", c->index, s.spec.tmpl);
    else if (c->nbuf < 1)
        status = cli_usage_error("size-buffer", "--stages: size-buffer needs at least two "
                                 "stages, the same number in every configuration");
    san_sweep_axis *axes = malloc(s.spec.naxes * sizeof *axes);
    J.cf = calloc(s.nvariants + 1, sizeof *J.cf);
    if (!status && (!axes || !J.cf))
        status = EXIT_FAIL;
    if (!status) {
        /* The per-buffer search names --buffers where the spec has --buffer. */
        memcpy(axes, s.spec.axis, s.spec.naxes * sizeof *axes);
        axes[c->buf_axis].flag = "--buffers";
        J.per_buffer = s.spec;
        J.per_buffer.axis = axes;
        signal(SIGINT, on_sigint);
        A->run.interrupt = &interrupted;
        if (A->run.jobs <= 0)
            A->run.jobs = san_sweep_cores();
        if (A->run.space.max_memory <= 0)
            A->run.space.max_memory = san_default_max_memory() / A->run.jobs;
        san_sweep_parallel(s.nvariants, NULL, A->run.jobs, size_config, &J, NULL,
                           !A->quiet && cli_stderr_is_tty(), "configurations");
        write_all(c, J.cf, A->fmt, stdout);
        fflush(stdout);
        for (int v = 0; v < s.nvariants; v++)
            if (first_error(&J.cf[v]))
                status = EXIT_FAIL;
        if (A->plot) {
            int prc = plot_curves(c, J.cf, A->plot);
            status = prc ? prc : status;
        }
    }
    free(axes);
    free_configs(J.cf, s.nvariants);
    san_sweep_free(&s);
    return status;
}

int cmd_size_buffer(int argc, char **argv)
{
    size_args A;
    memset(&A, 0, sizeof A);
    san_sweep_opts_default(&A.run);
    A.fmt = FMT_TEXT;
    A.within = 0.01;
    A.max_k = 1024;
    int status = parse_args(argc, argv, &A);
    if (status == 0)
        status = check_mode(&A);
    if (status == 0)
        status = size_main(&A);
    free(A.spec);
    return status;
}
