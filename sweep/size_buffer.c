/*
 * size_buffer.c - for each configuration, the smallest buffer whose
 * index is within a tolerance of its large-buffer limit (san size-buffer).
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
#include <stdlib.h>
#include <string.h>
#include "base/services.h"
#include "sweep/sweep_int.h"

/* What a search needs to evaluate the index at a buffer size. */
typedef struct {
    const san_size_buffer *b;
    const san_sweep_opts *o;
    int buf_axis;           /* the --buffer axis of the spec */
} search_ctx;

static int add_point(san_buffer_sizing *z, san_buffer_point pt)
{
    const long k = pt.k;
    san_buffer_point *p = realloc(z->curve, (z->n + 1) * sizeof *p);
    if (!p)
        return -1;
    z->curve = p;
    int i = z->n++;
    while (i > 0 && p[i - 1].k > k) {
        p[i] = p[i - 1];
        i--;
    }
    p[i] = pt;
    return 0;
}

const san_buffer_point *san_buffer_sizing_at(const san_buffer_sizing *z, long k)
{
    for (int i = 0; i < z->n; i++)
        if (z->curve[i].k == k)
            return &z->curve[i];
    return NULL;
}

/* The value of the buffer axis for one evaluation: K for --buffer, or
 * for --buffers every buffer at big except buffer j at k. */
static char *buffer_value(const search_ctx *c, int j, long k, long big)
{
    if (j < 0)
        return sweep_strf("%ld", k);
    char *s = sweep_strf("%s", "");
    for (int i = 0; s && i < c->b->nbuf; i++) {
        char *t = sweep_strf("%s%s%ld", s, i ? "," : "", i == j ? k : big);
        free(s);
        s = t;
    }
    return s;
}

/* The index in a solved row; an error message otherwise. */
static int row_index(const san_sweep_row *r, const char *index, double *v, char **error)
{
    if (!r->ok) {
        *error = sweep_strf("%s", r->error ? r->error : "failed");
        return -1;
    }
    if (san_sweep_row_result(r, index, v))
        return 0;
    *error = sweep_strf("the model has no result '%s'", index);
    return -1;
}

/* The index with buffer j (or all, j < 0) at k; remembered in z. */
static int evaluate(const search_ctx *c, const san_sweep_spec *spec, const char **vals,
                    int j, long k, long big, san_buffer_sizing *z, double *v)
{
    const san_buffer_point *p = san_buffer_sizing_at(z, k);
    if (p) {
        *v = p->v;
        return 0;
    }
    char *bv = buffer_value(c, j, k, big);
    if (!bv) {
        z->error = sweep_strf("out of memory");
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
    int rc = row_index(&r, c->b->index, v, &error);
    san_buffer_point pt = { k, *v, NAN, NAN, { 0 }, NULL };
    if (rc == 0) {
        san_sweep_row_result(&r, c->b->throughput, &pt.throughput);
        san_sweep_row_result(&r, "efficiency", &pt.efficiency);
        san_sweep_row_accuracy(&r, &pt.acc);
        pt.command = r.command;     /* the point takes it over */
        r.command = NULL;
    }
    san_sweep_row_free(&r);
    if (rc < 0) {
        z->error = sweep_strf("K = %ld: %s", k, error ? error : "failed");
        free(error);
        return -1;
    }
    if (add_point(z, pt) < 0) {
        free(pt.command);
        z->error = sweep_strf("out of memory");
        return -1;
    }
    return 0;
}

static int close_to(double v, double ref, double tol)
{
    return fabs(v - ref) <= tol * (ref != 0 ? fabs(ref) : 1);
}

/* Doubling with every buffer at K until the index moves by less than
 * half the tolerance: the last value is the limit. */
static int find_limit(const search_ctx *c, const san_sweep_spec *spec, const char **vals,
                      san_buffer_config *cf)
{
    san_buffer_sizing *z = &cf->all;
    double prev, cur = 0;
    if (evaluate(c, spec, vals, -1, 1, 0, z, &prev) < 0)
        return -1;
    for (long k = 2;; k *= 2) {
        if (k > c->b->max_buffer) {
            z->error = sweep_strf("no plateau up to K = %ld (--max-buffer): the index still moves "
                                  "by %.3g%% per doubling", k / 2, 100 * fabs(cur - prev) /
                                  (cur != 0 ? fabs(cur) : 1));
            return -1;
        }
        if (evaluate(c, spec, vals, -1, k, 0, z, &cur) < 0)
            return -1;
        if (close_to(prev, cur, c->b->within / 2)) {
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
                    const san_buffer_config *cf, san_buffer_sizing *z)
{
    long lo = 0, hi = 1;
    double v;
    for (;;) {
        if (evaluate(c, spec, vals, j, hi, cf->k_limit, z, &v) < 0)
            return -1;
        if (close_to(v, cf->limit, c->b->within) || hi >= cf->k_limit)
            break;
        lo = hi;
        hi = hi * 2 < cf->k_limit ? hi * 2 : cf->k_limit;
    }
    while (hi - lo > 1) {
        long mid = lo + (hi - lo) / 2;
        if (evaluate(c, spec, vals, j, mid, cf->k_limit, z, &v) < 0)
            return -1;
        if (close_to(v, cf->limit, c->b->within))
            hi = mid;
        else
            lo = mid;
    }
    z->k = hi;
    return evaluate(c, spec, vals, j, hi, cf->k_limit, z, &z->value);
}

/* What one more position buys: the index at K + 1 (one solve more when
 * the search did not try it, warm-started from K's answer). */
static int one_more(const search_ctx *c, const san_sweep_spec *spec, const char **vals,
                    san_buffer_config *cf)
{
    double v;
    return evaluate(c, spec, vals, -1, cf->all.k + 1, 0, &cf->all, &v);
}

/* Pipeline: every buffer at its own size at once, the honest check (the
 * buffers' effects add up). */
static void check_combined(const search_ctx *c, const san_sweep_spec *spec, const char **vals,
                           san_buffer_config *cf)
{
    char *s = sweep_strf("%s", "");
    for (int i = 0; s && i < cf->neach; i++) {
        char *t = sweep_strf("%s%s%ld", s, i ? "," : "", cf->each[i].k);
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
    cf->combined_ok = row_index(&r, c->b->index, &cf->combined, &error) == 0;
    cf->combined_within = cf->combined_ok && close_to(cf->combined, cf->limit, c->b->within);
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
} job;

static void size_config_with(const job *J, const search_ctx *c, int v)
{
    const san_sweep *s = &c->b->sweep;
    san_buffer_config *cf = &c->b->config[v];
    const char **vals = calloc(s->spec.naxes + 1, sizeof *vals);
    if (!vals) {
        cf->all.error = sweep_strf("out of memory");
        return;
    }
    sweep_variant_values(s, v, vals);
    if (find_limit(c, &s->spec, vals, cf) == 0 &&
        smallest(c, &s->spec, vals, -1, cf, &cf->all) == 0 &&
        one_more(c, &s->spec, vals, cf) == 0 && c->b->pipeline) {
        cf->each = calloc(c->b->nbuf, sizeof *cf->each);
        cf->neach = cf->each ? c->b->nbuf : 0;
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
    const job *J = ctx;
    search_ctx mine = J->c;
    san_sweep_opts o = *J->c.o;
    o.warm = san_warm_cache_new(J->c.b->sweep.spec.naxes,
                                0.1 * san_default_max_memory() / (o.jobs > 0 ? o.jobs : 1));
    mine.o = &o;
    size_config_with(J, &mine, v);
    san_warm_cache_free(o.warm);
}

/* ------------------------------------------------------------------ */
/* Entry points                                                         */
/* ------------------------------------------------------------------ */

void san_size_buffer_opts_default(san_size_buffer_opts *o)
{
    *o = (san_size_buffer_opts){ .struct_size = sizeof *o, .within = 0.01, .max_buffer = 1024 };
}

/* Number of buffers of a pipeline configuration: items of --stages,
 * less one; -1 when the configurations differ. */
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

/* The template's flags as size-buffer runs them: no buffer of the
 * user's, --mode async (the default for ms), the buffer axis at 1. */
static san_status search_argv(int argc, char **argv, char **spec, int *nspec, char *err, size_t n)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
        size_t len = eq ? (size_t)(eq - a) : strlen(a);
        if ((len == 8 && !strncmp(a, "--buffer", 8)) || (len == 9 && !strncmp(a, "--buffers", 9))) {
            sweep_err(err, n, "%.*s: this is what size-buffer searches; leave it out", (int)len, a);
            return SAN_E_USAGE;
        }
    }
    if (argc == 0 || (strcmp(argv[0], "ms") && strcmp(argv[0], "pipeline"))) {
        sweep_err(err, n, "expected a template with a buffer: ms or pipeline");
        return SAN_E_USAGE;
    }
    int k = 0, mode = 0;
    for (int i = 0; i < argc; i++)
        spec[k++] = argv[i];
    for (int i = 1; i < argc && !mode; i++)
        if (!strncmp(argv[i], "--mode", 6)) {
            const char *v = argv[i][6] == '=' ? argv[i] + 7 : i + 1 < argc ? argv[i + 1] : "";
            if (strcmp(v, "async")) {
                sweep_err(err, n, "--mode: only async has buffers (got '%s')", v);
                return SAN_E_USAGE;
            }
            mode = 1;
        }
    if (!mode && !strcmp(argv[0], "pipeline")) {
        sweep_err(err, n, "--mode: give --mode async");
        return SAN_E_USAGE;
    }
    if (!mode) {
        spec[k++] = "--mode";
        spec[k++] = "async";
    }
    spec[k++] = "--buffer";
    spec[k++] = "1";
    spec[k] = NULL;
    *nspec = k;
    return SAN_OK;
}

san_status san_size_buffer_init(san_size_buffer *b, int argc, char **argv,
                                const san_size_buffer_opts *o, char *err, size_t n)
{
    memset(b, 0, sizeof *b);
    san_size_buffer_opts def;
    san_size_buffer_opts_default(&def);
    if (!o)
        o = &def;
    else if (BASE_OPTS_FOREIGN(o, "size-buffer", "san_size_buffer_opts_default", err, n))
        return SAN_E_USAGE;
    char **spec = calloc(argc + 6, sizeof *spec);
    int nspec = 0;
    if (!spec) {
        sweep_err(err, n, "out of memory");
        return SAN_E_NOMEM;
    }
    san_status st = search_argv(argc, argv, spec, &nspec, err, n);
    if (st == SAN_OK) {
        int rc = san_sweep_init(&b->sweep, nspec, spec, o->diag, err, n);
        st = rc == -2 ? SAN_E_USAGE : rc == -3 ? SAN_E_INPUT : rc < 0 ? SAN_E_IO : SAN_OK;
    }
    free(spec);
    if (st != SAN_OK)
        return st;
    const san_sweep *s = &b->sweep;
    b->pipeline = !strcmp(s->spec.tmpl, "pipeline");
    /* The default criterion: the throughput within the tolerance of the
     * unbounded buffer's, what a buffer buys (issue 33: the index of
     * slave_transmitting asked 6/9/14/77 positions for 2/3/4/7 slaves
     * where the throughput is within 1% at 3/4/5/30). */
    b->throughput = b->pipeline ? "throughput" : "pack_throughput";
    b->index = strdup(o->index ? o->index : b->throughput);
    b->within = o->within;
    b->max_buffer = o->max_buffer;
    b->nbuf = b->pipeline ? pipeline_buffers(s) : 1;
    if (!b->index) {
        sweep_err(err, n, "out of memory");
        st = SAN_E_NOMEM;
    } else if (san_sweep_find_result(s, b->index) < 0) {
        sweep_err(err, n, "--index: unknown index '%s' (not a result of the %s template)",
                  b->index, s->spec.tmpl);
        st = SAN_E_USAGE;
    } else if (b->nbuf < 1) {
        sweep_err(err, n, "--stages: size-buffer needs at least two stages, the same number in "
                  "every configuration");
        st = SAN_E_USAGE;
    }
    if (st != SAN_OK)
        san_size_buffer_free(b);
    return st;
}

san_status san_size_buffer_run(san_size_buffer *b, const san_sweep_opts *o, char *err,
                               size_t n)
{
    if (sweep_opts_foreign(o, err, n))
        return SAN_E_USAGE;
    san_sweep *s = &b->sweep;
    san_sweep_opts run = *o;
    if (run.jobs <= 0)
        run.jobs = san_sweep_cores();
    if (run.space.max_memory <= 0)
        run.space.max_memory = san_default_max_memory() / run.jobs;
    job J;
    memset(&J, 0, sizeof J);
    J.c.b = b;
    J.c.o = &run;
    J.c.buf_axis = san_sweep_find_axis(s, "--buffer");
    san_sweep_axis *axes = malloc((s->spec.naxes + 1) * sizeof *axes);
    if (!b->config)
        b->config = calloc(s->nvariants + 1, sizeof *b->config);
    if (!axes || !b->config) {
        free(axes);
        sweep_err(err, n, "out of memory");
        return SAN_E_NOMEM;
    }
    /* The per-buffer search names --buffers where the spec has --buffer. */
    memcpy(axes, s->spec.axis, s->spec.naxes * sizeof *axes);
    axes[J.c.buf_axis].flag = "--buffers";
    J.per_buffer = s->spec;
    J.per_buffer.axis = axes;
    san_sweep_parallel(s->nvariants, NULL, run.jobs, size_config, &J, NULL, run.progress,
                       "configurations");
    free(axes);
    return SAN_OK;
}

const char *san_buffer_config_error(const san_buffer_config *c)
{
    if (c->all.error)
        return c->all.error;
    for (int j = 0; j < c->neach; j++)
        if (c->each[j].error)
            return c->each[j].error;
    return NULL;
}

static void free_sizing(san_buffer_sizing *z)
{
    for (int i = 0; z->curve && i < z->n; i++)
        free(z->curve[i].command);
    free(z->curve);
    free(z->error);
}

void san_size_buffer_free(san_size_buffer *b)
{
    for (int v = 0; b->config && v < b->sweep.nvariants; v++) {
        san_buffer_config *cf = &b->config[v];
        free_sizing(&cf->all);
        for (int j = 0; j < cf->neach; j++)
            free_sizing(&cf->each[j]);
        free(cf->each);
    }
    free(b->config);
    free(b->index);
    san_sweep_clear(&b->sweep);
    memset(b, 0, sizeof *b);
}
