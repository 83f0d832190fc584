/*
 * run.c - solving one variant in-process: compile it (variant.c), build
 * the state space, solve, compute the indices, and keep what the table
 * needs in a row (row.c).
 * Everything here works on the caller's data only, so that many variants
 * can run at once on threads.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/services.h"
#include "sweep/sweep_int.h"
#include "lang/model_int.h"
#include "solver/analysis/analysis_int.h"

/* ------------------------------------------------------------------ */
/* Options                                                              */
/* ------------------------------------------------------------------ */

void san_sweep_opts_default(san_sweep_opts *o)
{
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    san_solve_opts_default(&o->solve);
    san_space_opts_default(&o->space);
}

san_sweep_opts *san_sweep_opts_new(void)
{
    san_sweep_opts *o = malloc(sizeof *o);
    if (o)
        san_sweep_opts_default(o);
    return o;
}

void san_sweep_opts_free(san_sweep_opts *o)
{
    free(o);
}

void san_sweep_opts_delete(san_sweep_opts *o)
{
    san_sweep_opts_free(o);
}

san_status san_sweep_opts_interrupt(san_sweep_opts *o, volatile int *flag)
{
    if (sweep_opts_foreign(o, NULL, 0))
        return SAN_E_USAGE;
    o->interrupt = flag;
    return SAN_OK;
}

int san_sweep_opts_set(san_sweep_opts *o, const char *flag, const char *val,
                       char *err, size_t n)
{
    double x;
    if (sweep_opts_foreign(o, err, n))
        return -1;
    if (!strcmp(flag, "--jobs") || !strcmp(flag, "-j")) {
        if (san_parse_integer(val, 1, 4096, &x) < 0)
            goto bad_int;
        o->jobs = (int)x;
    } else if (!strcmp(flag, "--method") || !strcmp(flag, "-m")) {
        if (san_method_parse(val, &o->solve.method) < 0) {
            sweep_err(err, n, "%s: unknown method '%s' (auto, direct, power, jacobi, gs, "
                      "gmres, bicgstab, iad)", flag, val);
            return -1;
        }
    } else if (!strcmp(flag, "--storage")) {
        if (!strcmp(val, "auto"))
            o->storage = SAN_STORAGE_AUTO;
        else if (!strcmp(val, "sparse"))
            o->storage = SAN_STORAGE_SPARSE;
        else if (!strcmp(val, "kron"))
            o->storage = SAN_STORAGE_KRON;
        else {
            sweep_err(err, n, "%s: expected auto, sparse or kron, not '%s'", flag, val);
            return -1;
        }
    } else if (!strcmp(flag, "--lump")) {
        if (!strcmp(val, "auto") || !strcmp(val, "off")) {
            o->lump = !strcmp(val, "off") ? SAN_LUMP_OFF : SAN_LUMP_AUTO;
        } else {
            sweep_err(err, n, "%s: expected auto or off, not '%s'", flag, val);
            return -1;
        }
    } else if (!strcmp(flag, "--tol")) {
        if (san_parse_double(val, 1e-300, 1, &o->solve.tol) < 0) {
            sweep_err(err, n, "%s: expected a number in (0, 1], not '%s'", flag, val);
            return -1;
        }
    } else if (!strcmp(flag, "--max-iter")) {
        if (san_parse_integer(val, 1, 1e15, &x) < 0)
            goto bad_int;
        o->solve.max_iter = (long)x;
    } else if (!strcmp(flag, "--time-limit")) {
        if (san_parse_double(val, 1e-6, 1e9, &o->solve.time_limit) < 0) {
            sweep_err(err, n, "%s: expected seconds > 0, not '%s'", flag, val);
            return -1;
        }
    } else if (!strcmp(flag, "--max-states")) {
        if (san_parse_integer(val, 1, 9e18, &x) < 0)
            goto bad_int;
        o->space.max_states = (int64_t)x;
    } else if (!strcmp(flag, "--max-memory")) {
        if (san_parse_bytes(val, &o->space.max_memory) < 0) {
            sweep_err(err, n, "%s: expected a size like 4G, 512M or 1T, not '%s'", flag, val);
            return -1;
        }
    } else {
        return 1;
    }
    return 0;
bad_int:
    sweep_err(err, n, "%s: expected a positive integer, not '%s'", flag, val);
    return -1;
}

/* ------------------------------------------------------------------ */
/* The row                                                              */
/* ------------------------------------------------------------------ */

/* Quote a word for a shell when it needs it. */
static void append_word(char **s, const char *w)
{
    int quote = !*w || strpbrk(w, " \t'\"$;&|<>()*?\\") != NULL;
    char *t = sweep_strf("%s%s%s%s%s", *s ? *s : "", *s ? " " : "", quote ? "'" : "", w,
                         quote ? "'" : "");
    free(*s);
    *s = t;
}

static char *command_line(const san_sweep_spec *sp, const char *const *vals)
{
    char *s = NULL;
    append_word(&s, sp->tmpl ? sp->tmpl : sp->path);
    for (int a = 0; s && a < sp->naxes; a++) {
        if (!vals[a] || sp->axis[a].is_define)
            continue;
        append_word(&s, sp->axis[a].flag);
        if (s)
            append_word(&s, vals[a]);
    }
    for (int a = 0; s && a < sp->naxes; a++)
        if (vals[a] && sp->axis[a].is_define) {
            char *def = sweep_strf("%s=%s", sp->axis[a].flag, vals[a]);
            append_word(&s, "-D");
            if (s && def)
                append_word(&s, def);
            free(def);
        }
    return s;
}

static void fail(san_sweep_row *r, const char *msg)
{
    if (!r->error)
        r->error = strdup(msg);
    r->ok = 0;
}

static int keep_results(san_sweep_row *r, const san_model *m, const double *res)
{
    r->res_name = calloc(m->nres + 1, sizeof *r->res_name);
    r->res = calloc(m->nres + 1, sizeof *r->res);
    if (!r->res_name || !r->res)
        return -1;
    r->nres = m->nres;
    for (int i = 0; i < m->nres; i++) {
        r->res[i] = res[i];
        if (!(r->res_name[i] = strdup(m->res[i].name)))
            return -1;
    }
    return 0;
}

static int keep_marginals(san_sweep_row *r, const san_model *m, double *const *marg)
{
    r->naut = m->naut;
    r->aut_name = calloc(m->naut + 1, sizeof *r->aut_name);
    r->nstates = calloc(m->naut + 1, sizeof *r->nstates);
    r->state_name = calloc(m->naut + 1, sizeof *r->state_name);
    r->marginal = calloc(m->naut + 1, sizeof *r->marginal);
    if (!r->aut_name || !r->nstates || !r->state_name || !r->marginal) {
        r->naut = 0;
        return -1;
    }
    for (int a = 0; a < m->naut; a++) {
        int ns = m->aut[a].nstates;
        r->aut_name[a] = strdup(m->aut[a].name);
        r->state_name[a] = calloc(ns + 1, sizeof **r->state_name);
        r->marginal[a] = malloc((ns + 1) * sizeof **r->marginal);
        if (!r->aut_name[a] || !r->state_name[a] || !r->marginal[a])
            return -1;
        r->nstates[a] = ns;
        for (int k = 0; k < ns; k++) {
            r->marginal[a][k] = marg[a][k];
            if (!(r->state_name[a][k] = strdup(m->aut[a].states[k])))
                return -1;
        }
    }
    return 0;
}

/* Analyze a compiled model (solver/analysis/analyze.c: the same pipeline
 * as san solve, the tensor fallback included) and keep what the table
 * needs in the row; vals: the variant's values, for the warm start. */
static void solve_model(const san_model *m, const san_sweep_opts *o, const char *const *vals,
                        san_sweep_row *r)
{
    san_analysis_opts ao;
    san_analysis_opts_default(&ao);
    ao.space = o->space;
    ao.space.progress = 0;
    ao.space.interrupt = o->interrupt;
    ao.solve = o->solve;
    ao.solve.progress = 0;
    ao.solve.interrupt = o->interrupt;
    ao.storage = o->storage;
    ao.lump = o->lump;
    if (o->warm)
        ao.solve.warm = san_warm_cache_nearest(o->warm, vals);
    char msg[sizeof ((san_solve_info *)0)->msg + 32];   /* the solver's, whole */
    san_diag d;
    san_diag_init(&d, "<space>", NULL, 0);
    san_analysis a;
    san_status st = san_analyze(m, &ao, &a, &d);
    if (a.have_space)
        r->reachable = a.sp.n;
    if (a.have_sol) {
        r->method = a.sol.info.method == SAN_M_AUTO ? SAN_M_DIRECT : a.sol.info.method;
        r->iterations = a.sol.info.iterations;
        r->residual = a.sol.info.residual;
        r->error_est = san_solve_reached_estimate(&a.sol.info);  /* NaN: none */
        r->storage = a.kron ? SAN_STORAGE_KRON : SAN_STORAGE_SPARSE;
        r->lumped = a.lumping != NULL;
        /* the positions solved, as san solve counts them: the product
         * states over the descriptor, the (lumped) reachable ones else */
        int64_t n = a.kron ? (m->product_fits ? m->product : INT64_MAX) : a.sp.n;
        r->error_bound = a.sol.info.converged && san_solve_estimate_measured(&a.sol.info, n);
    }
    if (st != SAN_OK && st != SAN_E_NOTCONV) {
        if (a.have_sol && a.sol.info.msg[0])
            snprintf(msg, sizeof msg, "%s", a.sol.info.msg);
        else
            sweep_first_error(&d, msg, sizeof msg);
        fail(r, msg);
    } else if (keep_results(r, m, a.sol.results) < 0 ||
               (o->marginals && keep_marginals(r, m, a.sol.marginal) < 0)) {
        fail(r, "out of memory computing the indices");
    } else if (st == SAN_E_NOTCONV) {
        snprintf(msg, sizeof msg, "not converged: %s", a.sol.info.msg);
        fail(r, msg);
    } else {
        r->ok = 1;
        if (o->warm)
            san_warm_cache_add(o->warm, vals, &a.sp, a.sol.pi);
    }
    san_diag_clear(&d);
    an_analysis_clear(&a);
}

/* A closed form's row: its values as the results, no states, no solve. */
static void evaluate_analytic(const san_sweep_spec *sp, const char *const *vals,
                              san_sweep_row *r)
{
    char msg[512];
    san_analytic_results res;
    r->analytic = 1;
    if (sweep_analytic(sp, vals, &res, msg, sizeof msg) != SAN_OK) {
        fail(r, msg);
        return;
    }
    /* The row takes the result arrays over. */
    r->nres = res.n;
    r->res_name = res.name;
    r->res = res.value;
    r->ok = 1;
}

void san_sweep_eval(const san_sweep_spec *sp, const char *const *vals,
                    const san_sweep_opts *o, san_sweep_row *r)
{
    double t0 = san_now();
    int variant = r->variant;
    int *pick = r->pick;
    memset(r, 0, sizeof *r);
    r->variant = variant;
    r->pick = pick;
    r->residual = NAN;
    r->error_est = NAN;
    r->command = command_line(sp, vals);
    r->product = strdup("");
    char msg[512];
    if (sweep_opts_foreign(o, msg, sizeof msg)) {
        fail(r, msg);
        return;
    }
    if (o->interrupt && *o->interrupt) {
        fail(r, "interrupted");
        return;
    }
    if (sweep_is_analytic(sp)) {
        evaluate_analytic(sp, vals, r);
        r->time_s = san_now() - t0;
        return;
    }
    san_model *m = sweep_compile(sp, vals, o, NULL, msg, sizeof msg);
    if (!m) {
        fail(r, msg);
        r->time_s = san_now() - t0;
        return;
    }
    free(r->product);
    r->product = strdup(m->product_str);
    r->product_log10 = m->product_log10;
    solve_model(m, o, vals, r);
    san_model_free(m);
    if (!r->product || !r->command)
        fail(r, "out of memory");
    r->time_s = san_now() - t0;
}

/* ------------------------------------------------------------------ */
/* The whole sweep                                                      */
/* ------------------------------------------------------------------ */

typedef struct {
    san_sweep *s;
    const san_sweep_opts *o;
    const sweep_chains *ch;
} sweep_job;

static void run_variant(const sweep_job *j, int v, const san_sweep_opts *o)
{
    const char **vals = malloc((j->s->spec.naxes + 1) * sizeof *vals);
    san_sweep_row *r = &j->s->rows[v];
    r->variant = v;
    r->pick = malloc((j->s->spec.naxes + 1) * sizeof *r->pick);
    if (!vals || !r->pick) {
        free(vals);
        fail(r, "out of memory");
        return;
    }
    memcpy(r->pick, j->s->pick[v], j->s->spec.naxes * sizeof *r->pick);
    sweep_variant_values(j->s, v, vals);
    san_sweep_eval(&j->s->spec, vals, o, r);
    free(vals);
}

/* A chain's variants in order, on one thread, each from the answer of
 * the one before: its own cache, so that what a variant starts from does
 * not depend on the other threads. */
static void run_chain(void *ctx, int c)
{
    const sweep_job *j = ctx;
    san_sweep_opts o = *j->o;
    o.warm = !o.warm_chains ? NULL : san_warm_cache_new(j->s->spec.naxes,
                                                        0.1 * san_default_max_memory() /
                                                        (o.jobs > 0 ? o.jobs : 1));
    for (int i = j->ch->start[c]; i < j->ch->start[c + 1]; i++)
        run_variant(j, j->ch->var[i], &o);
    san_warm_cache_free(o.warm);
}

int san_sweep_run(san_sweep *s, const san_sweep_opts *o, char *err, size_t n)
{
    if (err && n)
        err[0] = '\0';
    if (sweep_opts_foreign(o, err, n))
        return -2;
    san_sweep_opts eff = *o;
    if (eff.jobs <= 0)
        eff.jobs = san_sweep_cores();
    if (eff.jobs > s->nvariants)
        eff.jobs = s->nvariants > 0 ? s->nvariants : 1;
    /* Variants solved at once share the memory. */
    if (eff.space.max_memory <= 0)
        eff.space.max_memory = san_default_max_memory() / eff.jobs;
    s->rows = calloc(s->nvariants + 1, sizeof *s->rows);
    sweep_chains ch;
    if (!s->rows || sweep_chains_build(s, eff.warm_chains, &ch) < 0) {
        sweep_err(err, n, "out of memory");
        return -1;
    }
    int rc = sweep_run_mpi(s, &eff, &ch);
    if (rc == 2) {
        sweep_job j = { s, &eff, &ch };
        san_sweep_parallel(ch.n, ch.order, eff.jobs, run_chain, &j, ch.weight,
                           eff.progress, "chains of variants");
        rc = 0;
    }
    sweep_chains_free(&ch);
    return rc;
}

/* Used by mpi.c: the same work for one chain. */
void sweep_run_chain(san_sweep *s, const san_sweep_opts *o, const sweep_chains *ch, int c)
{
    sweep_job j = { s, o, ch };
    run_chain(&j, c);
}
