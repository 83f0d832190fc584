/*
 * pipeline.c - the pipeline template: m stages in a line, each with a mean
 * service time Tr_i, P_i identical replicas and Erlang-k service, bounded
 * buffers between stages (async) or rendezvous hand-offs (sync), a
 * saturated or Poisson source, and stages grouped on shared processors.
 *
 *   san gen pipeline --mode sync|async --stages T1,...,Tm
 *       [--buffer K | --buffers K1,...,Km-1] [--replicas P1,...,Pm]
 *       [--group 1+2,3,...] [--source saturated|poisson:RATE[:CAP]]
 *       [--phases k] [--cm-time TG] [--items N] [--work steady|job]
 *
 * --cm-time: seed 000 (ch. IV, 2.2) feeds a replicated stage through a
 * communication manager (CM) that spends TG per item and hands it to a
 * free replica.  The model inserts the CM as a stage of its own, one
 * replica of mean time TG, just before each stage with P_i > 1, handing
 * over directly (no buffer: the CM receives only what a free replica
 * can take next); the line is renumbered (the header says how) and the
 * deterministic bound becomes min over units of 1 / max(TG, Tr/P), as in
 * `san map`.
 * --items N: execution_time of a job of N items, the first item's time
 * through the empty line plus N - 1 items at the steady throughput (a
 * derived result: the fill is deterministic, the rest the SAN's).
 * --work job (with --items N): the job itself in the chain.  A counter Job
 * j[0..N] of the items stage 1 has finished; stage 1 starts no item past
 * the N-th (serve_1 <= N - Job), and when Job = N and the line is empty
 * the job is over (job_done) and `down` (rate r_down) starts the next one
 * from the empty line.  By renewal, the mean cycle is the job's time plus
 * 1 / r_down, so execution_time = 1 / down_tp - 1 / r_down is exact (as in
 * ms --work slices), and `san passage --until job_done` gives the job
 * time's distribution, whose mean it is.
 *
 * How the line is encoded.  A stage that finishes into a full buffer keeps
 * its item and blocks (blocking after service); an idle replica takes a
 * waiting item at once, and a freed buffer position at once takes an item
 * held by a blocked upstream replica.  Those instantaneous moves cascade
 * (a completion at stage 4 may unblock stages 3, 2 and 1), which SAN cannot
 * express with separate stage and buffer automata without every event
 * touching every automaton.  So the model keeps, per stage i, one counter
 *
 *     Stage<i> = items that left stage i-1 and have not left stage i
 *              = (held by blocked replicas of stage i-1)
 *                + (in the buffer before stage i) + (in service at stage i)
 *
 * and derives everything else from the counters, last stage first, with
 * functions: serve_i = min(Stage_i, P_i - blk_i) replicas serve, the rest
 * wait; of those, min(wait, K_{i-1}) sit in the buffer and the others block
 * stage i-1.  A completion at stage i is then one event, Stage_i - 1 and
 * Stage_{i+1} + 1, at rate mu_i * serve_i: exact, and the state space is
 * the product of the counters' ranges.  Sync is the same with K = 0.
 *
 * Erlang-k service: with one replica a phase counter per stage that only
 * advances while the replica serves and is back at phase 1 after each
 * completion (so a new service always starts there); with P_i > 1
 * replicas, counters of the replicas in phases 2..k (those in phase 1 are
 * the rest of the serving ones).
 */
#include <stdlib.h>
#include <string.h>
#include "gen/gen_int.h"

enum { PL_SYNC, PL_ASYNC };

#define DEF_K 4
#define DEF_QCAP 10
#define MAXS (GEN_MAX_STAGES + 1)       /* arrays are indexed 1..m */

typedef struct {
    int mode;                   /* -1 while unset */
    int m;                      /* stages */
    double t[MAXS];             /* Tr_i */
    long p[MAXS];               /* replicas */
    int np;                     /* items given to --replicas (0: none) */
    long kall;
    int has_k;
    long ks[MAXS];              /* --buffers, 0-based */
    int nks, has_ks;
    char group[256];            /* --group, parsed after the scan */
    int has_group;
    int poisson;
    double lambda;
    long qcap;
    long phases;
    double cm_time;             /* --cm-time; 0: no communication managers */
    int orig[MAXS];             /* after the CM expansion: the --stages
                                   stage each model stage stands for */
    int is_cm[MAXS];            /* 1: the CM of stage orig[i] */
    int orig_m;                 /* stages of --stages */
    long items;                 /* --items; 0: none */
    int job;                    /* --work job: the N items as a finite job */
    int explain;                /* --explain: the derivations, a comment per line */
} pl_par;

typedef struct {
    long k[MAXS];               /* k[i]: buffer after stage i; k[0]: input queue */
    long cap[MAXS];             /* Stage<i> counts 0..cap[i] */
    int has_counter[MAXS];      /* stage 1 with a saturated source has none */
    int gid[MAXS];              /* group of each stage (0-based) */
    int ng;                     /* groups */
    int gsize[MAXS];
    int gfirst[MAXS];           /* lowest stage of each group */
    double bound;               /* deterministic throughput bound */
    char bottleneck[160];
    int bottleneck_stage;
} pl_der;

/* ------------------------------------------------------------------ */
/* Flags                                                                */
/* ------------------------------------------------------------------ */

static const char *const pl_flags[] = {
    "--mode", "--stages", "--buffer", "--buffers", "--replicas", "--group",
    "--source", "--phases", "--cm-time", "--items", "--work", "--explain", NULL
};

static int known_flag(const char *flag)
{
    for (int i = 0; pl_flags[i]; i++)
        if (!strcmp(pl_flags[i], flag))
            return 1;
    return 0;
}

/* "saturated", "poisson:RATE" or "poisson:RATE:CAP". */
static int pl_source(pl_par *p, const char *val, char *err, size_t n)
{
    if (!strcmp(val, "saturated")) {
        p->poisson = 0;
        return 0;
    }
    if (strncmp(val, "poisson:", 8) != 0) {
        gen_err(err, n, "--source: must be saturated or poisson:RATE[:CAP] (got %s)", val);
        return -1;
    }
    char rate[64];
    const char *r = val + 8, *colon = strchr(r, ':');
    size_t len = colon ? (size_t)(colon - r) : strlen(r);
    if (len >= sizeof rate) {
        gen_err(err, n, "--source: poisson rate too long (%zu characters)", len);
        return -1;
    }
    memcpy(rate, r, len);
    rate[len] = '\0';
    if (gen_time("--source: poisson rate", rate, &p->lambda, err, n) < 0)
        return -1;
    if (colon && gen_int("--source: poisson queue capacity", colon + 1, 1, GEN_MAX_COUNT,
                         &p->qcap, err, n) < 0)
        return -1;
    p->poisson = 1;
    return 0;
}

static int pl_flag(void *ctx, const char *flag, const char *val, char *err, size_t n)
{
    pl_par *p = ctx;
    if (!known_flag(flag))
        return GEN_UNKNOWN;
    if (!strcmp(flag, "--explain"))
        return gen_explain_flag(flag, val, &p->explain, err, n);
    if (!val)
        return 0;
    if (!strcmp(flag, "--mode")) {
        if (!strcmp(val, "sync"))
            p->mode = PL_SYNC;
        else if (!strcmp(val, "async"))
            p->mode = PL_ASYNC;
        else {
            gen_err(err, n, "--mode: must be sync or async (got %s)", val);
            return -1;
        }
        return 0;
    }
    if (!strcmp(flag, "--stages"))
        return gen_time_list(flag, val, p->t + 1, GEN_MAX_STAGES, &p->m, err, n);
    if (!strcmp(flag, "--replicas"))
        return gen_int_list(flag, val, 1, GEN_MAX_COUNT, p->p + 1, GEN_MAX_STAGES, &p->np,
                            err, n);
    if (!strcmp(flag, "--buffer")) {
        p->has_k = 1;
        return gen_int(flag, val, 1, GEN_MAX_COUNT, &p->kall, err, n);
    }
    if (!strcmp(flag, "--buffers")) {
        p->has_ks = 1;
        return gen_int_list(flag, val, 1, GEN_MAX_COUNT, p->ks, GEN_MAX_STAGES, &p->nks,
                            err, n);
    }
    if (!strcmp(flag, "--group")) {
        if (strlen(val) >= sizeof p->group) {
            gen_err(err, n, "--group: too long");
            return -1;
        }
        strcpy(p->group, val);
        p->has_group = 1;
        return 0;
    }
    if (!strcmp(flag, "--source"))
        return pl_source(p, val, err, n);
    if (!strcmp(flag, "--cm-time"))
        return gen_time_or_zero(flag, val, &p->cm_time, err, n);
    if (!strcmp(flag, "--items"))
        return gen_int(flag, val, 1, GEN_MAX_ITEMS, &p->items, err, n);
    if (!strcmp(flag, "--work")) {
        if (strcmp(val, "steady") && strcmp(val, "job")) {
            gen_err(err, n, "--work: must be steady or job (got %s)", val);
            return -1;
        }
        p->job = !strcmp(val, "job");
        return 0;
    }
    /* --phases */
    return gen_int(flag, val, 1, GEN_MAX_PHASES, &p->phases, err, n);
}

static void pl_defaults(pl_par *p)
{
    memset(p, 0, sizeof *p);
    p->mode = -1;
    p->kall = DEF_K;
    p->qcap = DEF_QCAP;
    p->phases = 1;
}

/* The model stage of stage s of --stages (they differ after CMs were
 * inserted). */
static int pl_model_stage(const pl_par *p, int s)
{
    for (int i = 1; i <= p->m; i++)
        if (p->orig[i] == s && !p->is_cm[i])
            return i;
    return s;
}

/* One group "1+2+5": marks its stages with group id g. */
static int pl_one_group(const pl_par *p, pl_der *d, const char *s, size_t len, int g,
                        char *err, size_t n)
{
    char item[32];
    size_t i = 0;
    int count = 0;
    while (i <= len) {
        size_t j = i;
        while (j < len && s[j] != '+')
            j++;
        if (j == i || j - i >= sizeof item) {
            gen_err(err, n, "--group: expected groups such as 1+2,3,4+5 (got '%s')", p->group);
            return -1;
        }
        memcpy(item, s + i, j - i);
        item[j - i] = '\0';
        long st;
        if (gen_int("--group: stage", item, 1, p->orig_m, &st, err, n) < 0)
            return -1;
        st = pl_model_stage(p, (int)st);
        if (d->gid[st] != -1) {
            gen_err(err, n, "--group: stage %ld appears twice", st);
            return -1;
        }
        d->gid[st] = g;
        count++;
        i = j + 1;
    }
    return count;
}

/* Groups from --group; stages it does not name run alone. */
static int pl_groups(const pl_par *p, pl_der *d, char *err, size_t n)
{
    for (int i = 1; i <= p->m; i++)
        d->gid[i] = -1;
    int g = 0;
    if (p->has_group) {
        const char *s = p->group;
        for (;;) {
            const char *c = strchr(s, ',');
            size_t len = c ? (size_t)(c - s) : strlen(s);
            if (pl_one_group(p, d, s, len, g, err, n) < 0)
                return -1;
            g++;
            if (!c)
                break;
            s = c + 1;
        }
    }
    for (int i = 1; i <= p->m; i++)
        if (d->gid[i] == -1)
            d->gid[i] = g++;
    d->ng = g;
    for (int j = 0; j < g; j++) {
        d->gsize[j] = 0;
        d->gfirst[j] = 0;
    }
    for (int i = 1; i <= p->m; i++) {
        int j = d->gid[i];
        if (!d->gsize[j]++)
            d->gfirst[j] = i;
    }
    for (int i = 1; i <= p->m; i++)
        if (d->gsize[d->gid[i]] > 1 && p->p[i] > 1) {
            gen_err(err, n, "--group: stage %d has %ld replicas; a group shares one processor, "
                    "so its stages must have one replica each", i, p->p[i]);
            return -1;
        }
    return 0;
}

static int pl_check(pl_par *p, char *err, size_t n)
{
    if (p->mode < 0) {
        gen_err(err, n, "--mode: required (sync or async)");
        return -1;
    }
    if (p->m < 1) {
        gen_err(err, n, "--stages: required (mean service times T1,...,Tm)");
        return -1;
    }
    if (p->np && p->np != p->m) {
        gen_err(err, n, "--replicas: expected %d items, one per stage (got %d)", p->m, p->np);
        return -1;
    }
    if (!p->np)
        for (int i = 1; i <= p->m; i++)
            p->p[i] = 1;
    if (p->mode == PL_SYNC && (p->has_k || p->has_ks)) {
        gen_err(err, n, "%s: only with --mode async (sync stages hand items over directly)",
                p->has_k ? "--buffer" : "--buffers");
        return -1;
    }
    if (p->has_k && p->has_ks) {
        gen_err(err, n, "--buffers: give either --buffer or --buffers, not both");
        return -1;
    }
    if (p->has_ks && p->nks != p->m - 1) {
        gen_err(err, n, "--buffers: expected %d items, one between each two stages (got %d)",
                p->m - 1, p->nks);
        return -1;
    }
    if (p->job && !p->items) {
        gen_err(err, n, "--work job: needs --items N, the items of the job");
        return -1;
    }
    if (p->job && p->poisson) {
        gen_err(err, n, "--work job: only with a saturated source (the job's N items are all "
                "there at the start; a Poisson source brings items without end)");
        return -1;
    }
    if (p->job && p->items > GEN_MAX_COUNT) {
        gen_err(err, n, "--items: at most %ld with --work job (Job counts 0..N), got %ld",
                (long)GEN_MAX_COUNT, p->items);
        return -1;
    }
    if (p->m == 1 && !p->poisson && p->phases == 1 && !p->job) {
        gen_err(err, n, "--stages: one stage fed by a saturated source with exponential service "
                "has no state to model (its throughput is P1/T1); add --source poisson:RATE "
                "or --phases k");
        return -1;
    }
    return 0;
}

/* Seed 000's communication managers: a stage of mean time TG, one
 * replica, handing over directly, before every replicated stage.  The
 * buffers keep their places (the one before stage i now precedes its
 * CM). */
static int pl_expand_cm(pl_par *p, char *err, size_t n)
{
    p->orig_m = p->m;
    for (int i = 1; i <= p->m; i++) {
        p->orig[i] = i;
        p->is_cm[i] = 0;
    }
    int extra = 0;
    for (int i = 1; i <= p->m; i++)
        extra += p->cm_time > 0 && p->p[i] > 1;
    if (!extra)
        return 0;
    if (p->m + extra > GEN_MAX_STAGES) {
        gen_err(err, n, "--cm-time: %d stages with their communication managers, more than %d",
                p->m + extra, GEN_MAX_STAGES);
        return -1;
    }
    double t[MAXS];
    long rep[MAXS], gap[MAXS];
    int orig[MAXS], cm[MAXS], k = 0;
    for (int i = 1; i <= p->m; i++) {
        long after = i < p->m ? (p->has_ks ? p->ks[i - 1] : p->kall) : 0;
        if (p->p[i] > 1) {
            k++;
            t[k] = p->cm_time, rep[k] = 1, orig[k] = i, cm[k] = 1, gap[k] = 0;
        }
        k++;
        t[k] = p->t[i], rep[k] = p->p[i], orig[k] = i, cm[k] = 0, gap[k] = after;
    }
    p->m = k;
    for (int i = 1; i <= k; i++) {
        p->t[i] = t[i];
        p->p[i] = rep[i];
        p->orig[i] = orig[i];
        p->is_cm[i] = cm[i];
        if (i < k)
            p->ks[i - 1] = gap[i];
    }
    p->has_ks = 1;
    p->nks = k - 1;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Derived values                                                       */
/* ------------------------------------------------------------------ */

/* Deterministic bound: each processor (a group, or the P_i replicas of a
 * stage alone) needs sum(Tr) / P per item; the slowest one, and a Poisson
 * source's rate, cap the throughput. */
static void pl_bound(const pl_par *p, pl_der *d)
{
    double worst = 0;
    int wg = 0;
    for (int g = 0; g < d->ng; g++) {
        double load = 0;
        for (int i = 1; i <= p->m; i++)
            if (d->gid[i] == g)
                load += p->t[i] / p->p[i];
        if (load > worst) {
            worst = load;
            wg = g;
        }
    }
    d->bound = 1 / worst;
    d->bottleneck_stage = d->gfirst[wg];
    if (d->gsize[wg] == 1) {
        snprintf(d->bottleneck, sizeof d->bottleneck, "stage %d (Tr/P = %.6g)",
                 d->gfirst[wg], worst);
    } else {
        gbuf b = { 0 };
        gbuf_printf(&b, "stages ");
        int first = 1;
        for (int i = 1; i <= p->m; i++)
            if (d->gid[i] == wg) {
                gbuf_printf(&b, "%s%d", first ? "" : "+", i);
                first = 0;
            }
        gbuf_printf(&b, " on one processor (sum of Tr = %.6g)", worst);
        char *s = gbuf_take(&b);
        snprintf(d->bottleneck, sizeof d->bottleneck, "%s", s ? s : "a group");
        free(s);
    }
    if (p->poisson && p->lambda < d->bound) {
        d->bound = p->lambda;
        d->bottleneck_stage = 0;
        snprintf(d->bottleneck, sizeof d->bottleneck, "the source (arrival rate %.6g)", p->lambda);
    }
}

static int pl_derive(const pl_par *p, pl_der *d, char *err, size_t n)
{
    memset(d, 0, sizeof *d);
    d->k[0] = p->poisson ? p->qcap : 0;
    for (int i = 1; i < p->m; i++)
        d->k[i] = p->mode == PL_SYNC ? 0 : p->has_ks ? p->ks[i - 1] : p->kall;
    if (p->poisson) {
        d->has_counter[1] = 1;
        d->cap[1] = d->k[0] + p->p[1];
    }
    for (int i = 2; i <= p->m; i++) {
        d->has_counter[i] = 1;
        d->cap[i] = p->p[i - 1] + d->k[i - 1] + p->p[i];
    }
    if (pl_groups(p, d, err, n) < 0)
        return -1;
    pl_bound(p, d);
    return 0;
}

/* Product-space formula: the counters' ranges times the phase automata;
 * NULL with err when it does not fit the solver's indices (or out of
 * memory, err empty). */
static char *pl_size(const pl_par *p, const pl_der *d, char *err, size_t n)
{
    gbuf sym = { 0 }, num = { 0 };
    gen_big v;
    gen_big_one(&v);
    int terms = 0;
    for (int i = 1; i <= p->m; i++) {
        const char *x = terms ? " * " : "";
        if (d->has_counter[i]) {
            if (i == 1) {
                gbuf_printf(&sym, "%s(K0+P1+1)", x);
                gbuf_printf(&num, "%s(%ld+%ld+1)", x, d->k[0], p->p[1]);
            } else {
                gbuf_printf(&sym, "%s(P%d+K%d+P%d+1)", x, i - 1, i - 1, i);
                gbuf_printf(&num, "%s(%ld+%ld+%ld+1)", x, p->p[i - 1], d->k[i - 1], p->p[i]);
            }
            gen_big_mul(&v, (unsigned long)d->cap[i] + 1);
            terms++;
        }
        x = terms ? " * " : "";
        if (p->phases > 1 && p->p[i] == 1) {
            gbuf_printf(&sym, "%sk", x);
            gbuf_printf(&num, "%s%ld", x, p->phases);
            gen_big_mul(&v, (unsigned long)p->phases);
            terms++;
        } else if (p->phases > 1) {
            gbuf_printf(&sym, "%s(P%d+1)^(k-1)", x, i);
            gbuf_printf(&num, "%s(%ld+1)^(%ld-1)", x, p->p[i], p->phases);
            for (long j = 1; j < p->phases; j++)
                gen_big_mul(&v, (unsigned long)p->p[i] + 1);
            terms++;
        }
    }
    if (p->job) {
        gbuf_printf(&sym, "%s(N+1)", terms ? " * " : "");
        gbuf_printf(&num, "%s(%ld+1)", terms ? " * " : "", p->items);
        gen_big_mul(&v, (unsigned long)p->items + 1);
        terms++;
    }
    char *s = gbuf_take(&sym), *t = gbuf_take(&num);
    gbuf b = { 0 };
    gbuf_printf(&b, "%s = %s", s ? s : "?", t ? t : "?");
    free(s);
    free(t);
    if (!b.oom && gen_check_size(&v, b.s, p->phases > 1 ? "--replicas, --buffer(s), --phases"
                                                         : "--replicas, --buffer(s)", err, n) < 0) {
        gbuf_free(&b);
        return NULL;
    }
    char value[GEN_BIG_LIMBS * 9 + 32];
    gen_big_str(&v, value, sizeof value);
    gbuf_printf(&b, " = %s", value);
    return gbuf_take(&b);
}

/* ------------------------------------------------------------------ */
/* Text                                                                 */
/* ------------------------------------------------------------------ */

static void pl_list_d(gbuf *b, const double *v, int from, int to)
{
    char x[64];
    for (int i = from; i <= to; i++)
        gbuf_printf(b, "%s%s", i > from ? ", " : "", gen_fmt(x, sizeof x, v[i]));
}

static void pl_list_l(gbuf *b, const long *v, int from, int to)
{
    for (int i = from; i <= to; i++)
        gbuf_printf(b, "%s%ld", i > from ? ", " : "", v[i]);
}

static void pl_header(gbuf *b, const pl_par *p, const pl_der *d, const char *size,
                      int argc, char **argv)
{
    char x[64];
    gbuf_printf(b, "// Pipeline of %d stage%s, %s.\n", p->m, p->m > 1 ? "s" : "",
                p->mode == PL_SYNC ? "synchronous (a stage hands its item straight to the next one, "
                                     "or blocks until that one is free)"
                                   : "asynchronous (bounded buffers; a stage that finishes into a "
                                     "full buffer blocks)");
    gen_cmdline_comment(b, argc, argv);
    gbuf_printf(b, "//\n// Parameters and derived values:\n");
    gbuf_printf(b, "//   mean service times Tr = ");
    pl_list_d(b, p->t, 1, p->m);
    gbuf_printf(b, "\n//   replicas P = ");
    pl_list_l(b, p->p, 1, p->m);
    gbuf_printf(b, "\n//   Erlang phases k = %ld%s\n", p->phases,
                p->phases == 1 ? " (exponential service)" : "");
    if (p->mode == PL_ASYNC && p->m > 1) {
        gbuf_printf(b, "//   buffers between stages K = ");
        pl_list_l(b, d->k, 1, p->m - 1);
        gbuf_printf(b, "\n");
    }
    if (p->poisson)
        gbuf_printf(b, "//   source: Poisson, rate %s, input queue of %ld (arrivals finding it full are lost)\n",
                    gen_fmt(x, sizeof x, p->lambda), d->k[0]);
    else
        gbuf_printf(b, "//   source: saturated (stage 1 always has an item to start)\n");
    if (p->has_group) {
        gbuf_printf(b, "//   processors: %s (stages of a group share one processor equally)\n",
                    p->group);
    }
    gbuf_printf(b, "//   deterministic bound: 1 / max over processors of (sum Tr / P) %s= %s items per time unit\n",
                p->poisson ? "(and the arrival rate) " : "", gen_fmt(x, sizeof x, d->bound));
    gbuf_printf(b, "//   bottleneck: %s\n", d->bottleneck);
    gbuf_printf(b, "// Product space: %s states\n", size);
    gbuf_printf(b, "// Encoding: automaton Stage<i> counts the items that left stage i-1 (or\n"
                   "// arrived) and have not left stage i: those held by blocked replicas of\n"
                   "// stage i-1, those in the buffer before stage i, those in service at i.\n"
                   "// The functions serve_i, wait_i, buf_i, blk_i recover each part, last stage\n"
                   "// first (idle replicas take waiting items at once; buffers fill before an\n"
                   "// upstream stage blocks).%s\n",
                p->poisson ? "" : " Stage 1 never starves, so it has no counter.");
    for (int i = 1; i <= p->m; i++)
        if (p->is_cm[i])
            gbuf_printf(b, "// Stage %d: the communication manager of stage %d of --stages (mean %s\n"
                           "// per item); stage %d of --stages is stage %d here.\n", i, p->orig[i],
                        gen_fmt(x, sizeof x, p->t[i]), p->orig[i], i + 1);
    if (p->job)
        gbuf_printf(b, "// Job regime: Job counts the items stage 1 has finished (0..N); stage 1\n"
                       "// starts none past the N-th; once all N have left the line (job_done)\n"
                       "// `down` (rate r_down) starts the next job. execution_time = 1 / down_tp\n"
                       "// - 1 / r_down is the job's mean time (renewal); its distribution:\n"
                       "// san passage MODEL --until job_done.\n");
    if (p->phases > 1)
        gbuf_printf(b, "// Phase<i>: phase of stage i's service, advanced by a_i while it serves and\n"
                       "// reset by its completion; with replicas, Ph<i>_<j> counts those in phase j.\n");
    gbuf_printf(b, "// Indices (results): see doc/indices.md.\n\n");
}

static void pl_params_ids(gbuf *b, const pl_par *p, const pl_der *d)
{
    char x[64], c[128];
    for (int i = 1; i <= p->m; i++) {
        snprintf(c, sizeof c, "Tr_%d, mean service time of stage %d", i, i);
        gen_line(b, c, "  T_%d = %s;", i, gen_fmt_exact(x, sizeof x, p->t[i]));
        snprintf(c, sizeof c, "replicas of stage %d (structural)", i);
        gen_line(b, c, "  P_%d = %ld;", i, p->p[i]);
        snprintf(c, sizeof c, "service rate of one replica of stage %d", i);
        gen_line(b, c, "  mu_%d = (1 / T_%d);", i, i);
    }
    for (int i = 1; i < p->m && p->mode == PL_ASYNC; i++) {
        snprintf(c, sizeof c, "positions of the buffer after stage %d (structural)", i);
        gen_line(b, c, "  K_%d = %ld;", i, d->k[i]);
    }
    if (p->poisson) {
        gen_line(b, "arrival rate of the Poisson source", "  lambda = %s;",
                 gen_fmt_exact(x, sizeof x, p->lambda));
        gen_line(b, "positions of the input queue (structural)", "  K_0 = %ld;", d->k[0]);
    }
    if (p->phases > 1)
        gen_line(b, "Erlang phases of every service (structural)", "  k_ph = %ld;", p->phases);
    gen_line(b, "deterministic throughput bound, for these times", "  B_det = %.15g;", d->bound);
    if (p->items) {
        double fill = 0;
        for (int i = 1; i <= p->m; i++)
            fill += p->t[i];
        gen_line(b, "items of the job (--items)", "  N_items = %ld;", p->items);
        if (!p->job)
            gen_line(b, "the first item's time through the empty line", "  F_fill = %.15g;", fill);
    }
    if (p->job) {
        double tmin = p->t[1];
        for (int i = 2; i <= p->m; i++)
            tmin = p->t[i] < tmin ? p->t[i] : tmin;
        /* any rate is exact (renewal); 1000 times the fastest service
         * keeps it out of the way without a stiff chain */
        gen_line(b, "down: the next job starts (its time is taken out of execution_time)",
                 "  r_down = %.15g;", 1000 / tmin);
        gen_line(b, "states of Job: items stage 1 has finished, 0..N", "  D_job = [0..N_items];");
    }
    for (int i = 1; i <= p->m; i++)
        if (d->has_counter[i]) {
            snprintf(c, sizeof c, "states of Stage%d: items, 0..%ld", i, d->cap[i]);
            gen_line(b, c, "  D_%d = [0..%ld];", i, d->cap[i]);
        }
    if (p->phases > 1) {
        gen_line(b, "phases 1..k, as indices 0..k-1", "  D_ph = [0..%ld];", p->phases - 1);
        for (int i = 1; i <= p->m; i++)
            if (p->p[i] > 1) {
                snprintf(c, sizeof c, "replicas of stage %d in one phase", i);
                gen_line(b, c, "  D_c%d = [0..%ld];", i, p->p[i]);
            }
    }
}

/* serve_i, wait_i, buf_{i-1}, blk_{i-1}, from the last stage back. */
static void pl_state_fns(gbuf *b, const pl_par *p, const pl_der *d)
{
    char c[160];
    gbuf_printf(b, "  // the line's state, derived from the counters\n");
    for (int i = p->m; i >= 1; i--) {
        snprintf(c, sizeof c, "replicas of stage %d serving an item", i);
        if (!d->has_counter[i] && i == p->m && p->job)
            gen_line(b, c, "  serve_%d = min(P_%d, (N_items - (st Job)));", i, i);
        else if (!d->has_counter[i] && i == p->m)
            gen_line(b, c, "  serve_%d = P_%d;", i, i);
        else if (!d->has_counter[i] && p->job)
            gen_line(b, c, "  serve_%d = max(0, min((P_%d - blk_%d), (N_items - (st Job))));",
                     i, i, i);
        else if (!d->has_counter[i])
            gen_line(b, c, "  serve_%d = max(0, (P_%d - blk_%d));", i, i, i);
        else if (i == p->m)
            gen_line(b, c, "  serve_%d = min((st Stage%d), P_%d);", i, i, i);
        else
            gen_line(b, c, "  serve_%d = max(0, min((st Stage%d), (P_%d - blk_%d)));", i, i, i, i);
        if (!d->has_counter[i])
            continue;
        snprintf(c, sizeof c, i == 1 ? "items in the input queue"
                                     : "items waiting before stage %d", i);
        gen_line(b, c, "  wait_%d = ((st Stage%d) - serve_%d);", i, i, i);
        if (i == 1)
            continue;
        if (p->mode == PL_ASYNC) {
            snprintf(c, sizeof c, "items in the buffer after stage %d", i - 1);
            gen_line(b, c, "  buf_%d = min(wait_%d, K_%d);", i - 1, i, i - 1);
            /* Not wait - buf: functions are expanded where they are used,
             * and a second reference to wait would double the size of
             * every function upstream of this one. */
            snprintf(c, sizeof c, "replicas of stage %d blocked by a full buffer", i - 1);
            gen_line(b, c, "  blk_%d = max(0, (wait_%d - K_%d));", i - 1, i, i - 1);
        } else {
            snprintf(c, sizeof c, "replicas of stage %d blocked, waiting for stage %d", i - 1, i);
            gen_line(b, c, "  blk_%d = wait_%d;", i - 1, i);
        }
    }
}

/* The share of its processor a serving stage gets: serve_i alone, or an
 * equal split among the serving stages of its group. */
static void pl_share(gbuf *b, const pl_par *p, const pl_der *d, int i)
{
    int g = d->gid[i];
    if (d->gsize[g] == 1) {
        gbuf_printf(b, "serve_%d", i);
        return;
    }
    gbuf_printf(b, "(serve_%d / max(1, (", i);
    int first = 1;
    for (int j = 1; j <= p->m; j++)
        if (d->gid[j] == g) {
            gbuf_printf(b, "%sserve_%d", first ? "" : " + ", j);
            first = 0;
        }
    gbuf_printf(b, ")))");
}

static void pl_rate_fns(gbuf *b, const pl_par *p, const pl_der *d)
{
    char c[160];
    gbuf_printf(b, "  // event rates\n");
    if (p->poisson)
        gen_line(b, "arrivals, lost when the input queue is full",
                 "  r_arr = (lambda * (wait_1 < K_0));");
    for (int i = 1; i <= p->m; i++) {
        gbuf s = { 0 };
        pl_share(&s, p, d, i);
        char *share = gbuf_take(&s);
        if (p->phases == 1) {
            snprintf(c, sizeof c, "f_%d: completions at stage %d", i, i);
            gen_line(b, c, "  rf_%d = (mu_%d * %s);", i, i, share ? share : "0");
        } else if (p->p[i] == 1) {
            snprintf(c, sizeof c, "a_%d and f_%d: one phase of stage %d", i, i, i);
            gen_line(b, c, "  rph_%d = ((k_ph * mu_%d) * %s);", i, i, share ? share : "0");
        } else {
            gbuf_printf(b, "  ph1_%d = max(0, (serve_%d - (", i, i);
            for (long j = 2; j <= p->phases; j++)
                gbuf_printf(b, "%s(st Ph%d_%ld)", j > 2 ? " + " : "", i, j);
            gbuf_printf(b, ")));   // replicas of stage %d serving in phase 1\n", i);
            snprintf(c, sizeof c, "a_%d_1: phase 1 -> 2 at stage %d", i, i);
            gen_line(b, c, "  ra_%d_1 = ((k_ph * mu_%d) * ph1_%d);", i, i, i);
            for (long j = 2; j < p->phases; j++) {
                snprintf(c, sizeof c, "a_%d_%ld: phase %ld -> %ld", i, j, j, j + 1);
                gen_line(b, c, "  ra_%d_%ld = ((k_ph * mu_%d) * (st Ph%d_%ld));", i, j, i, i, j);
            }
            snprintf(c, sizeof c, "f_%d: completions from phase k", i);
            gen_line(b, c, "  rf_%d = ((k_ph * mu_%d) * (st Ph%d_%ld));", i, i, i, p->phases);
        }
        free(share);
    }
}

/* The job is over: N items finished at stage 1 and none left in the line
 * (every phase counter is back at its start after the last completion). */
static void pl_job_done(gbuf *b, const pl_par *p, const pl_der *d)
{
    gbuf_printf(b, "  job_done = (((st Job) == N_items)");
    for (int i = 1; i <= p->m; i++)
        if (d->has_counter[i])
            gbuf_printf(b, " && ((st Stage%d) == 0)", i);
    gbuf_printf(b, ");   // all N items out: the job is over (san passage --until job_done)\n");
}

static void pl_identifiers(gbuf *b, const pl_par *p, const pl_der *d)
{
    gbuf_printf(b, "identifiers\n");
    pl_params_ids(b, p, d);
    pl_state_fns(b, p, d);
    pl_rate_fns(b, p, d);
    if (p->job)
        pl_job_done(b, p, d);
    gbuf_printf(b, "\n");
}

/* Automata that take part in the completion f_i. */
static int pl_f_parts(const pl_par *p, const pl_der *d, int i)
{
    int k = d->has_counter[i] + (i < p->m) + (p->job && i == 1);
    if (p->phases > 1)
        k++;
    return k;
}

static void pl_events(gbuf *b, const pl_par *p, const pl_der *d)
{
    char c[160];
    gbuf_printf(b, "events\n");
    if (p->poisson)
        gen_line(b, "an item arrives into the input queue", "  loc arr (r_arr)");
    for (int i = 1; i <= p->m; i++) {
        if (p->phases > 1 && p->p[i] == 1) {
            snprintf(c, sizeof c, "stage %d: its service moves on one phase", i);
            gen_line(b, c, "  loc a_%d (rph_%d)", i, i);
        } else if (p->phases > 1) {
            for (long j = 1; j < p->phases; j++) {
                snprintf(c, sizeof c, "stage %d: a replica moves from phase %ld to %ld", i, j, j + 1);
                gen_line(b, c, "  %s a_%d_%ld (ra_%d_%ld)", j == 1 ? "loc" : "syn", i, j, i, j);
            }
        }
        if (i < p->m)
            snprintf(c, sizeof c, "stage %d completes an item, which moves on to stage %d", i, i + 1);
        else
            snprintf(c, sizeof c, "stage %d completes an item, which leaves the pipeline", i);
        gen_line(b, c, "  %s f_%d (%s_%d)", pl_f_parts(p, d, i) > 1 ? "syn" : "loc", i,
                 p->phases > 1 && p->p[i] == 1 ? "rph" : "rf", i);
    }
    if (p->job)
        gen_line(b, "the job is over: the next one starts from the empty line",
                 "  loc down ((r_down * job_done))");
    gbuf_printf(b, "\n");
}

static void pl_reach(gbuf *b, const pl_par *p, const pl_der *d)
{
    gbuf_printf(b, "// start from the empty pipeline, every service in phase 1\n");
    gbuf_printf(b, "partial reachability = (");
    int first = 1;
    if (p->job) {
        gbuf_printf(b, "((st Job) == 0)");
        first = 0;
    }
    for (int i = 1; i <= p->m; i++) {
        if (d->has_counter[i]) {
            gbuf_printf(b, "%s((st Stage%d) == 0)", first ? "" : " && ", i);
            first = 0;
        }
        if (p->phases > 1 && p->p[i] == 1) {
            gbuf_printf(b, "%s((st Phase%d) == 0)", first ? "" : " && ", i);
            first = 0;
        } else if (p->phases > 1) {
            for (long j = 2; j <= p->phases; j++) {
                gbuf_printf(b, "%s((st Ph%d_%ld) == 0)", first ? "" : " && ", i, j);
                first = 0;
            }
        }
    }
    gbuf_printf(b, ");\n\n");
}

static void pl_counter_aut(gbuf *b, const pl_par *p, int i)
{
    if (i == 1)
        gbuf_printf(b, "  aut Stage1     // items in the input queue or in service at stage 1\n");
    else
        gbuf_printf(b, "  aut Stage%d     // items between the end of stage %d and the end of stage %d\n",
                    i, i - 1, i);
    gbuf_printf(b, "    stt n[D_%d]\n", i);
    gbuf_printf(b, "      to(++) %s", i == 1 ? "arr" : "");
    if (i > 1)
        gbuf_printf(b, "f_%d", i - 1);
    gbuf_printf(b, "\n      to(--) f_%d\n", i);
    (void)p;
}

static void pl_phase_auts(gbuf *b, const pl_par *p, int i)
{
    long k = p->phases;
    if (p->p[i] == 1) {
        gbuf_printf(b, "  aut Phase%d     // phase of the service at stage %d\n", i, i);
        gbuf_printf(b, "    stt ph[D_ph]\n      to(++) a_%d\n", i);
        gbuf_printf(b, "    from ph[%ld]\n      to(ph[0]) f_%d\n", k - 1, i);
        return;
    }
    for (long j = 2; j <= k; j++) {
        gbuf_printf(b, "  aut Ph%d_%ld     // replicas of stage %d serving in phase %ld\n", i, j, i, j);
        gbuf_printf(b, "    stt c[D_c%d]\n      to(++) a_%d_%ld\n", i, i, j - 1);
        if (j < k)
            gbuf_printf(b, "      to(--) a_%d_%ld\n", i, j);
        else
            gbuf_printf(b, "      to(--) f_%d\n", i);
    }
}

static void pl_network(gbuf *b, const pl_par *p, const pl_der *d)
{
    gbuf_printf(b, "network pipeline_%s (continuous)\n", p->mode == PL_SYNC ? "sync" : "async");
    if (p->job) {
        gbuf_printf(b, "  aut Job     // items stage 1 has finished; down: the next job\n");
        gbuf_printf(b, "    stt j[D_job]\n      to(++) f_1\n");
        gbuf_printf(b, "    from j[N_items]\n      to(j[0]) down\n");
    }
    for (int i = 1; i <= p->m; i++) {
        if (d->has_counter[i])
            pl_counter_aut(b, p, i);
        if (p->phases > 1)
            pl_phase_auts(b, p, i);
    }
    gbuf_printf(b, "\n");
}

/* Expected rate of f_i where it is enabled. */
static void pl_tp_expr(gbuf *b, const pl_par *p, int i)
{
    if (p->phases > 1 && p->p[i] == 1)
        gbuf_printf(b, "(rph_%d * ((st Phase%d) == %ld))", i, i, p->phases - 1);
    else
        gbuf_printf(b, "rf_%d", i);
}

static void pl_results(gbuf *b, const pl_par *p, const pl_der *d)
{
    gbuf_printf(b, "results\n");
    gbuf_printf(b, "  throughput = ");
    pl_tp_expr(b, p, p->m);
    gbuf_printf(b, ";\n  deterministic_bound = B_det;\n");
    if (p->job) {
        gbuf_printf(b, "  down_tp = (r_down * job_done);\n");
        gbuf_printf(b, "  // derived from the stationary value of down_tp (renewal): one job, without down\n");
        gbuf_printf(b, "  execution_time = ((1 / down_tp) - (1 / r_down));\n");
    } else if (p->items) {
        gbuf_printf(b, "  // derived from the stationary throughput (extension): fill + (N - 1) items\n");
        gbuf_printf(b, "  execution_time = (F_fill + ((N_items - 1) / throughput));\n");
    }
    gbuf_printf(b, "  bound_fraction = (");
    pl_tp_expr(b, p, p->m);
    gbuf_printf(b, " / B_det);\n");
    gbuf_printf(b, "  bottleneck_stage = %d;   // %s\n", d->bottleneck_stage, d->bottleneck);
    for (int i = 1; i <= p->m; i++) {
        gbuf_printf(b, "  util_%d = (serve_%d / P_%d);\n", i, i, i);
        if (i < p->m)
            gbuf_printf(b, "  blocked_%d = (blk_%d / P_%d);\n", i, i, i);
        else
            gbuf_printf(b, "  blocked_%d = 0;   // the last stage never blocks\n", i);
        if (i == 1 && !p->poisson && !p->job)
            gbuf_printf(b, "  starved_%d = 0;   // a saturated source never lets it starve\n", i);
        else if (i < p->m)
            gbuf_printf(b, "  starved_%d = (((P_%d - serve_%d) - blk_%d) / P_%d);\n", i, i, i, i, i);
        else
            gbuf_printf(b, "  starved_%d = ((P_%d - serve_%d) / P_%d);\n", i, i, i, i);
    }
    if (p->poisson) {
        gbuf_printf(b, "  buffer_mean_0 = wait_1;   // the input queue\n");
        gbuf_printf(b, "  buffer_full_0 = (wait_1 >= K_0);   // = probability an arrival is lost\n");
    }
    for (int i = 1; i < p->m && p->mode == PL_ASYNC; i++) {
        if (!d->k[i])           /* a CM's direct hand-off: no buffer */
            continue;
        gbuf_printf(b, "  buffer_mean_%d = buf_%d;\n", i, i);
        gbuf_printf(b, "  buffer_full_%d = (buf_%d == K_%d);\n", i, i, i);
    }
}

/* ------------------------------------------------------------------ */
/* Entry                                                                */
/* ------------------------------------------------------------------ */

/* The template's parts for gen_write. */
typedef struct {
    const pl_par *p;
    const pl_der *d;
} pl_model;

static void pl_write_header(gbuf *b, const void *t, const char *size, int argc, char **argv)
{
    const pl_model *m = t;
    pl_header(b, m->p, m->d, size, argc, argv);
}

static void pl_write_body(gbuf *b, const void *t)
{
    const pl_model *m = t;
    pl_identifiers(b, m->p, m->d);
    pl_events(b, m->p, m->d);
    pl_reach(b, m->p, m->d);
    pl_network(b, m->p, m->d);
    pl_results(b, m->p, m->d);
}

static const gen_writer pl_writer = { pl_write_header, pl_write_body };

char *gen_pipeline(int argc, char **argv, char **size, char *err, size_t n)
{
    pl_par p;
    pl_der d;
    pl_defaults(&p);
    if (gen_scan_flags(argc, argv, pl_flag, &p, pl_flags, err, n) < 0 || pl_check(&p, err, n) < 0
        || pl_expand_cm(&p, err, n) < 0 || pl_derive(&p, &d, err, n) < 0)
        return NULL;
    if (err && n)
        err[0] = '\0';
    const pl_model m = { &p, &d };
    return gen_write(&pl_writer, &m, p.explain, pl_size(&p, &d, err, n), argc, argv, size,
                     err, n);
}

void gen_pipeline_help(FILE *out)
{
    fprintf(out,
        "pipeline: stages in a line, bounded buffers or rendezvous between them\n"
        "  --mode sync|async        hand items over directly, or through buffers (required)\n"
        "  --stages T1,...,Tm       mean service time of each stage, m <= %d (required)\n"
        "  --buffer K               async: positions of every buffer (default %d)\n"
        "  --buffers K1,...,Km-1    async: one size per buffer\n"
        "  --replicas P1,...,Pm     identical replicas serving each stage (default 1)\n"
        "  --group 1+2,3,4+5        stages sharing one processor (processor sharing);\n"
        "                           unnamed stages run alone\n"
        "  --source saturated|poisson:RATE[:CAP]\n"
        "                           stage 1 always busy (default), or Poisson arrivals\n"
        "                           into an input queue of CAP positions (default %d)\n"
        "  --phases k               Erlang-k service times, 1..%d (default 1: exponential)\n"
        "  --cm-time TG             a communication manager of mean time TG per item\n"
        "                           before every replicated stage (seed 000), as a\n"
        "                           stage of its own; stages are renumbered\n"
        "  --items N                execution_time of a job of N items: the fill plus\n"
        "                           N - 1 items at the steady throughput, or with\n"
        "  --work steady|job        job: the N items as a finite job in the chain, its\n"
        "                           exact mean time; san passage --until job_done gives\n"
        "                           its distribution (default steady)\n"
        "  --explain                a header with the derivations and the encoding,\n"
        "                           and a comment on each line\n"
        "  product space: prod_i (P(i-1)+K(i-1)+P(i)+1) [* (K0+P1+1) Poisson]\n"
        "                 [* (N+1) job]\n"
        "                 * per stage: k (P=1) or (P+1)^(k-1) (P>1) when k > 1\n",
        GEN_MAX_STAGES, DEF_K, DEF_QCAP, GEN_MAX_PHASES);
}
