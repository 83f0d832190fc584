/*
 * cmd_cluster.c - `san cluster`: seed 001's steady bound of a
 * master/worker run on a cluster, or on an external cluster behind
 * Internet links: what each resource allows, which one binds
 * (computation or a link), the startup, steady and end times, and for
 * the seed's blocked matrix multiplication the smallest block that keeps
 * the workers busy.  The model is the library's (analytic/cluster.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "tool/options.h"

typedef struct {
    san_cluster_params par;
    double block, elem, multiple;
    tool_format fmt;
} cluster_args;

/* The model's inputs through the library's san_cluster_set. */
static int cluster_input(const tool_parser *p, const tool_option *o, const char *arg, void *dest)
{
    char flag[64], err[256];
    snprintf(flag, sizeof flag, "--%s", o->long_name);
    if (san_cluster_set(dest, flag, arg, err, sizeof err) != SAN_OK)
        return tool_usage_error(p->cmd, "%s", err);
    return 0;
}

#define CL_INPUT(l, a, h, d) { .kind = TOOL_OPT_CALLBACK, .long_name = (l), .argh = (a), \
    .offset = offsetof(cluster_args, par), .cb = cluster_input, .help = (h), .def = (d) }

static const tool_option cluster_options[] = {
    TOOL_GROUP("the application:"),
    CL_INPUT("oper", "OPS", "Oper: basic operations of a task", NULL),
    CL_INPUT("task-size", "BYTES", "STask: bytes of a task (k, M, G: powers of 1024)", NULL),
    CL_INPUT("result-size", "BYTES", "SResult: bytes of a task's result", NULL),
    CL_INPUT("tasks", "N", "tasks of the run (for the times)", NULL),
    TOOL_DOUBLE(0, "mm-block", "G", cluster_args, block, 1, 1e9, 0, "a block size >= 1",
               "the seed's matrix multiplication in G x G blocks:\n"
               "sets --oper 2G^3-G^2, --task-size 2eG^2,\n"
               "--result-size eG^2 (eqs. 63, 65, 66)", NULL),
    TOOL_DOUBLE(0, "elem-bytes", "E", cluster_args, elem, 1, 1e6, 0, "bytes >= 1",
               "e: bytes of a matrix element", "4"),
    TOOL_DOUBLE(0, "block-multiple", "B", cluster_args, multiple, 1, 1e9, 0, "a block size >= 1",
               "round the smallest block up to a multiple of B\n"
               "(the intra-cluster block)", NULL),
    TOOL_GROUP("the system:"),
    CL_INPUT("perf", "OPS/S", "CPerfAvail: operations per second of all the\n"
             "workers together", NULL),
    CL_INPUT("worst-perf", "OPS/S", "the slowest worker's (default: perf / workers)", NULL),
    CL_INPUT("workers", "W", "workers", "1"),
    CL_INPUT("lan", "BYTES/S", "TPut of the cluster's LAN (0: not a limit)", NULL),
    CL_INPUT("inet-in", "BYTES/S", "an external cluster: Internet throughput from\n"
             "the master (0: a local cluster)", NULL),
    CL_INPUT("inet-out", "BYTES/S", "... back to the master", NULL),
    TOOL_GROUP("options:"),
    TOOL_FORMAT(cluster_args, fmt, TOOL_FMT_TEXT | TOOL_FMT_JSON | TOOL_FMT_CSV, NULL),
    TOOL_END
};

static const tool_spec cluster_spec = {
    .name = "cluster",
    .usage = "usage: san cluster --perf OPS/S [--lan BYTES/S] (--oper OPS --task-size BYTES\n"
             "                   --result-size BYTES | --mm-block G) [options]\n",
    .intro =
        "The steady bound of seed 001 (ch. 3): in the steady state computation\n"
        "and communication overlap, and the run goes as fast as its slowest\n"
        "resource, PerfSte = min(CPerfAvail, Oper TPut_LAN / SComm, and behind\n"
        "the Internet Oper TPut_in / STask, Oper TPut_out / SResult) (eqs. 26,\n"
        "32): computation- or communication-bound, per link.  Then the startup\n"
        "(eqs. 12, 18), the best and worst end (eqs. 37, 39, 44) and, with\n"
        "--tasks, the run's times; with --mm-block, the smallest block whose\n"
        "links keep the workers busy (eq. 71).  doc/analytic.md derives them.\n",
    .opts = cluster_options,
    .outro =
        "example (the seed's Spanish cluster behind 53.95 KB/s, eq. 72):\n"
        "  san cluster --perf 56939364 --inet-in 55245 --inet-out 55245 \\\n"
        "      --mm-block 400 --block-multiple 400\n"
        "\n"
        "Exit status: 0 success, 2 bad usage.\n",
};

void help_cluster(FILE *out)
{
    tool_help(out, &cluster_spec);
}

/* ------------------------------------------------------------------ */
/* The report                                                           */
/* ------------------------------------------------------------------ */

/* One quantity of the report: its name (JSON, CSV), its label (text). */
typedef struct {
    const char *name, *label;
    double v;
} quantity;

enum { MAXQ = 32 };

typedef struct {
    quantity q[MAXQ];
    int n;
    const char *bound;
} report;

static void add(report *r, const char *name, const char *label, double v)
{
    if (r->n < MAXQ)
        r->q[r->n++] = (quantity){ name, label, v };
}

static void gather(const cluster_args *A, const san_cluster_result *c, report *r)
{
    const san_cluster_params *p = &A->par;
    r->bound = san_cluster_bound_name(c->by);
    add(r, "bound_compute", "computation (CPerfAvail), op/s", c->bound[SAN_BOUND_COMPUTE]);
    add(r, "bound_lan", "LAN (Oper TPut / SComm), op/s", c->bound[SAN_BOUND_LAN]);
    if (p->inet_in > 0)
        add(r, "bound_inet_in", "Internet in (Oper TPut / STask), op/s",
            c->bound[SAN_BOUND_INET_IN]);
    if (p->inet_out > 0)
        add(r, "bound_inet_out", "Internet out (Oper TPut / SResult), op/s",
            c->bound[SAN_BOUND_INET_OUT]);
    add(r, "perf_ste", "PerfSte, op/s", c->perf_ste);
    add(r, "efficiency", "PerfSte / CPerfAvail", c->efficiency);
    add(r, "t_startup", "startup time, s", c->t_startup);
    add(r, "t_end_best", "best end time, s", c->t_end_best);
    add(r, "t_end_worst", "worst end time, s", c->t_end_worst);
    if (p->tasks > 0) {
        add(r, "t_steady", "steady time, s", c->t_steady);
        add(r, "execution_time", "execution time (best end), s", c->t_best);
        add(r, "execution_time_worst", "execution time (worst end), s", c->t_worst);
    }
    if (A->block > 0) {
        add(r, "oper", "operations of a block task", p->oper);
        add(r, "task_size", "bytes of a block task", p->s_task);
        add(r, "result_size", "bytes of its result", p->s_result);
    }
}

/* The smallest blocks (eq. 71 and its LAN analogue), rounded up to the
 * intra-cluster block when one is given. */
static void grains(const cluster_args *A, report *r)
{
    const san_cluster_params *p = &A->par;
    for (int inet = 0; inet < 2; inet++) {
        double g;
        if (san_cluster_mm_min_grain(p, A->elem, inet, &g) != SAN_OK || !isfinite(g) || (inet && !(p->inet_in > 0)))
            continue;
        add(r, inet ? "min_block_inet" : "min_block_lan",
            inet ? "smallest block for the Internet link (eq. 71)"
                 : "smallest block for the LAN", g);
        if (A->multiple > 0) {
            double m = ceil(g / A->multiple) * A->multiple;
            add(r, inet ? "min_block_inet_rounded" : "min_block_lan_rounded",
                "... rounded up to a multiple of the block", m);
            add(r, inet ? "min_block_inet_task_size" : "min_block_lan_task_size",
                "... its task, bytes", 2 * A->elem * m * m);
        }
    }
}

static void write_text(const cluster_args *A, const report *r, FILE *out)
{
    const san_cluster_params *p = &A->par;
    tool_meta_text(out);
    fprintf(out, "%s cluster, %g workers: Oper %.10g, STask %.10g B, SResult %.10g B\n",
            p->inet_in > 0 || p->inet_out > 0 ? "external" : "local", p->workers, p->oper,
            p->s_task, p->s_result);
    for (int i = 0; i < r->n; i++) {
        fprintf(out, "  %-46s %.10g", r->q[i].label, r->q[i].v);
        if (!strcmp(r->q[i].name, "perf_ste"))
            fprintf(out, "  (%s-bound)", r->bound);
        fputc('\n', out);
    }
}

static void write_csv(const report *r, FILE *out)
{
    tool_meta_csv(out, NULL);
    fprintf(out, "name,value\nbound,%s\n", r->bound);
    for (int i = 0; i < r->n; i++)
        fprintf(out, "%s,%.17g\n", r->q[i].name, r->q[i].v);
}

static void write_json(const report *r, FILE *out)
{
    fputs("{\n  ", out);
    tool_meta_json(out, NULL);
    fputs("\"model\": \"cluster\",\n  \"bound\": ", out);
    san_json_string(out, r->bound);
    for (int i = 0; i < r->n; i++) {
        fprintf(out, ",\n  \"%s\": ", r->q[i].name);
        tool_json_figure(out, r->q[i].v);
    }
    fputs("\n}\n", out);
}

/* ------------------------------------------------------------------ */
/* The command                                                          */
/* ------------------------------------------------------------------ */

static int cluster_main(cluster_args *A)
{
    char err[256];
    if (A->block > 0)
        san_cluster_mm(&A->par, A->block, A->elem);
    if (san_cluster_check(&A->par, err, sizeof err) != SAN_OK)
        return tool_usage_error("cluster", "%s", err);
    san_cluster_result c;
    san_cluster_eval(&A->par, &c);
    report r;
    memset(&r, 0, sizeof r);
    gather(A, &c, &r);
    if (A->block > 0)
        grains(A, &r);
    if (A->fmt == FMT_JSON)
        write_json(&r, stdout);
    else if (A->fmt == FMT_CSV)
        write_csv(&r, stdout);
    else
        write_text(A, &r, stdout);
    return EXIT_OK;
}

int cmd_cluster(int argc, char **argv)
{
    cluster_args A;
    memset(&A, 0, sizeof A);
    san_cluster_default(&A.par);
    A.elem = 4;
    A.fmt = FMT_TEXT;
    char **rest;
    int nrest;
    int status = tool_parse(&cluster_spec, argc, argv, &A, &rest, &nrest);
    if (status == 0 && nrest > 0)
        status = tool_usage_error("cluster", "unexpected argument '%s'", rest[0]);
    if (status == 0)
        status = cluster_main(&A);
    free(rest);
    return status == TOOL_HELP_SHOWN ? EXIT_OK : status;
}
