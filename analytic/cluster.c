/*
 * cluster.c - the steady bound of a master/worker run on a cluster, and
 * on an external cluster behind Internet links (seed 001, ch. 3): in the
 * steady state computation and communication overlap (double
 * buffering), so a run goes as fast as its slowest resource,
 *
 *   PerfSte = min(CPerfAvail, Oper TPut_LAN / SComm,
 *                 Oper TPut_in / STask, Oper TPut_out / SResult)   (26, 32)
 *
 * before which the pipeline fills (startup) and after which it drains
 * (end).  The matrix multiplication of its ch. 5 gives the operations and
 * sizes as functions of the block, hence the smallest inter-cluster block
 * that lets the Internet keep the workers busy (eq. 71).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "base/services.h"
#include "analytic/analytic_int.h"

void san_cluster_default(san_cluster_params *p)
{
    memset(p, 0, sizeof *p);
    p->struct_size = sizeof *p;
    p->workers = 1;
}

/* p filled against another layout (base_opts_foreign): 1, with err. */
static int foreign(const san_cluster_params *p, char *err, size_t n)
{
    return BASE_OPTS_FOREIGN(p, "cluster", "san_cluster_default", err, n);
}

/* ------------------------------------------------------------------ */
/* Inputs                                                               */
/* ------------------------------------------------------------------ */

/* Every input by its flag: where it goes and what it is. */
typedef struct {
    const char *flag;
    size_t offset;
    int is_bytes;           /* sizes and throughputs take k, M, G */
    int may_be_zero;        /* 0 means "absent" */
} cluster_input;

static const cluster_input inputs[] = {
    { "--oper", offsetof(san_cluster_params, oper), 0, 0 },
    { "--perf", offsetof(san_cluster_params, perf), 0, 0 },
    { "--worst-perf", offsetof(san_cluster_params, worst_perf), 0, 1 },
    { "--task-size", offsetof(san_cluster_params, s_task), 1, 0 },
    { "--result-size", offsetof(san_cluster_params, s_result), 1, 0 },
    { "--lan", offsetof(san_cluster_params, lan), 1, 1 },
    { "--inet-in", offsetof(san_cluster_params, inet_in), 1, 1 },
    { "--inet-out", offsetof(san_cluster_params, inet_out), 1, 1 },
    { "--workers", offsetof(san_cluster_params, workers), 0, 0 },
    { "--tasks", offsetof(san_cluster_params, tasks), 0, 1 },
};
enum { NINPUTS = sizeof inputs / sizeof inputs[0] };

static int parse_value(const cluster_input *in, const char *val, double *out)
{
    if (in->may_be_zero && san_parse_double(val, 0, 0, out) == 0)
        return 0;
    if (in->is_bytes)
        return san_parse_bytes(val, out);
    return san_parse_double(val, 0, HUGE_VAL, out) < 0 || !(*out > 0) ? -1 : 0;
}

san_status san_cluster_set(san_cluster_params *p, const char *flag, const char *val, char *err,
                           size_t n)
{
    if (foreign(p, err, n))
        return SAN_E_USAGE;
    for (int i = 0; i < NINPUTS; i++) {
        if (strcmp(flag, inputs[i].flag))
            continue;
        double *dest = (double *)((char *)p + inputs[i].offset);
        if (parse_value(&inputs[i], val, dest) == 0)
            return SAN_OK;
        analytic_err(err, n, "%s: expected %s%s, not '%s'", flag,
                     inputs[i].is_bytes ? "bytes > 0 (k, M, G allowed)" : "a number > 0",
                     inputs[i].may_be_zero ? " or 0 (none)" : "", val);
        return SAN_E_USAGE;
    }
    analytic_err(err, n, "%s: unknown flag of cluster (--oper, --perf, --worst-perf, --task-size, "
                 "--result-size, --lan, --inet-in, --inet-out, --workers, --tasks, "
                 "--mm-block, --elem-bytes)", flag);
    return SAN_E_USAGE;
}

san_status san_cluster_check(const san_cluster_params *p, char *err, size_t n)
{
    if (foreign(p, err, n))
        return SAN_E_USAGE;
    static const struct { size_t off; const char *flag; } need[] = {
        { offsetof(san_cluster_params, oper), "--oper (or --mm-block)" },
        { offsetof(san_cluster_params, perf), "--perf" },
        { offsetof(san_cluster_params, s_task), "--task-size (or --mm-block)" },
        { offsetof(san_cluster_params, s_result), "--result-size (or --mm-block)" },
    };
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (!(*(const double *)((const char *)p + need[i].off) > 0)) {
            analytic_err(err, n, "%s: required", need[i].flag);
            return SAN_E_USAGE;
        }
    if (p->workers < 1 || p->workers != floor(p->workers)) {
        analytic_err(err, n, "--workers: a whole number >= 1");
        return SAN_E_USAGE;
    }
    return SAN_OK;
}

/* ------------------------------------------------------------------ */
/* The model                                                            */
/* ------------------------------------------------------------------ */

const char *san_cluster_bound_name(san_cluster_bound b)
{
    static const char *const names[SAN_NBOUNDS] = {
        "computation", "LAN", "Internet in", "Internet out"
    };
    return b >= 0 && b < SAN_NBOUNDS ? names[b] : "?";
}

/* Seconds to move bytes at tput; a link of throughput 0 is one the
 * user left out: no limit, no time. */
static double xfer(double bytes, double tput)
{
    return tput > 0 ? bytes / tput : 0;
}

/* Operations per second each resource lets through (eqs. 26, 32): a link
 * moving B bytes per second carries B / (bytes per task) tasks. */
static void link_bounds(const san_cluster_params *p, san_cluster_result *r)
{
    r->bound[SAN_BOUND_COMPUTE] = p->perf;
    r->bound[SAN_BOUND_LAN] = p->lan > 0 ? p->oper * p->lan / (p->s_task + p->s_result)
                                         : INFINITY;
    r->bound[SAN_BOUND_INET_IN] = p->inet_in > 0 ? p->oper * p->inet_in / p->s_task : INFINITY;
    r->bound[SAN_BOUND_INET_OUT] = p->inet_out > 0 ? p->oper * p->inet_out / p->s_result
                                                   : INFINITY;
    r->by = SAN_BOUND_COMPUTE;
    for (int b = 1; b < SAN_NBOUNDS; b++)
        if (r->bound[b] < r->bound[r->by])
            r->by = b;
    r->perf_ste = r->bound[r->by];
}

/* Worker k waits for k tasks to arrive one after the other; the run pays
 * the mean wait, t (W + 1) / 2 (eq. 10).  Behind the Internet (eqs. 15-18)
 * each task crosses the link in turn and then the sub-cluster's LAN:
 * worker k waits k t_inet + t_lan. */
static double startup(const san_cluster_params *p)
{
    double w = p->workers, lan = xfer(p->s_task, p->lan);
    if (p->inet_in > 0)
        return p->s_task / p->inet_in * (w + 1) / 2 + lan;
    return lan * (w + 1) / 2;
}

/* The time one result takes back to the master. */
static double result_time(const san_cluster_params *p)
{
    return xfer(p->s_result, p->lan) + xfer(p->s_result, p->inet_out);
}

/* Best end (eq. 37): the startup mirrored, the workers finish one after
 * the other as the network frees.  Worst end: compute-bound, the last
 * task lands on the slowest worker as the others finish (eq. 39);
 * communication-bound, every result waits its turn (eq. 44). */
static void ends(const san_cluster_params *p, san_cluster_result *r)
{
    double w = p->workers, back = result_time(p);
    double slowest = p->worst_perf > 0 ? p->worst_perf : p->perf / w;
    if (p->inet_out > 0)
        r->t_end_best = p->s_result / p->inet_out * (w + 1) / 2 + xfer(p->s_result, p->lan);
    else
        r->t_end_best = back * (w + 1) / 2;
    if (r->by == SAN_BOUND_COMPUTE)
        r->t_end_worst = p->oper / slowest * (w - 1) / w + back;
    else
        r->t_end_worst = w * back;
}

san_status san_cluster_eval(const san_cluster_params *p, san_cluster_result *r)
{
    memset(r, 0, sizeof *r);
    if (foreign(p, NULL, 0))
        return SAN_E_USAGE;
    link_bounds(p, r);
    r->efficiency = r->perf_ste / p->perf;
    r->t_startup = startup(p);
    ends(p, r);
    if (p->tasks > 0) {
        r->t_steady = p->tasks * p->oper / r->perf_ste;
        r->t_best = r->t_startup + r->t_steady + r->t_end_best;
        r->t_worst = r->t_startup + r->t_steady + r->t_end_worst;
    } else {
        r->t_steady = r->t_best = r->t_worst = NAN;
    }
    return SAN_OK;
}

/* ------------------------------------------------------------------ */
/* Matrix multiplication in blocks (seed 001, ch. 5)                    */
/* ------------------------------------------------------------------ */

san_status san_cluster_mm(san_cluster_params *p, double g, double elem)
{
    if (foreign(p, NULL, 0))
        return SAN_E_USAGE;
    p->oper = 2 * g * g * g - g * g;            /* eq. 63 */
    p->s_task = 2 * elem * g * g;               /* eq. 65: two operand blocks */
    p->s_result = elem * g * g;                 /* eq. 66 */
    return SAN_OK;
}

/* The link bound of a G block is linear in G: (2 G - 1) TPut / (2 elem)
 * over the Internet in (eq. 70), (2 G - 1) TPut / (3 elem) over the LAN;
 * equal to perf at the G returned. */
san_status san_cluster_mm_min_grain(const san_cluster_params *p, double elem, int inet,
                                    double *g)
{
    *g = NAN;
    if (foreign(p, NULL, 0))
        return SAN_E_USAGE;
    if (inet)
        *g = p->inet_in > 0 ? elem * p->perf / p->inet_in + 0.5 : NAN;    /* eq. 71 */
    else
        *g = p->lan > 0 ? 3 * elem * p->perf / (2 * p->lan) + 0.5 : NAN;
    return SAN_OK;
}

/* ------------------------------------------------------------------ */
/* The template line                                                    */
/* ------------------------------------------------------------------ */

static san_status parse_line(int argc, char **argv, san_cluster_params *p, double *block,
                             double *elem, char *err, size_t en)
{
    san_cluster_default(p);
    *block = 0;
    *elem = 4;
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc) {
            analytic_err(err, en, "%s: missing value", argv[i]);
            return SAN_E_USAGE;
        }
        double *mm = !strcmp(argv[i], "--mm-block") ? block
                   : !strcmp(argv[i], "--elem-bytes") ? elem : NULL;
        if (mm) {
            if (san_parse_double(argv[i + 1], 1, 1e9, mm) < 0) {
                analytic_err(err, en, "%s: expected a number >= 1, not '%s'", argv[i],
                             argv[i + 1]);
                return SAN_E_USAGE;
            }
            continue;
        }
        san_status st = san_cluster_set(p, argv[i], argv[i + 1], err, en);
        if (st != SAN_OK)
            return st;
    }
    if (*block > 0)
        san_cluster_mm(p, *block, *elem);
    return san_cluster_check(p, err, en);
}

san_status analytic_cluster_line(int argc, char **argv, san_analytic_results *out, char *err,
                                 size_t en)
{
    san_cluster_params p;
    double block, elem;
    san_status st = parse_line(argc, argv, &p, &block, &elem, err, en);
    if (st != SAN_OK)
        return st;
    san_cluster_result r;
    san_cluster_eval(&p, &r);
    const struct { const char *name; double v; } res[] = {
        { "perf_ste", r.perf_ste }, { "bound", r.by },
        { "bound_compute", r.bound[SAN_BOUND_COMPUTE] }, { "bound_lan", r.bound[SAN_BOUND_LAN] },
        { "bound_inet_in", r.bound[SAN_BOUND_INET_IN] },
        { "bound_inet_out", r.bound[SAN_BOUND_INET_OUT] }, { "efficiency", r.efficiency },
        { "t_startup", r.t_startup }, { "t_steady", r.t_steady }, { "t_end_best", r.t_end_best },
        { "t_end_worst", r.t_end_worst }, { "execution_time", r.t_best },
        { "execution_time_worst", r.t_worst },
    };
    for (size_t i = 0; i < sizeof res / sizeof res[0]; i++)
        if (analytic_results_add(out, res[i].name, res[i].v) < 0) {
            analytic_err(err, en, "out of memory");
            return SAN_E_NOMEM;
        }
    return SAN_OK;
}
