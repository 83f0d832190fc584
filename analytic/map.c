/*
 * map.c - pipeline mapping after seed 002 (Moreno, Cesar et al., "Dynamic
 * Pipeline Mapping", Euro-Par 2008): given the independent production
 * time Tr_i of each stage and P processors, gather fast consecutive
 * stages on one processor (their production time adds up, eq. 2) and
 * replicate slow ones (Tr_i / P_i, eq. 1) so that every processor comes
 * near the ideal production time Tp_ideal = sum(Tr) / P (eq. 6).
 *
 * The paper states its two steps in words; what it leaves open is fixed
 * here so that its three worked examples come out as printed (tests/unit/
 * test_map.c, doc/analytic.md):
 *
 *   step 1  walk the stages from the first; a stage whose Tr is below
 *           Tp_ideal starts a group that takes the following stages while
 *           the sum stays <= Tp_ideal (eq. 5 read as "fill up to the
 *           mean": a group never becomes a new bottleneck).
 *   step 2  a single stage above Tp_ideal wants round(Tr / Tp_ideal)
 *           processors (eq. 4; the paper rounds 2.64 up to 3, and its
 *           8-processor examples need 1.44 -> 1, 1.57 -> 2, 3.73 -> 4,
 *           hence the nearest integer); the freed processors go one at a
 *           time to the slowest stage still short of its wish (the one
 *           "with greatest influence").  Processors left after every
 *           wish is met go to the bottleneck while it is a single stage.
 *
 * SAN_MAP_OPTIMAL instead finds the smallest bottleneck over all such
 * mappings by dynamic programming, the reference DPM is measured against.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "base/services.h"
#include "analytic/analytic_int.h"

/* ------------------------------------------------------------------ */
/* Units and their production times                                     */
/* ------------------------------------------------------------------ */

int map_unit_cost(const san_map_input *in, int replicas)
{
    return replicas + (replicas > 1 && in->cm_own_processor ? 1 : 0);
}

void san_map_input_default(san_map_input *in)
{
    memset(in, 0, sizeof *in);
    in->struct_size = sizeof *in;
    in->processors = 1;
    in->method = SAN_MAP_DPM;
}

int map_foreign(const san_map_input *in, char *err, size_t n)
{
    return BASE_OPTS_FOREIGN(in, "map", "san_map_input_default", err, n);
}

double san_map_unit_period(const san_map_input *in, int first, int last, int replicas)
{
    return map_foreign(in, NULL, 0) ? NAN : map_unit_period(in, first, last, replicas);
}

double map_unit_period(const san_map_input *in, int first, int last, int replicas)
{
    if (first != last || replicas <= 1) {
        double s = 0;
        for (int i = first; i <= last; i++)
            s += in->tr[i];
        return s;
    }
    /* Seed 000, ch. IV eq. 2: Tr = tg + wc, the CM's managing time plus
     * its wait for a free replica; the wait is what the replicas leave,
     * so the stage delivers one item every max(tg, Tr/r). */
    double t = in->tr[first] / replicas;
    return in->cm_time > t ? in->cm_time : t;
}

void map_finish(const san_map_input *in, san_map_mapping *m)
{
    m->processors = 0;
    m->bottleneck = 0;
    m->bottleneck_unit = 0;
    for (int u = 0; u < m->nunits; u++) {
        m->period[u] = map_unit_period(in, m->first[u], m->last[u], m->replicas[u]);
        m->processors += map_unit_cost(in, m->replicas[u]);
        if (m->period[u] > m->bottleneck) {
            m->bottleneck = m->period[u];
            m->bottleneck_unit = u;
        }
    }
}

static void add_unit(san_map_mapping *m, int first, int last, int replicas)
{
    m->first[m->nunits] = first;
    m->last[m->nunits] = last;
    m->replicas[m->nunits] = replicas;
    m->nunits++;
}

/* The MPI-like mapping the paper starts from: one stage per processor;
 * with more stages than processors, P contiguous blocks of nearly equal
 * stage counts. */
static void map_before(const san_map_input *in, san_map_mapping *m)
{
    memset(m, 0, sizeof *m);
    int n = in->nstages, p = in->processors < n ? in->processors : n;
    for (int k = 0; k < p; k++)
        add_unit(m, (int)((long)k * n / p), (int)((long)(k + 1) * n / p) - 1, 1);
    map_finish(in, m);
}

/* ------------------------------------------------------------------ */
/* Dynamic Pipeline Mapping                                             */
/* ------------------------------------------------------------------ */

/* Step 1: groups of consecutive stages that stay within the mean. */
static void dpm_gather(const san_map_input *in, double ideal, san_map_mapping *m)
{
    int i = 0;
    while (i < in->nstages) {
        int last = i;
        double sum = in->tr[i];
        while (in->tr[i] < ideal && last + 1 < in->nstages && sum + in->tr[last + 1] <= ideal)
            sum += in->tr[++last];
        add_unit(m, i, last, 1);
        i = last + 1;
    }
}

/* More units than processors (more stages than P, and groups within
 * the mean could not absorb them): merge the adjacent pair whose sum is
 * the smallest until they fit, so the new bottleneck is as low as this
 * greedy way allows. */
static void dpm_fit(const san_map_input *in, san_map_mapping *m)
{
    while (m->nunits > in->processors) {
        int best = 0;
        double bsum = INFINITY;
        for (int u = 0; u + 1 < m->nunits; u++) {
            double s = map_unit_period(in, m->first[u], m->last[u + 1], 1);
            if (s < bsum) {
                bsum = s;
                best = u;
            }
        }
        m->last[best] = m->last[best + 1];
        memmove(&m->first[best + 1], &m->first[best + 2], (m->nunits - best - 2) * sizeof(int));
        memmove(&m->last[best + 1], &m->last[best + 2], (m->nunits - best - 2) * sizeof(int));
        memmove(&m->replicas[best + 1], &m->replicas[best + 2],
                (m->nunits - best - 2) * sizeof(int));
        m->nunits--;
    }
}

/* Processors an extra replica of unit u costs (the CM's processor comes
 * with the second replica). */
static int extra_cost(const san_map_input *in, const san_map_mapping *m, int u)
{
    return map_unit_cost(in, m->replicas[u] + 1) - map_unit_cost(in, m->replicas[u]);
}

/* The single stage with the largest period among those that may take
 * another replica (wish > replicas, cost within spare); -1: none. */
static int dpm_pick(const san_map_input *in, const san_map_mapping *m, const int *wish, int spare)
{
    int best = -1;
    double bp = -1;
    for (int u = 0; u < m->nunits; u++) {
        if (m->first[u] != m->last[u] || m->replicas[u] >= wish[u] || extra_cost(in, m, u) > spare)
            continue;
        double p = map_unit_period(in, m->first[u], m->last[u], m->replicas[u]);
        if (p > bp) {
            bp = p;
            best = u;
        }
    }
    return best;
}

/* Step 2: the freed processors to the stages above the mean. */
static void dpm_replicate(const san_map_input *in, double ideal, san_map_mapping *m)
{
    int wish[SAN_MAP_MAX_STAGES];
    int spare = in->processors - m->nunits;
    for (int u = 0; u < m->nunits; u++) {
        double w = m->first[u] == m->last[u] ? floor(in->tr[m->first[u]] / ideal + 0.5) : 1;
        wish[u] = w < 1 ? 1 : w > in->processors ? in->processors : (int)w;
    }
    int u;
    while ((u = dpm_pick(in, m, wish, spare)) >= 0) {
        spare -= extra_cost(in, m, u);
        m->replicas[u]++;
    }
    /* Every wish met and processors left: the bottleneck takes them while
     * it is a single stage that a replica makes faster. */
    for (;;) {
        map_finish(in, m);
        u = m->bottleneck_unit;
        if (m->first[u] != m->last[u] || extra_cost(in, m, u) > spare)
            break;
        double now = m->period[u];
        if (map_unit_period(in, m->first[u], m->last[u], m->replicas[u] + 1) >= now)
            break;
        spare -= extra_cost(in, m, u);
        m->replicas[u]++;
    }
}

static void map_dpm(const san_map_input *in, double ideal, san_map_mapping *m)
{
    memset(m, 0, sizeof *m);
    dpm_gather(in, ideal, m);
    dpm_fit(in, m);
    dpm_replicate(in, ideal, m);
    map_finish(in, m);
}

/* ------------------------------------------------------------------ */
/* The optimal mapping (dynamic programming)                            */
/* ------------------------------------------------------------------ */

/* best[i][p]: the smallest bottleneck of the first i stages on at most p
 * processors; the last unit is a group j..i-1 (one processor) or stage
 * i-1 on r >= 2 replicas.  choice[i][p] = j for a group, -r for r
 * replicas. */
typedef struct {
    int P;
    double *best;
    int *choice;
    int rmax[SAN_MAP_MAX_STAGES];   /* replicas worth trying per stage */
} map_dp;

#define DP(d, i, p) ((d)->best[(size_t)(i) * ((d)->P + 1) + (p)])
#define CH(d, i, p) ((d)->choice[(size_t)(i) * ((d)->P + 1) + (p)])

static void dp_cell(const san_map_input *in, map_dp *d, int i, int p)
{
    double b = INFINITY;
    int ch = 0;
    double sum = 0;
    for (int j = i - 1; j >= 0; j--) {
        sum += in->tr[j];
        double v = fmax(DP(d, j, p - 1), sum);
        if (v < b) {
            b = v;
            ch = j;
        }
    }
    for (int r = 2; r <= d->rmax[i - 1] && map_unit_cost(in, r) <= p; r++) {
        double v = fmax(DP(d, i - 1, p - map_unit_cost(in, r)),
                        map_unit_period(in, i - 1, i - 1, r));
        if (v < b) {
            b = v;
            ch = -r;
        }
    }
    DP(d, i, p) = b;
    CH(d, i, p) = ch;
}

static void dp_rebuild(const san_map_input *in, const map_dp *d, int p, san_map_mapping *m)
{
    int first[SAN_MAP_MAX_STAGES], last[SAN_MAP_MAX_STAGES], rep[SAN_MAP_MAX_STAGES];
    int k = 0, i = in->nstages;
    while (i > 0) {
        int ch = CH(d, i, p);
        if (ch >= 0) {
            first[k] = ch;
            last[k] = i - 1;
            rep[k] = 1;
            p -= 1;
            i = ch;
        } else {
            first[k] = last[k] = i - 1;
            rep[k] = -ch;
            p -= map_unit_cost(in, -ch);
            i -= 1;
        }
        k++;
    }
    memset(m, 0, sizeof *m);
    while (k-- > 0)
        add_unit(m, first[k], last[k], rep[k]);
}

static san_status map_optimal(const san_map_input *in, san_map_mapping *m)
{
    map_dp d = { .P = in->processors };
    size_t cells = (size_t)(in->nstages + 1) * (in->processors + 1);
    d.best = malloc(cells * sizeof *d.best);
    d.choice = malloc(cells * sizeof *d.choice);
    if (!d.best || !d.choice) {
        free(d.best);
        free(d.choice);
        return SAN_E_NOMEM;
    }
    /* No mapping beats sum(Tr)/P (a unit of r processors does at most r
     * times its period of work), so a stage never needs more replicas
     * than bring it to that: ceil(Tr / (sum/P)) in all, at most P + m. */
    double sum = 0;
    for (int i = 0; i < in->nstages; i++)
        sum += in->tr[i];
    for (int i = 0; i < in->nstages; i++)
        d.rmax[i] = (int)fmin(d.P, ceil(in->tr[i] / (sum / d.P) - 1e-9));
    for (int p = 0; p <= d.P; p++)
        DP(&d, 0, p) = 0;
    for (int i = 1; i <= in->nstages; i++) {
        DP(&d, i, 0) = INFINITY;
        for (int p = 1; p <= d.P; p++)
            dp_cell(in, &d, i, p);
    }
    /* The fewest processors that reach the optimum: the same throughput
     * with processors to spare is the better proposal. */
    int p = d.P;
    while (p > 1 && DP(&d, in->nstages, p - 1) <= DP(&d, in->nstages, d.P))
        p--;
    dp_rebuild(in, &d, p, m);
    free(d.best);
    free(d.choice);
    map_finish(in, m);
    return SAN_OK;
}

/* ------------------------------------------------------------------ */
/* Entry points                                                         */
/* ------------------------------------------------------------------ */

enum { MAP_MAX_PROCESSORS = 100000, MAP_MAX_OPTIMAL = 10000 };

static san_status map_check(const san_map_input *in, char *err, size_t n)
{
    if (map_foreign(in, err, n))
        return SAN_E_USAGE;
    if (in->nstages < 1 || in->nstages > SAN_MAP_MAX_STAGES) {
        snprintf(err, n, "stages: between 1 and %d (got %d)", SAN_MAP_MAX_STAGES, in->nstages);
        return SAN_E_USAGE;
    }
    for (int i = 0; i < in->nstages; i++)
        if (!(in->tr[i] > 0) || !isfinite(in->tr[i])) {
            snprintf(err, n, "stages: item %d must be a number > 0", i + 1);
            return SAN_E_USAGE;
        }
    if (in->processors < 1 || in->processors > MAP_MAX_PROCESSORS) {
        snprintf(err, n, "processors: between 1 and %d (got %d)", MAP_MAX_PROCESSORS,
                 in->processors);
        return SAN_E_USAGE;
    }
    if (in->method == SAN_MAP_OPTIMAL && in->processors > MAP_MAX_OPTIMAL) {
        snprintf(err, n, "processors: at most %d with the optimal method (its work grows as "
                 "P squared; dpm takes up to %d)", MAP_MAX_OPTIMAL, MAP_MAX_PROCESSORS);
        return SAN_E_USAGE;
    }
    if (!(in->cm_time >= 0) || !isfinite(in->cm_time)) {
        snprintf(err, n, "cm-time: must be a number >= 0");
        return SAN_E_USAGE;
    }
    return SAN_OK;
}

san_status san_map(const san_map_input *in, san_map_result *out, char *err, size_t n)
{
    san_status st = map_check(in, err, n);
    if (st != SAN_OK)
        return st;
    double sum = 0;
    for (int i = 0; i < in->nstages; i++)
        sum += in->tr[i];
    out->tp_ideal = sum / in->processors;
    map_before(in, &out->before);
    if (in->method == SAN_MAP_OPTIMAL) {
        st = map_optimal(in, &out->after);
        if (st != SAN_OK) {
            snprintf(err, n, "out of memory");
            return st;
        }
    } else {
        map_dpm(in, out->tp_ideal, &out->after);
    }
    out->gain = out->before.bottleneck / out->after.bottleneck;
    return SAN_OK;
}

/* ------------------------------------------------------------------ */
/* The generator line                                                   */
/* ------------------------------------------------------------------ */

typedef struct {
    char *s;
    size_t n, len;          /* len: as snprintf counts, past n too */
} map_text;

static void put(map_text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void put(map_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = t->len < t->n ? t->n - t->len : 0;
    int k = vsnprintf(room ? t->s + t->len : NULL, room, fmt, ap);
    va_end(ap);
    if (k > 0)
        t->len += (size_t)k;
}

static int any_replicated(const san_map_mapping *m)
{
    for (int u = 0; u < m->nunits; u++)
        if (m->replicas[u] > 1)
            return 1;
    return 0;
}

static void put_groups(map_text *t, const san_map_mapping *m)
{
    int first = 1;
    for (int u = 0; u < m->nunits; u++) {
        if (m->first[u] == m->last[u])
            continue;
        put(t, first ? " --group " : ",");
        for (int i = m->first[u]; i <= m->last[u]; i++)
            put(t, "%s%d", i > m->first[u] ? "+" : "", i + 1);
        first = 0;
    }
}

int san_map_gen_line(const san_map_input *in, const san_map_mapping *m, const char *mode,
                     int phases, char *buf, size_t n)
{
    map_text t = { buf, n, 0 };
    if (n)
        buf[0] = '\0';
    if (map_foreign(in, NULL, 0))
        return -1;
    put(&t, "pipeline --mode %s --stages ", mode ? mode : "async");
    for (int i = 0; i < in->nstages; i++)
        put(&t, "%s%.12g", i ? "," : "", in->tr[i]);
    if (any_replicated(m)) {
        put(&t, " --replicas ");
        for (int u = 0, k = 0; u < m->nunits; u++)
            for (int i = m->first[u]; i <= m->last[u]; i++, k++)
                put(&t, "%s%d", k ? "," : "", m->replicas[u]);
        if (in->cm_time > 0)
            put(&t, " --cm-time %.12g", in->cm_time);
    }
    put_groups(&t, m);
    if (phases > 1)
        put(&t, " --phases %d", phases);
    return t.len > (size_t)0x7fffffff ? -1 : (int)t.len;
}

int san_map_parse_list(const char *s, double *v, int max)
{
    int k = 0;
    const char *p = s;
    for (;;) {
        const char *q = strchr(p, ',');
        size_t len = q ? (size_t)(q - p) : strlen(p);
        char item[64];
        if (k == max || len == 0 || len >= sizeof item)
            return -1;
        memcpy(item, p, len);
        item[len] = '\0';
        if (san_parse_double(item, 0, HUGE_VAL, &v[k]) < 0 || !(v[k] > 0) || !isfinite(v[k]))
            return -1;
        k++;
        if (!q)
            return k;
        p = q + 1;
    }
}
