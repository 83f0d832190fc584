/*
 * ms.c - the master/slave template: the synchronous and asynchronous SAN
 * models of Baldo et al., "Performance models for master/slave parallel
 * programs" (seed 004, sections 3 and 5), parameterized by its eqs. 1-7.
 *
 *   san gen ms --mode sync|async --slaves N [--buffer K] [--work steady|slices]
 *              [--points NP] [--overlap PS] [--pack-points BL]
 *              [--slices NS | --slices-per-node SPN]
 *              [--task-time TT] [--pack-time TP] [--compute-time CM]
 *              [--eval-time ER] [--pi P] [--rate-EVENT R ...] [--expanded]
 *
 * --compute-time and --pack-time take one time, or one per slave
 * (heterogeneous slaves, seed 003): then each slave's p_i and r_i have
 * rates of their own.  The result flow_bound is seed 003's work-rate
 * bound in packs per second: min(master, sum of slaves), each resource's
 * rate the inverse of its time per pack (doc/indices.md).
 *
 * Work regimes:
 *   steady  the paper's model of a program with much work: `up` starts it
 *           once and it never ends (the initial state is transient), so
 *           the stationary distribution is the long-run regime;
 *   slices  a finite job of NS slices: an automaton Work counts the slices
 *           not yet sent, `down` (rate 1000) ends the run once every slice
 *           is done and the buffer is empty, `up` starts the next run; the
 *           stationary distribution is the profile of one execution and
 *           1 / throughput(down) - 1 / r_down is its predicted time.
 *
 * The slaves are written once, replicated (aut Slave[i:D_slaves] with
 * its own events s[i], p[i], r[i]; san(5), "Replicated events"), when
 * they are alike; --expanded writes them one by one (Slave1..SlaveN,
 * s_1..s_N, ...), the form PEPS 2003 reads and the dialects start from.
 * Slaves with times of their own, or with routing of their own (the
 * synchronous slices regime), are always written out.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gen/gen_int.h"

enum { MS_SYNC, MS_ASYNC };
enum { WORK_STEADY, WORK_SLICES };

/* The event rates, in the order of the identifiers block. */
enum { R_UP, R_SEND, R_PROC, R_PACK, R_EVAL, R_DOWN, NRATES };
static const char *const rate_flag[NRATES] = {
    "--rate-up", "--rate-send", "--rate-proc", "--rate-pack", "--rate-eval", "--rate-down"
};
static const char *const rate_id[NRATES] = {
    "r_up", "r_send", "r_proc", "r_pack", "r_eval", "r_down"
};

/* Case-study defaults (section 5.1.1): BL 5500 points (64 KB), PS 0.5,
 * NP 230000, 2 slices per node.  The times are plausible values for its
 * cluster (Pentium III 1 GHz, Myrinet), in seconds: a task (the slice's
 * seed pairs) takes 50 ms to send, a 64 KB pack of matches 10 ms with
 * packing and MPI overhead, computing 5500 matches 1 s, and the master's
 * duplicate filtering of one pack 150 ms, which makes the master saturate
 * near CM / ER = 6-7 slaves. */
#define DEF_NP 230000.0
#define DEF_PS 0.5
#define DEF_BL 5500.0
#define DEF_SPN 2
#define DEF_TT 0.05
#define DEF_TP 0.01
#define DEF_CM 1.0
#define DEF_ER 0.15
#define DEF_DOWN 1000.0
#define DEF_K 40

/* Ranges of the eqs. 1-2 inputs (the others are gen_int.h's): points are
 * counted, at least one; an overlap is a multiple of a slice, up to a
 * million (thin slices under a wide window); with these RNP and
 * RNP / (BL*NS) stay finite, and NB is checked after (MAX_PACKS). */
#define MAX_POINTS 1e15
#define MAX_OVERLAP 1e6
/* NB up to 10^12 packs per slice: pi = (NB-1)/NB then keeps 1 - pi
 * >= 1e-12, as --pi does (GEN_PROB_EPS). */
#define MAX_PACKS 1e12

typedef struct {
    int mode, work;               /* -1 while unset */
    long n, k, ns, spn;
    int has_n, has_k, has_ns, has_spn;
    double np, ps, bl;            /* eqs. 1-2 inputs */
    double tt, tp, cm, er;        /* measured times */
    double cms[GEN_MAX_SLAVES], tps[GEN_MAX_SLAVES];   /* per slave (lists) */
    int ncm, ntp;                 /* items of the lists; > 1: per slave */
    double pi;
    int has_pi;
    double rate[NRATES];
    int has_rate[NRATES];
    int expanded;                 /* --expanded: one automaton per slave */
    int split;                    /* --send-rule split: 1/TT shared by the idle slaves */
    int explain;                  /* --explain: the derivations, a comment per line */
} ms_par;

typedef struct {
    long ns;                      /* slices */
    double rnp;                   /* eq. 1 */
    long nb;                      /* eq. 2 */
    double pi;                    /* eq. 3 or --pi */
    double rate[NRATES];          /* the values the model uses */
    long left;                    /* slices still to send after `up` */
    /* The slaves in I, Pr, Tx: "(nb [Slave1..Slave3] I)", or, replicated,
     * the identifiers n_I, n_Pr, n_Tx that hold it (ms_counts). */
    char slaves[48];              /* "[Slave1..Slave3]": the range of nb */
    char nb_i[64], nb_pr[64], nb_tx[64];
    double proc[GEN_MAX_SLAVES + 1], pack[GEN_MAX_SLAVES + 1];  /* per slave, 1-based */
    double w_master, w_slaves;    /* work rates, packs per second */
    double flow_bound;
    int repl;                     /* the slaves written once, replicated */
    int tp_named;                 /* the identifier tp_pack holds ms_pack_tp */
} ms_der;

/* ------------------------------------------------------------------ */
/* Flags                                                                */
/* ------------------------------------------------------------------ */

static const char *const ms_flags[] = {
    "--mode", "--work", "--slaves", "--buffer", "--points", "--overlap",
    "--pack-points", "--slices", "--slices-per-node", "--task-time",
    "--pack-time", "--compute-time", "--eval-time", "--pi",
    "--rate-up", "--rate-send", "--rate-proc", "--rate-pack", "--rate-eval",
    "--rate-down", "--expanded", "--send-rule", "--explain", NULL
};

static int known_flag(const char *flag)
{
    for (int i = 0; ms_flags[i]; i++)
        if (!strcmp(ms_flags[i], flag))
            return 1;
    return 0;
}

static int ms_choice(const char *flag, const char *val, const char *a,
                     const char *b, int *out, char *err, size_t n)
{
    if (!strcmp(val, a))
        *out = 0;
    else if (!strcmp(val, b))
        *out = 1;
    else {
        gen_err(err, n, "%s: must be %s or %s (got %s)", flag, a, b, val);
        return -1;
    }
    return 0;
}

static int ms_rate_flag(ms_par *p, const char *flag, const char *val,
                        char *err, size_t n)
{
    for (int r = 0; r < NRATES; r++)
        if (!strcmp(flag, rate_flag[r])) {
            p->has_rate[r] = 1;
            return gen_time(flag, val, &p->rate[r], err, n);
        }
    return GEN_UNKNOWN;
}

static int ms_flag(void *ctx, const char *flag, const char *val, char *err, size_t n)
{
    ms_par *p = ctx;
    if (!known_flag(flag))
        return GEN_UNKNOWN;
    if (!strcmp(flag, "--explain"))
        return gen_explain_flag(flag, val, &p->explain, err, n);
    if (!strcmp(flag, "--expanded")) {
        if (!val) {
            p->expanded = 1;
            return GEN_SWITCH;
        }
        gen_err(err, n, "--expanded: takes no value");
        return -1;
    }
    if (!val)
        return 0;
    if (!strcmp(flag, "--mode"))
        return ms_choice(flag, val, "sync", "async", &p->mode, err, n);
    if (!strcmp(flag, "--work"))
        return ms_choice(flag, val, "steady", "slices", &p->work, err, n);
    if (!strcmp(flag, "--send-rule"))
        return ms_choice(flag, val, "paper", "split", &p->split, err, n);
    if (!strcmp(flag, "--slaves")) {
        p->has_n = 1;
        return gen_int(flag, val, 1, GEN_MAX_SLAVES, &p->n, err, n);
    }
    if (!strcmp(flag, "--buffer")) {
        p->has_k = 1;
        return gen_int(flag, val, 1, GEN_MAX_COUNT, &p->k, err, n);
    }
    if (!strcmp(flag, "--slices")) {
        p->has_ns = 1;
        return gen_int(flag, val, 1, GEN_MAX_COUNT, &p->ns, err, n);
    }
    if (!strcmp(flag, "--slices-per-node")) {
        p->has_spn = 1;
        return gen_int(flag, val, 1, GEN_MAX_COUNT, &p->spn, err, n);
    }
    if (!strcmp(flag, "--points"))
        return gen_real(flag, val, 1, MAX_POINTS, &p->np, err, n);
    if (!strcmp(flag, "--overlap"))
        return gen_real(flag, val, 0, MAX_OVERLAP, &p->ps, err, n);
    if (!strcmp(flag, "--pack-points"))
        return gen_real(flag, val, 1, MAX_POINTS, &p->bl, err, n);
    if (!strcmp(flag, "--task-time"))
        return gen_time(flag, val, &p->tt, err, n);
    if (!strcmp(flag, "--pack-time")) {
        if (gen_time_list(flag, val, p->tps, GEN_MAX_SLAVES, &p->ntp, err, n) < 0)
            return -1;
        p->tp = p->tps[0];
        return 0;
    }
    if (!strcmp(flag, "--compute-time")) {
        if (gen_time_list(flag, val, p->cms, GEN_MAX_SLAVES, &p->ncm, err, n) < 0)
            return -1;
        p->cm = p->cms[0];
        return 0;
    }
    if (!strcmp(flag, "--eval-time"))
        return gen_time(flag, val, &p->er, err, n);
    if (!strcmp(flag, "--pi")) {
        p->has_pi = 1;
        return gen_prob(flag, val, &p->pi, err, n);
    }
    return ms_rate_flag(p, flag, val, err, n);
}

static void ms_defaults(ms_par *p)
{
    memset(p, 0, sizeof *p);
    p->mode = -1;
    p->work = WORK_STEADY;
    p->k = DEF_K;
    p->spn = DEF_SPN;
    p->np = DEF_NP;
    p->ps = DEF_PS;
    p->bl = DEF_BL;
    p->tt = DEF_TT;
    p->tp = DEF_TP;
    p->cm = DEF_CM;
    p->er = DEF_ER;
}

/* A per-slave list has one time per slave and no --rate-* override. */
static int ms_list_check(const ms_par *p, const char *flag, int items, int rate, char *err,
                         size_t n)
{
    if (items <= 1)
        return 0;
    if (items != p->n) {
        gen_err(err, n, "%s: one time, or one per slave (%ld; got %d)", flag, p->n, items);
        return -1;
    }
    if (p->has_rate[rate]) {
        gen_err(err, n, "%s: a list of times and %s cannot both be given", flag, rate_flag[rate]);
        return -1;
    }
    return 0;
}

/* Checks that involve several flags. */
static int ms_check(const ms_par *p, char *err, size_t n)
{
    if (p->mode < 0) {
        gen_err(err, n, "--mode: required (sync or async)");
        return -1;
    }
    if (!p->has_n) {
        gen_err(err, n, "--slaves: required (the number of slaves N >= 1)");
        return -1;
    }
    if (p->has_k && p->mode == MS_SYNC) {
        gen_err(err, n, "--buffer: only with --mode async (the synchronous model has no buffer)");
        return -1;
    }
    if (p->has_ns && p->has_spn) {
        gen_err(err, n, "--slices-per-node: give either --slices or --slices-per-node, not both");
        return -1;
    }
    /* NS is a count like --slices: the Work automaton has NS-N+1 states */
    if (!p->has_ns && p->spn * p->n > GEN_MAX_COUNT) {
        gen_err(err, n, "--slices-per-node: NS = SPN * N = %ld * %ld = %ld slices, more than "
                "%ld; lower --slices-per-node or --slaves", p->spn, p->n, p->spn * p->n,
                GEN_MAX_COUNT);
        return -1;
    }
    if (p->work == WORK_SLICES && p->has_ns && p->ns < p->n) {
        gen_err(err, n, "--slices: the slices regime needs at least one slice per slave "
                "(NS = %ld < N = %ld)", p->ns, p->n);
        return -1;
    }
    if (ms_list_check(p, "--compute-time", p->ncm, R_PROC, err, n) < 0
        || ms_list_check(p, "--pack-time", p->ntp, R_PACK, err, n) < 0)
        return -1;
    if (p->work == WORK_STEADY && p->has_rate[R_DOWN]) {
        gen_err(err, n, "--rate-down: only with --work slices (the steady regime has no down event)");
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Parameterization, eqs. 1-7                                           */
/* ------------------------------------------------------------------ */

static int ms_hetero_cm(const ms_par *p)
{
    return p->ncm > 1;
}

static int ms_hetero_tp(const ms_par *p)
{
    return p->ntp > 1;
}

/* Seed 003's work-rate bound in packs per second.  A slave's time per
 * pack: computing and sending it, and, once per slice (1 - pi of the
 * packs), waiting for its next task (sync: for the master's evaluation
 * of the phase too); the master's: evaluating the pack and sending a task
 * per slice (sync: per phase of N slices, one send and one evaluation). */
static void ms_flow(const ms_par *p, ms_der *d)
{
    double last = 1 - d->pi, send = 1 / d->rate[R_SEND], eval = 1 / d->rate[R_EVAL];
    d->w_slaves = 0;
    for (long i = 1; i <= p->n; i++) {
        double cm = ms_hetero_cm(p) ? p->cms[i - 1] : 1 / d->rate[R_PROC];
        double tp = ms_hetero_tp(p) ? p->tps[i - 1] * (p->mode == MS_SYNC ? p->n : 1)
                                    : 1 / d->rate[R_PACK];
        d->proc[i] = 1 / cm;
        d->pack[i] = 1 / tp;
        double wait = p->mode == MS_SYNC ? send + eval : send;
        d->w_slaves += 1 / (cm + tp + last * wait);
    }
    if (p->mode == MS_ASYNC)
        d->w_master = 1 / (eval + last * send);
    else
        d->w_master = last > 0 ? p->n / (last * (send + eval)) : INFINITY;
    d->flow_bound = fmin(d->w_master, d->w_slaves);
}

/* In the synchronous slices regime with NS = N, `up` hands out every
 * slice: there is no phase to send, so the model has no event s (Work
 * would not take part in it and could not disable it). */
static int ms_has_s(const ms_par *p, const ms_der *d)
{
    return !(p->mode == MS_SYNC && p->work == WORK_SLICES && d->left == 0);
}

/* Can the slaves be written once (replicated)?  Not with rates of their
 * own (r_proc_1 ...), nor when s routes each by a probability of its
 * own (q_i: the synchronous slices regime). */
static int ms_alike(const ms_par *p, const ms_der *d)
{
    if (ms_hetero_cm(p) || ms_hetero_tp(p))
        return 0;
    return !(p->mode == MS_SYNC && p->work == WORK_SLICES && ms_has_s(p, d) && p->n >= 2);
}

/* eqs. 1-2: RNP and NB; -1 with err when NB is past MAX_PACKS. */
static int ms_packs(const ms_par *p, ms_der *d, char *err, size_t n)
{
    /* eq. 1: the two border slices overlap one neighbour, the others two */
    d->rnp = (2 * (1 + p->ps) + (d->ns - 2) * (1 + 2 * p->ps)) * p->np / d->ns;
    /* eq. 2; the small slack keeps an exact quotient from rounding up */
    double q = ceil(d->rnp / (p->bl * d->ns) - 1e-9);
    if (!(q <= MAX_PACKS)) {
        char x[3][32];
        gen_err(err, n, "--points, --overlap, --pack-points: NB = ceil(RNP / (BL*NS)) = %.3g "
                "packs per slice (NP = %s, PS = %s, BL = %s, NS = %ld), more than %.0g, where "
                "pi = (NB-1)/NB is within 1e-12 of 1; lower --points or --overlap, or raise "
                "--pack-points or the slices", q, gen_fmt(x[0], sizeof x[0], p->np),
                gen_fmt(x[1], sizeof x[1], p->ps), gen_fmt(x[2], sizeof x[2], p->bl), d->ns,
                MAX_PACKS);
        return -1;
    }
    d->nb = q < 1 ? 1 : (long)q;
    return 0;
}

static int ms_derive(const ms_par *p, ms_der *d, char *err, size_t n)
{
    memset(d, 0, sizeof *d);
    d->ns = p->has_ns ? p->ns : p->spn * p->n;
    if (ms_packs(p, d, err, n) < 0)
        return -1;
    d->pi = p->has_pi ? p->pi : (double)(d->nb - 1) / d->nb;     /* eq. 3 */

    d->rate[R_UP] = 1 / (p->tt * p->n);                          /* eq. 6 */
    d->rate[R_SEND] = 1 / p->tt;                                 /* eq. 4 */
    d->rate[R_PROC] = 1 / p->cm;                                 /* eq. 5 */
    d->rate[R_PACK] = p->mode == MS_SYNC ? 1 / (p->tp * p->n)    /* eq. 7 */
                                         : 1 / p->tp;            /* eq. 4 */
    d->rate[R_EVAL] = 1 / p->er;                                 /* eq. 5 */
    d->rate[R_DOWN] = DEF_DOWN;
    for (int r = 0; r < NRATES; r++)
        if (p->has_rate[r])
            d->rate[r] = p->rate[r];
    d->left = d->ns - p->n;
    ms_flow(p, d);
    d->repl = ms_alike(p, d) && !p->expanded && p->n >= 2;    /* one slave: no shorter */

    if (d->repl)
        snprintf(d->slaves, sizeof d->slaves, "[Slave[1]..Slave[%ld]]", p->n);
    else
        snprintf(d->slaves, sizeof d->slaves, "[Slave1..Slave%ld]", p->n);
    snprintf(d->nb_i, sizeof d->nb_i, "(nb %s I)", d->slaves);
    snprintf(d->nb_pr, sizeof d->nb_pr, "(nb %s Pr)", d->slaves);
    snprintf(d->nb_tx, sizeof d->nb_tx, "(nb %s Tx)", d->slaves);
    return 0;
}

static void ms_pack_tp(gbuf *b, const ms_par *p, const ms_der *d);

/* The replicated form names the three counts once (n_I = (nb [Slave[1]..
 * Slave[7]] I);) and the functions and results use the names: the range
 * is the longest piece of the text, and it was written eleven times; so
 * is the packs' throughput (tp_pack), two results' numerator.  The
 * written-out form keeps the counts inline, the text PEPS 2003 was
 * checked on (--dialect peps2003 writes it). */
static void ms_counts(gbuf *b, const ms_par *p, ms_der *d)
{
    if (!d->repl)
        return;
    gen_line(b, "slaves idle", "  n_I = nb %s I;", d->slaves);
    gen_line(b, "slaves computing a pack", "  n_Pr = nb %s Pr;", d->slaves);
    gen_line(b, "slaves sending a pack", "  n_Tx = nb %s Tx;", d->slaves);
    snprintf(d->nb_i, sizeof d->nb_i, "n_I");
    snprintf(d->nb_pr, sizeof d->nb_pr, "n_Pr");
    snprintf(d->nb_tx, sizeof d->nb_tx, "n_Tx");
    gbuf_printf(b, "  tp_pack = ");
    ms_pack_tp(b, p, d);
    gbuf_printf(b, ";   // packs received per second (pack_throughput)\n");
    d->tp_named = 1;
}

/* The lumped chain's size bound when the slaves are replicas: the
 * Master, the occupancy vectors of the slaves over I, Pr, Tx
 * (C(N+2, 2)), the buffer, the slices left. */
static void ms_lumped_size(const ms_par *p, const ms_der *d, gen_big *v)
{
    gen_big_one(v);
    gen_big_mul(v, 3);
    gen_big_mul(v, (unsigned long)(p->n + 2) * (unsigned long)(p->n + 1) / 2);
    if (p->mode == MS_ASYNC)
        gen_big_mul(v, (unsigned long)p->k + 1);
    if (p->work == WORK_SLICES)
        gen_big_mul(v, (unsigned long)d->left + 1);
}

/* The product-space formula with its value: Master, Slaves, Buffer, Work;
 * NULL with err when it does not fit the solver's indices (or out of
 * memory, err empty). */
static char *ms_size(const ms_par *p, const ms_der *d, char *err, size_t n)
{
    gbuf b = { 0 };
    gen_big v;
    gen_big_one(&v);
    gen_big_mul(&v, 3);
    for (long i = 0; i < p->n; i++)
        gen_big_mul(&v, 3);
    gbuf_printf(&b, "3 * 3^N");
    if (p->mode == MS_ASYNC) {
        gbuf_printf(&b, " * (K+1)");
        gen_big_mul(&v, (unsigned long)p->k + 1);
    }
    if (p->work == WORK_SLICES) {
        gbuf_printf(&b, " * (NS-N+1)");
        gen_big_mul(&v, (unsigned long)d->left + 1);
    }
    gbuf_printf(&b, " = 3 * 3^%ld", p->n);
    if (p->mode == MS_ASYNC)
        gbuf_printf(&b, " * (%ld+1)", p->k);
    if (p->work == WORK_SLICES)
        gbuf_printf(&b, " * (%ld-%ld+1)", d->ns, p->n);
    const char *flags = p->work == WORK_SLICES
        ? (p->mode == MS_ASYNC ? "--slaves, --buffer, --slices" : "--slaves, --slices")
        : (p->mode == MS_ASYNC ? "--slaves, --buffer" : "--slaves");
    if (!b.oom && d->repl) {
        /* replicas: the solver lumps them (issue 28); its chain is what
         * must fit the 64-bit state indices, not the product */
        gen_big l;
        ms_lumped_size(p, d, &l);
        if (gen_check_size(&l, "3 * C(N+2, 2) [* (K+1)] [* (NS-N+1)] (lumped)", flags,
                           err, n) < 0) {
            gbuf_free(&b);
            return NULL;
        }
    } else if (!b.oom && gen_check_size(&v, b.s, flags, err, n) < 0) {
        gbuf_free(&b);
        return NULL;
    }
    char num[GEN_BIG_LIMBS * 9 + 32];
    gen_big_str(&v, num, sizeof num);
    gbuf_printf(&b, " = %s", num);
    return gbuf_take(&b);
}

/* ------------------------------------------------------------------ */
/* Text                                                                 */
/* ------------------------------------------------------------------ */

static const char *mode_name(const ms_par *p)
{
    return p->mode == MS_SYNC ? "synchronous" : "asynchronous";
}

static void ms_header(gbuf *b, const ms_par *p, const ms_der *d, const char *size,
                      int argc, char **argv)
{
    char x[64], y[64], z[64];
    gbuf_printf(b, "// Master/slave program: the %s SAN model of Baldo et al.,\n"
                   "// 'Performance models for master/slave parallel programs' (section %s),\n"
                   "// %s work regime.\n",
                mode_name(p), p->mode == MS_SYNC ? "5.2" : "5.1",
                p->work == WORK_STEADY ? "steady" : "slices");
    gen_cmdline_comment(b, argc, argv);
    gbuf_printf(b, "//\n// Parameters and derived values:\n");
    gbuf_printf(b, "//   N  = %ld slaves", p->n);
    if (p->mode == MS_ASYNC)
        gbuf_printf(b, ", K = %ld positions in the master's receive buffer", p->k);
    gbuf_printf(b, "\n//   NP = %s points", gen_fmt(x, sizeof x, p->np));
    gbuf_printf(b, ", PS = %s overlap", gen_fmt(x, sizeof x, p->ps));
    gbuf_printf(b, ", BL = %s points per pack\n", gen_fmt(x, sizeof x, p->bl));
    if (p->has_ns)
        gbuf_printf(b, "//   NS = %ld slices (--slices)\n", d->ns);
    else
        gbuf_printf(b, "//   NS = SPN * N = %ld * %ld = %ld slices\n", p->spn, p->n, d->ns);
    gbuf_printf(b, "//   RNP = [2(1+PS) + (NS-2)(1+2PS)] * NP/NS = %s points   (eq. 1)\n",
                gen_fmt(x, sizeof x, d->rnp));
    gbuf_printf(b, "//   NB  = ceil(RNP / (BL*NS)) = %ld packs per slice          (eq. 2)\n", d->nb);
    if (p->has_pi)
        gbuf_printf(b, "//   pi  = %s (--pi; eq. 3 would give %ld/%ld)\n",
                    gen_fmt(x, sizeof x, d->pi), d->nb - 1, d->nb);
    else
        gbuf_printf(b, "//   pi  = (NB-1)/NB = %s                           (eq. 3)\n",
                    gen_fmt(x, sizeof x, d->pi));
    gbuf_printf(b, "//   TT = %s s to send a task,", gen_fmt(x, sizeof x, p->tt));
    if (ms_hetero_tp(p))
        gbuf_printf(b, " TP = per slave (TP_i),\n");
    else
        gbuf_printf(b, " TP = %s s to send a pack,\n", gen_fmt(x, sizeof x, p->tp));
    if (ms_hetero_cm(p))
        gbuf_printf(b, "//   CM = per slave (CM_i),");
    else
        gbuf_printf(b, "//   CM = %s s to compute a pack,", gen_fmt(x, sizeof x, p->cm));
    gbuf_printf(b, " ER = %s s to evaluate a pack\n", gen_fmt(x, sizeof x, p->er));
    static const char *const how[2][NRATES] = {
        { "1/(TT*N), eq. 6", "1/TT, eq. 4", "1/CM, eq. 5", "1/(TP*N), eq. 7", "1/ER, eq. 5", "negligible time" },
        { "1/(TT*N), eq. 6", "1/TT, eq. 4", "1/CM, eq. 5", "1/TP, eq. 4", "1/ER, eq. 5", "negligible time" },
    };
    for (int r = 0; r < NRATES; r++) {
        if (r == R_DOWN && p->work == WORK_STEADY)
            continue;
        gbuf_printf(b, "//   %-6s = %s (%s)\n", rate_id[r], gen_fmt(x, sizeof x, d->rate[r]),
                    p->has_rate[r] ? rate_flag[r] : how[p->mode][r]);
    }
    if (p->work == WORK_SLICES)
        gbuf_printf(b, "//   slices left after the initial distribution: NS - N = %ld\n", d->left);
    gbuf_printf(b, "//   work-rate bound (seed 003): min(master %s, slaves %s) = %s packs/s\n",
                gen_fmt(x, sizeof x, d->w_master), gen_fmt(y, sizeof y, d->w_slaves),
                gen_fmt(z, sizeof z, d->flow_bound));
    gbuf_printf(b, "// Product space: %s states\n", size);
    if (p->work == WORK_STEADY)
        gbuf_printf(b, "// Steady regime: the work never ends; `up` fires once (ITx is transient)\n"
                       "// and there is no `down`: the stationary distribution is the long-run regime.\n");
    else
        gbuf_printf(b, "// Slices regime: one run of NS slices; `down` (rate r_down) ends it once\n"
                       "// every slice is done and the buffer is empty, `up` starts the next one.\n"
                       "// The stationary distribution is the profile of one execution; the last\n"
                       "// result, execution_time = 1 / down_tp - 1 / r_down, is computed from the\n"
                       "// stationary value of down_tp (the throughput of down), not an expectation.\n");
    gbuf_printf(b, "// Indices (results): see doc/indices.md.\n\n");
}

static const char *const rate_expr[2][NRATES] = {
    { "(1 / (TT * N_slaves))", "(1 / TT)", "(1 / CM)", "(1 / (TP * N_slaves))", "(1 / ER)", "" },
    { "(1 / (TT * N_slaves))", "(1 / TT)", "(1 / CM)", "(1 / TP)", "(1 / ER)", "" },
};
static const char *const rate_what[2][NRATES] = {
    { "up: first N tasks (eq. 6)", "s: broadcast of a new phase (eq. 4)",
      "p_i: a pack is ready (eq. 5)", "r_i: pack to the master (eq. 7)",
      "c: end of a phase (eq. 5), see f_c", "down: the run ends" },
    { "up: first N tasks (eq. 6)", "s_i: a task to slave i (eq. 4)",
      "p_i: a pack is ready (eq. 5)", "r_i: pack into the buffer (eq. 4)",
      "c: evaluation of a pack (eq. 5)", "down: the run ends" },
};

/* r_proc_i = (1 / CM_i), r_pack_i = (1 / TP_i) (sync: / N, eq. 7). */
static void ms_slave_rates(gbuf *b, const ms_par *p, int r)
{
    const char *id = r == R_PROC ? "CM" : "TP";
    char c[128];
    for (long i = 1; i <= p->n; i++) {
        snprintf(c, sizeof c, "%s, slave %ld", rate_what[p->mode][r], i);
        if (r == R_PACK && p->mode == MS_SYNC)
            gen_line(b, c, "  %s_%ld = (1 / (%s_%ld * N_slaves));", rate_id[r], i, id, i);
        else
            gen_line(b, c, "  %s_%ld = (1 / %s_%ld);", rate_id[r], i, id, i);
    }
}

static void ms_rates(gbuf *b, const ms_par *p, const ms_der *d)
{
    char x[64], c[128];
    gbuf_printf(b, "  // event rates, eqs. 4-7 (per second)\n");
    for (int r = 0; r < NRATES; r++) {
        if (r == R_DOWN && p->work == WORK_STEADY)
            continue;
        if (p->has_rate[r]) {
            snprintf(c, sizeof c, "%s (%s)", rate_what[p->mode][r], rate_flag[r]);
            gen_line(b, c, "  %s = %s;", rate_id[r], gen_fmt_exact(x, sizeof x, d->rate[r]));
        } else if (r == R_DOWN) {
            gen_line(b, "down: the run ends (negligible time)", "  %s = %s;", rate_id[r],
                     gen_fmt_exact(x, sizeof x, d->rate[r]));
        } else if ((r == R_PROC && ms_hetero_cm(p)) || (r == R_PACK && ms_hetero_tp(p))) {
            ms_slave_rates(b, p, r);
        } else {
            gen_line(b, rate_what[p->mode][r], "  %s = %s;", rate_id[r], rate_expr[p->mode][r]);
        }
    }
}

/* The slices regime's end of a run: the states where only `down` is
 * enabled.  The time from the initial state into them is the job's
 * execution time: `san passage --until job_done` gives its distribution,
 * whose mean is execution_time (down_tp reads the same function). */
static void ms_job_done(gbuf *b, const ms_par *p, const ms_der *d)
{
    if (p->work != WORK_SLICES)
        return;
    if (p->mode == MS_ASYNC)
        gen_line(b, "every slice done, buffer empty: the run is over (san passage --until job_done)",
                 "  job_done = ((st Master == Rx) && (%s == N_slaves) && ((st Buffer) == 0) && "
                 "((st Work) == 0));", d->nb_i);
    else
        gen_line(b, "every slice done: the run is over (san passage --until job_done)",
                 "  job_done = ((st Master == Tx) && ((st Work) == 0));");
}

static void ms_functions(gbuf *b, const ms_par *p, ms_der *d)
{
    gbuf_printf(b, "  // functions of the global state\n");
    ms_counts(b, p, d);
    ms_job_done(b, p, d);
    if (p->mode == MS_ASYNC) {
        if (p->work == WORK_STEADY)
            gen_line(b, "c: a slave is idle: master to Tx", "  g2 = (%s > 0);", d->nb_i);
        else
            gen_line(b, "c: a slave is idle and a slice is left: master to Tx",
                     "  g2 = ((%s > 0) && ((st Work) > 0));", d->nb_i);
        gen_line(b, "c: the master stays in Rx", "  g1 = (1 - g2);");
        if (p->split)
            gen_line(b, "s: the master's 1/TT shared by the idle slaves (--send-rule split)",
                     "  f_send = (r_send / (%s + (%s == 0)));", d->nb_i, d->nb_i);
        return;
    }
    gen_line(b, "c: the phase ends once every slave is idle",
             "  f_c = (r_eval * (%s == N_slaves));", d->nb_i);
    if (p->work == WORK_SLICES && ms_has_s(p, d))
        for (long i = 2; i <= p->n; i++) {
            char c[96];
            snprintf(c, sizeof c, "s: a slice is left for slave %ld", i);
            gen_line(b, c, "  q_%ld = ((st Work) >= %ld);", i, i);
            snprintf(c, sizeof c, "s: none left for slave %ld, it stays idle", i);
            gen_line(b, c, "  q_%ld_c = (1 - q_%ld);", i, i);
        }
}

/* TP = 0.01, or TP_1 .. TP_N for heterogeneous slaves. */
static void ms_time_ids(gbuf *b, const char *id, const char *what, double one,
                        const double *per, long n)
{
    char x[64], c[96];
    if (!per) {
        snprintf(c, sizeof c, "%s, %s", id, what);
        gen_line(b, c, "  %s = %s;", id, gen_fmt_exact(x, sizeof x, one));
        return;
    }
    for (long i = 1; i <= n; i++) {
        snprintf(c, sizeof c, "%s of slave %ld, %s", id, i, what);
        gen_line(b, c, "  %s_%ld = %s;", id, i, gen_fmt_exact(x, sizeof x, per[i - 1]));
    }
}

static void ms_identifiers(gbuf *b, const ms_par *p, ms_der *d)
{
    char x[64];
    gbuf_printf(b, "identifiers\n");
    gbuf_printf(b, "  // structure: regenerate the model to change these\n");
    gen_line(b, "N, number of slaves", "  N_slaves = %ld;", p->n);
    if (d->repl)
        gen_line(b, "the slaves: Slave[i] and its events s[i], p[i], r[i]",
                 "  D_slaves = [1..%ld];", p->n);
    if (p->mode == MS_ASYNC) {
        gen_line(b, "K, positions of the master's receive buffer", "  K_buffer = %ld;", p->k);
        gen_line(b, "states of Buffer: packs waiting", "  D_buffer = [0..%ld];", p->k);
    }
    if (p->work == WORK_SLICES)
        gen_line(b, "states of Work: slices not yet sent", "  D_work = [0..%ld];", d->left);
    gbuf_printf(b, "  // measured times, seconds\n");
    gen_line(b, "TT, send a task (a slice) to a slave", "  TT = %s;", gen_fmt_exact(x, sizeof x, p->tt));
    ms_time_ids(b, "TP", "send a pack of results", p->tp, ms_hetero_tp(p) ? p->tps : NULL, p->n);
    ms_time_ids(b, "CM", "compute a pack of results", p->cm, ms_hetero_cm(p) ? p->cms : NULL, p->n);
    gen_line(b, "ER, the master evaluates a pack", "  ER = %s;", gen_fmt_exact(x, sizeof x, p->er));
    ms_rates(b, p, d);
    gbuf_printf(b, "  // routing of r_i, eq. 3\n");
    if (p->has_pi) {
        gen_line(b, "more packs in the slice: back to Pr (--pi)", "  pi = %s;",
                 gen_fmt_exact(x, sizeof x, d->pi));
    } else {
        gen_line(b, "NB, packs per slice: ceil(RNP / (BL * NS))", "  NB = %ld;", d->nb);
        gen_line(b, "more packs in the slice: back to Pr", "  pi = ((NB - 1) / NB);");
    }
    gen_line(b, "last pack of the slice: to I", "  pi_c = (1 - pi);");
    /* Its two terms are in comments only: no expression reads them. */
    gbuf_printf(b, "  // seed 003's work-rate bound, packs per second (doc/indices.md):\n");
    gbuf_printf(b, "  // the master's rate, 1 / (time per pack): W_master = %.15g\n", d->w_master);
    gbuf_printf(b, "  // the slaves' rates, summed: W_slaves = %.15g\n", d->w_slaves);
    gen_line(b, "min(W_master, W_slaves)", "  B_flow = %.15g;", d->flow_bound);
    ms_functions(b, p, d);
    gbuf_printf(b, "\n");
}

/* "_3": the suffix of slave i's own identifiers, in the caller's
 * buffer (the generators run on several threads at once: a static
 * buffer gave one slave another's rate under san sweep -j 4). */
static const char *ms_suffix(char *buf, size_t n, long i)
{
    snprintf(buf, n, "_%ld", i);
    return buf;
}

/* The rate of the asynchronous master's send to one idle slave.  The
 * paper's model (seed 004) gives every idle slave's s_i the rate 1/TT,
 * so with n idle slaves the master leaves Tx at n/TT: it sends faster
 * than one task per TT, and flow_fraction passes 1 (1.004-1.009 at 7-12
 * slaves, 1.32 at 64 with the defaults).  --send-rule split shares the
 * master's 1/TT among the idle slaves: one task per TT whoever gets it. */
static const char *ms_send_rate(const ms_par *p)
{
    return p->split ? "f_send" : "r_send";
}

static const char *ms_send_note(const ms_par *p)
{
    return p->split ? " (1/TT shared by the idle slaves)"
                    : " (each idle slave at 1/TT: the paper's rule)";
}

/* The replicated slaves' events: one declaration each. */
static void ms_events_repl(gbuf *b, const ms_par *p, const ms_der *d)
{
    gbuf_printf(b, "events\n");
    gbuf_printf(b, "  syn up (r_up)       // master ITx -> Rx, every slave I -> Pr: the run starts\n");
    if (p->mode == MS_ASYNC)
        gbuf_printf(b, "  syn s[D_slaves] (%s)  // master Tx -> Rx, Slave[i] I -> Pr: a new slice%s\n",
                    ms_send_rate(p), ms_send_note(p));
    else if (ms_has_s(p, d))
        gbuf_printf(b, "  syn s (r_send)      // master Tx -> Rx, every slave I -> Pr: a new phase\n");
    gbuf_printf(b, "  loc p[D_slaves] (r_proc)  // Slave[i] Pr -> Tx: a pack of results is ready\n");
    gbuf_printf(b, "  syn r[D_slaves] (r_pack)  // Slave[i] Tx -> Pr (pi) or I (pi_c): the pack is sent%s\n",
                p->mode == MS_ASYNC ? " to the buffer" : " to the master");
    if (p->mode == MS_ASYNC)
        gbuf_printf(b, "  syn c (r_eval)      // the master takes a pack from the buffer and evaluates it\n");
    else
        gbuf_printf(b, "  loc c (f_c)         // master Rx -> Tx once every slave is idle\n");
    if (p->work == WORK_SLICES)
        gbuf_printf(b, "  syn down (r_down)   // every slice done: back to the initial state\n");
    gbuf_printf(b, "\n");
}

/* " s_1 s_2 ... s_N" or, replicated, " s[D_slaves]": every slave's event
 * from one transition. */
static void ms_each(gbuf *b, const ms_par *p, const ms_der *d, const char *ev)
{
    if (d->repl) {
        gbuf_printf(b, " %s[D_slaves]", ev);
        return;
    }
    for (long i = 1; i <= p->n; i++)
        gbuf_printf(b, " %s_%ld", ev, i);
}

static void ms_events(gbuf *b, const ms_par *p, const ms_der *d)
{
    if (d->repl) {
        ms_events_repl(b, p, d);
        return;
    }
    gbuf_printf(b, "events\n");
    gbuf_printf(b, "  syn up (r_up)       // master ITx -> Rx, every slave I -> Pr: the run starts\n");
    if (p->mode == MS_ASYNC)
        for (long i = 1; i <= p->n; i++)
            gbuf_printf(b, "  syn s_%ld (%s)    // master Tx -> Rx, slave %ld I -> Pr: a new slice%s\n", i,
                        ms_send_rate(p), i, ms_send_note(p));
    else if (ms_has_s(p, d))
        gbuf_printf(b, "  syn s (r_send)      // master Tx -> Rx, every slave I -> Pr: a new phase\n");
    char sfx[24];
    for (long i = 1; i <= p->n; i++)
        gbuf_printf(b, "  loc p_%ld (r_proc%s)    // slave %ld Pr -> Tx: a pack of results is ready\n", i,
                    ms_hetero_cm(p) ? ms_suffix(sfx, sizeof sfx, i) : "", i);
    for (long i = 1; i <= p->n; i++)
        gbuf_printf(b, "  syn r_%ld (r_pack%s)    // slave %ld Tx -> Pr (pi) or I (pi_c): the pack is sent%s\n",
                    i, ms_hetero_tp(p) ? ms_suffix(sfx, sizeof sfx, i) : "", i,
                    p->mode == MS_ASYNC ? " to the buffer" : " to the master");
    if (p->mode == MS_ASYNC)
        gbuf_printf(b, "  syn c (r_eval)      // the master takes a pack from the buffer and evaluates it\n");
    else
        gbuf_printf(b, "  loc c (f_c)         // master Rx -> Tx once every slave is idle\n");
    if (p->work == WORK_SLICES)
        gbuf_printf(b, "  syn down (r_down)   // every slice done: back to the initial state\n");
    gbuf_printf(b, "\n");
}

static void ms_reach(gbuf *b, const ms_par *p, const ms_der *d)
{
    gbuf_printf(b, "// the program's initial state: the master about to distribute the first tasks\n");
    gbuf_printf(b, "partial reachability = ((st Master == ITx) && (%s == N_slaves)", d->nb_i);
    if (p->mode == MS_ASYNC)
        gbuf_printf(b, " && ((st Buffer) == 0)");
    if (p->work == WORK_SLICES)
        gbuf_printf(b, " && ((st Work) == %ld)", d->left);
    gbuf_printf(b, ");\n\n");
}

static void ms_master(gbuf *b, const ms_par *p, const ms_der *d)
{
    gbuf_printf(b, "  aut Master\n");
    gbuf_printf(b, "    stt ITx\n      to(Rx) up\n");
    gbuf_printf(b, "    stt Tx\n");
    if (p->mode == MS_ASYNC) {
        gbuf_printf(b, "      to(Rx)");
        ms_each(b, p, d, "s");
        gbuf_printf(b, "\n");
    } else if (ms_has_s(p, d)) {
        gbuf_printf(b, "      to(Rx) s\n");
    }
    if (p->mode == MS_SYNC && p->work == WORK_SLICES)
        gbuf_printf(b, "      to(ITx) down\n");
    gbuf_printf(b, "    stt Rx\n");
    if (p->mode == MS_ASYNC) {
        gbuf_printf(b, "      to(Rx) c(g1)\n      to(Tx) c(g2)\n");
        if (p->work == WORK_SLICES)
            gbuf_printf(b, "      to(ITx) down\n");
    } else {
        gbuf_printf(b, "      to(Rx)");
        ms_each(b, p, d, "r");
        gbuf_printf(b, "\n      to(Tx) c\n");
    }
}

static void ms_buffer(gbuf *b, const ms_par *p, const ms_der *d)
{
    gbuf_printf(b, "  aut Buffer     // packs waiting for the master; a full buffer blocks r_i\n");
    gbuf_printf(b, "    stt b[D_buffer]\n      to(++)");
    ms_each(b, p, d, "r");
    gbuf_printf(b, "\n      to(--) c\n");
    if (p->work == WORK_SLICES)
        gbuf_printf(b, "    from b[0]\n      to(b[0]) down\n");
}

/* The slaves written once: Slave[i] with its own s[i], p[i], r[i]. */
static void ms_slave_repl(gbuf *b, const ms_par *p, const ms_der *d)
{
    gbuf_printf(b, "  aut Slave[i:D_slaves]\n");
    gbuf_printf(b, "    stt I\n");
    if (p->mode == MS_ASYNC)
        gbuf_printf(b, "      to(Pr) up s[i]\n");
    else if (!ms_has_s(p, d))
        gbuf_printf(b, "      to(Pr) up\n");
    else
        gbuf_printf(b, "      to(Pr) up s\n");
    if (p->mode == MS_ASYNC && p->work == WORK_SLICES)
        gbuf_printf(b, "      to(I) down\n");
    gbuf_printf(b, "    stt Pr\n      to(Tx) p[i]\n");
    gbuf_printf(b, "    stt Tx\n      to(Pr) r[i](pi)\n      to(I) r[i](pi_c)\n");
}

static void ms_slave(gbuf *b, const ms_par *p, const ms_der *d, long i)
{
    gbuf_printf(b, "  aut Slave%ld\n", i);
    gbuf_printf(b, "    stt I\n");
    if (p->mode == MS_ASYNC)
        gbuf_printf(b, "      to(Pr) up s_%ld\n", i);
    else if (!ms_has_s(p, d))
        gbuf_printf(b, "      to(Pr) up\n");
    else if (p->work == WORK_SLICES && i >= 2)
        gbuf_printf(b, "      to(Pr) up s(q_%ld)\n      to(I) s(q_%ld_c)\n", i, i);
    else
        gbuf_printf(b, "      to(Pr) up s\n");
    /* Taking part in down with a self-loop makes down wait for this
     * slave to be idle (async; in sync the master's Tx implies it). */
    if (p->mode == MS_ASYNC && p->work == WORK_SLICES)
        gbuf_printf(b, "      to(I) down\n");
    gbuf_printf(b, "    stt Pr\n      to(Tx) p_%ld\n", i);
    gbuf_printf(b, "    stt Tx\n      to(Pr) r_%ld(pi)\n      to(I) r_%ld(pi_c)\n", i, i);
}

static void ms_work(gbuf *b, const ms_par *p, const ms_der *d)
{
    gbuf_printf(b, "  aut Work       // slices not yet sent; none left disables the sends\n");
    gbuf_printf(b, "    stt w[D_work]\n");
    if (p->mode == MS_ASYNC) {
        gbuf_printf(b, "      to(--)");
        ms_each(b, p, d, "s");
        gbuf_printf(b, "\n");
    } else if (ms_has_s(p, d)) {
        /* s hands out min(N, left) slices; the positional destination is
         * dropped below N, where from-blocks send Work to w[0]. */
        if (p->n == 1)
            gbuf_printf(b, "      to(--) s\n");
        else
            gbuf_printf(b, "      to(-%ld) s\n", p->n);
        for (long j = 1; j < p->n && j <= d->left; j++)
            gbuf_printf(b, "    from w[%ld]\n      to(w[0]) s\n", j);
    }
    gbuf_printf(b, "    from w[0]\n      to(w[%ld]) down\n", d->left);
}

static void ms_network(gbuf *b, const ms_par *p, const ms_der *d)
{
    /* the name says which send rule an asynchronous model uses: the
     * reports show it on their model line */
    gbuf_printf(b, "network ms_%s%s (continuous)\n", p->mode == MS_SYNC ? "sync" : "async",
                p->mode == MS_ASYNC && p->split ? "_split" : "");
    ms_master(b, p, d);
    if (p->mode == MS_ASYNC)
        ms_buffer(b, p, d);
    if (d->repl)
        ms_slave_repl(b, p, d);
    for (long i = 1; !d->repl && i <= p->n; i++)
        ms_slave(b, p, d, i);
    if (p->work == WORK_SLICES)
        ms_work(b, p, d);
    gbuf_printf(b, "\n");
}

/* The expected number of tasks handed out per time unit: sends from Tx
 * (and, in the slices regime, the N tasks of up). */
static void ms_task_tp(gbuf *b, const ms_par *p, const ms_der *d)
{
    int slices = p->work == WORK_SLICES;
    if (slices)
        gbuf_printf(b, "(");
    /* split: the master sends one task per TT while in Tx (an idle slave
     * is always there: Tx is entered only then, and only s empties I) */
    const char *fmt = p->split ? "(%s > 0)" : "%s";
    char idle[80];
    snprintf(idle, sizeof idle, fmt, d->nb_i);
    if (p->mode == MS_ASYNC && !slices)
        gbuf_printf(b, "(((st Master == Tx) * %s) * r_send)", idle);
    else if (p->mode == MS_ASYNC)
        gbuf_printf(b, "((((st Master == Tx) * %s) * ((st Work) > 0)) * r_send)", idle);
    else if (!slices)
        gbuf_printf(b, "((((st Master == Tx) && (%s == N_slaves)) * r_send) * N_slaves)", d->nb_i);
    else if (!ms_has_s(p, d))
        gbuf_printf(b, "0");
    else
        gbuf_printf(b, "((((st Master == Tx) && (%s == N_slaves) && ((st Work) > 0)) * r_send)"
                       " * min(N_slaves, (st Work)))", d->nb_i);
    if (slices)
        gbuf_printf(b, " + (((st Master == ITx) * r_up) * N_slaves))");
}

/* Packs received per second: slaves in Tx able to send, times their
 * rate (one rate for all, or a sum over heterogeneous slaves). */
static void ms_pack_tp(gbuf *b, const ms_par *p, const ms_der *d)
{
    if (d->tp_named) {
        gbuf_printf(b, "tp_pack");
        return;
    }
    const char *can = p->mode == MS_ASYNC ? "((st Buffer) < K_buffer)" : "(st Master == Rx)";
    if (!ms_hetero_tp(p)) {
        gbuf_printf(b, "((%s * %s) * r_pack)", d->nb_tx, can);
        return;
    }
    gbuf_printf(b, "(%s * (", can);
    for (long i = 1; i <= p->n; i++)
        gbuf_printf(b, "%s((st Slave%ld == Tx) * r_pack_%ld)", i > 1 ? " + " : "", i, i);
    gbuf_printf(b, "))");
}

static void ms_results(gbuf *b, const ms_par *p, const ms_der *d)
{
    gbuf_printf(b, "results\n");
    gbuf_printf(b, "  slave_idle = (%s / N_slaves);\n", d->nb_i);
    gbuf_printf(b, "  slave_processing = (%s / N_slaves);\n", d->nb_pr);
    gbuf_printf(b, "  slave_transmitting = (%s / N_slaves);\n", d->nb_tx);
    gbuf_printf(b, "  master_itx = (st Master == ITx);\n");
    gbuf_printf(b, "  master_tx = (st Master == Tx);\n");
    gbuf_printf(b, "  master_rx = (st Master == Rx);\n");
    if (p->mode == MS_ASYNC) {
        gbuf_printf(b, "  buffer_mean = (st Buffer);\n");
        gbuf_printf(b, "  buffer_full = ((st Buffer) == K_buffer);\n");
    }
    gbuf_printf(b, "  pack_throughput = ");
    ms_pack_tp(b, p, d);
    gbuf_printf(b, ";\n  flow_bound = B_flow;   // seed 003: min(master, sum of slaves), packs per second\n");
    if (d->tp_named) {
        gbuf_printf(b, "  flow_fraction = (tp_pack / B_flow);\n");
    } else {
        gbuf_printf(b, "  flow_fraction = (");
        ms_pack_tp(b, p, d);
        gbuf_printf(b, " / B_flow);\n");
    }
    gbuf_printf(b, "  task_throughput = ");
    ms_task_tp(b, p, d);
    gbuf_printf(b, ";\n");
    gbuf_printf(b, "  efficiency = (%s / N_slaves);   // fraction of slave time spent processing\n",
                d->nb_pr);
    /* ITx is transmission too; in the steady regime it is transient and
     * this is master_rx / (master_rx + master_tx) exactly. */
    gbuf_printf(b, "  granularity_index = (st Master == Rx);   // master_rx / (master_rx + master_tx + master_itx)\n");
    if (p->work == WORK_SLICES) {
        gbuf_printf(b, "  down_tp = (job_done * r_down);\n");
        gbuf_printf(b, "  // derived from the stationary value of down_tp (extension): one run, without down itself\n");
        gbuf_printf(b, "  execution_time = ((1 / down_tp) - (1 / r_down));\n");
    }
}

/* ------------------------------------------------------------------ */
/* Entry                                                                */
/* ------------------------------------------------------------------ */

/* The template's parts for gen_write. */
typedef struct {
    const ms_par *p;
    ms_der *d;          /* ms_rates names the rates while it writes them */
} ms_model;

static void ms_write_header(gbuf *b, const void *t, const char *size, int argc, char **argv)
{
    const ms_model *m = t;
    ms_header(b, m->p, m->d, size, argc, argv);
}

static void ms_write_body(gbuf *b, const void *t)
{
    const ms_model *m = t;
    ms_identifiers(b, m->p, m->d);
    ms_events(b, m->p, m->d);
    ms_reach(b, m->p, m->d);
    ms_network(b, m->p, m->d);
    ms_results(b, m->p, m->d);
}

static const gen_writer ms_writer = { ms_write_header, ms_write_body };

char *gen_ms(int argc, char **argv, char **size, char *err, size_t n)
{
    ms_par p;
    ms_der d;
    ms_defaults(&p);
    if (gen_scan_flags(argc, argv, ms_flag, &p, ms_flags, err, n) < 0 || ms_check(&p, err, n) < 0 ||
        ms_derive(&p, &d, err, n) < 0)
        return NULL;
    if (err && n)
        err[0] = '\0';
    const ms_model m = { &p, &d };
    return gen_write(&ms_writer, &m, p.explain, ms_size(&p, &d, err, n), argc, argv, size,
                     err, n);
}

void gen_ms_help(FILE *out)
{
    fprintf(out,
        "ms: master/slave program (the SAN models of Baldo et al.)\n"
        "  --mode sync|async        synchronous phases, or a receive buffer (required)\n"
        "  --slaves N               number of slaves, 1..%d (required)\n"
        "  --buffer K               async: buffer positions, >= 1 (default %d)\n"
        "  --work steady|slices     long-run regime (default), or one finite job of NS\n"
        "                           slices with its predicted execution_time\n"
        "  --points NP              points of the input image (default %.0f)\n"
        "  --overlap PS             slice overlap on its neighbours, 0..%g\n"
        "                           (default %g)\n"
        "  --pack-points BL         points per result pack (default %.0f); NP and BL\n"
        "                           1..%g, NB = ceil(RNP / (BL*NS)) at most %g\n"
        "  --slices NS              slices the job is split into, or\n"
        "  --slices-per-node SPN    NS = SPN * N (default %d: coarse grain; 3: fine),\n"
        "                           NS at most 10^6\n"
        "  --task-time TT           seconds to send a task (default %g)\n"
        "  --pack-time TP           seconds to send a result pack (default %g);\n"
        "                           or TP1,...,TPN: one per slave\n"
        "  --compute-time CM        seconds to compute a pack (default %g);\n"
        "                           or CM1,...,CMN: one per slave (seed 003)\n"
        "  --eval-time ER           seconds for the master to evaluate a pack (default %g)\n"
        "  --pi P                   probability a slice has more packs, overrides\n"
        "                           (NB-1)/NB with NB = ceil(RNP / (BL*NS))\n"
        "  --rate-up, --rate-send, --rate-proc, --rate-pack, --rate-eval,\n"
        "  --rate-down R            override an event rate (down: slices regime only)\n"
        "  --send-rule paper|split  async: every idle slave's s_i at 1/TT, so n idle\n"
        "                           slaves get tasks at n/TT (the paper's model,\n"
        "                           default), or the master's 1/TT shared by the\n"
        "                           idle slaves (one task per TT; network ms_async_split)\n"
        "  --expanded               write each slave out (Slave1..SlaveN, s_1..s_N:\n"
        "                           the PEPS 2003 form) instead of the replicated\n"
        "                           aut Slave[i:D_slaves] with its events s[i], p[i], r[i]\n"
        "  --explain                a header with the derivation of every value\n"
        "                           (eqs. 1-7) and a comment on each line\n"
        "  product space: 3 * 3^N [* (K+1) async] [* (NS-N+1) slices]\n",
        GEN_MAX_SLAVES, DEF_K, DEF_NP, MAX_OVERLAP, DEF_PS, DEF_BL, MAX_POINTS, MAX_PACKS,
        DEF_SPN,
        DEF_TT, DEF_TP, DEF_CM, DEF_ER);
}
