/*
 * cmd_workrate.c - `san workrate TOPOLOGY.json`: seed 003's work-rate
 * model.  For every host that may be the master, the application's task
 * rate (the maximum flow from the slaves through the networks to it) and
 * what limits it; the best master and its slaves' rates.  The model is
 * the library's (analytic/workrate.c, analytic/topology.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "tool/options.h"

typedef struct {
    const char *master;
    tool_format fmt;
} workrate_args;

static const tool_option workrate_options[] = {
    TOOL_GROUP("options:"),
    TOOL_STRING('m', "master", "HOST", workrate_args, master,
               "only this master (default: every candidate)"),
    TOOL_FORMAT(workrate_args, fmt, TOOL_FMT_TEXT | TOOL_FMT_JSON | TOOL_FMT_CSV, NULL),
    TOOL_END
};

static const tool_spec workrate_spec = {
    .name = "workrate",
    .usage = "usage: san workrate [options] TOPOLOGY.json\n",
    .intro =
        "Seed 003's work-rate model of a master/slave program on heterogeneous\n"
        "hosts: for every master candidate, the largest task rate the slaves,\n"
        "the networks on their paths and the master allow (a maximum flow on\n"
        "the tree of networks), what limits it, and the best master.  The\n"
        "topology format is in doc/analytic.md (\"Work-rate (seed 003)\").\n",
    .opts = workrate_options,
    .outro = "Exit status: 0 success, 2 bad usage or topology.\n",
};

void help_workrate(FILE *out)
{
    tool_help(out, &workrate_spec);
}

/* "master", "network Net3", "slaves": what limits w, space-separated. */
static void put_limits(FILE *out, const san_topology *t, const san_workrate *w, const char *sep)
{
    int k = 0;
    if (w->master_bound)
        fprintf(out, "%smaster", k++ ? sep : "");
    for (int j = 0; j < t->nnets; j++)
        if (w->net_bound[j])
            fprintf(out, "%snetwork %s", k++ ? sep : "", t->net[j].name);
    if (!k)
        fprintf(out, "slaves");
}

static void text_report(FILE *out, const san_topology *t, const san_workrate *w, int nw,
                        int best)
{
    fprintf(out, "%d hosts on %d networks; rates in tasks per time unit\n\n", t->nhosts,
            t->nnets);
    fprintf(out, "  %-16s %12s  %s\n", "master", "app_rate", "limited by");
    for (int i = 0; i < nw; i++) {
        fprintf(out, "  %-16s %12.6g  ", t->host[w[i].master].name, w[i].app_rate);
        put_limits(out, t, &w[i], ", ");
        fputs(i == best ? "   (best)\n" : "\n", out);
    }
    const san_workrate *b = &w[best];
    fprintf(out, "\nbest master: %s, %.6g tasks per time unit; its slaves:\n",
            t->host[b->master].name, b->app_rate);
    for (int h = 0; h < t->nhosts; h++)
        if (h != b->master && t->host[h].slave_rate > 0)
            fprintf(out, "  %-16s %12.6g of %.6g\n", t->host[h].name, b->slave_rate[h],
                    t->host[h].slave_rate);
}

static void json_num(FILE *out, double v)
{
    tool_json_figure(out, v);
}

static void json_report(FILE *out, const san_topology *t, const san_workrate *w, int nw,
                        int best)
{
    fputs("{\n  ", out);
    tool_meta_json(out, NULL);
    fputs("\"best\": ", out);
    san_json_string(out, t->host[w[best].master].name);
    fputs(",\n  \"masters\": [", out);
    for (int i = 0; i < nw; i++) {
        fputs(i ? ",\n    { \"host\": " : "\n    { \"host\": ", out);
        san_json_string(out, t->host[w[i].master].name);
        fputs(", \"app_rate\": ", out);
        json_num(out, w[i].app_rate);
        fprintf(out, ", \"master_bound\": %s, \"networks_bound\": [",
                w[i].master_bound ? "true" : "false");
        for (int j = 0, k = 0; j < t->nnets; j++)
            if (w[i].net_bound[j]) {
                fputs(k++ ? ", " : "", out);
                san_json_string(out, t->net[j].name);
            }
        fputs("], \"slaves\": {", out);
        for (int h = 0, k = 0; h < t->nhosts; h++)
            if (h != w[i].master && t->host[h].slave_rate > 0) {
                fputs(k++ ? ", " : " ", out);
                san_json_string(out, t->host[h].name);
                fputs(": ", out);
                json_num(out, w[i].slave_rate[h]);
            }
        fputs(" } }", out);
    }
    fputs("\n  ]\n}\n", out);
}

static void csv_report(FILE *out, const san_topology *t, const san_workrate *w, int nw,
                       int best)
{
    tool_meta_csv(out, NULL);
    fputs("master,app_rate,best,limited_by\n", out);
    for (int i = 0; i < nw; i++) {
        fprintf(out, "%s,%.12g,%d,\"", t->host[w[i].master].name, w[i].app_rate, i == best);
        put_limits(out, t, &w[i], "; ");
        fputs("\"\n", out);
    }
}

static int find_host(const san_topology *t, const char *name)
{
    for (int h = 0; h < t->nhosts; h++)
        if (!strcmp(t->host[h].name, name))
            return h;
    return -1;
}

static int workrate_main(const workrate_args *A, const char *path)
{
    size_t len;
    char *text;
    int rc = tool_read_model(path, 0, 0, &text, &len);
    if (rc != EXIT_OK)
        return rc;
    san_topology *t = malloc(sizeof *t);
    san_workrate *w = malloc(SAN_WR_MAX * sizeof *w);
    char err[512];
    int status = EXIT_OK, nw = 0, best = -1;
    if (!t || !w) {
        fprintf(stderr, "san workrate: out of memory\n");
        status = EXIT_FAIL;
    } else if (san_topology_read(text, len, t, err, sizeof err) != SAN_OK) {
        fprintf(stderr, "san workrate: %s: %s\n", path, err);
        status = EXIT_USAGE;
    } else {
        int only = A->master ? find_host(t, A->master) : -1;
        if (A->master && (only < 0 || t->host[only].master_rate < 0))
            status = tool_usage_error("workrate", "--master: '%s' is not a host with a master "
                                     "rate", A->master);
        for (int m = 0; status == EXIT_OK && m < t->nhosts; m++)
            if ((only < 0 || m == only) && san_workrate_eval(t, m, &w[nw]) == SAN_OK) {
                if (best < 0 || w[nw].app_rate > w[best].app_rate)
                    best = nw;
                nw++;
            }
        if (status == EXIT_OK && !nw)
            status = tool_usage_error("workrate", "%s: no host has a master rate", path);
    }
    if (status == EXIT_OK) {
        if (A->fmt == FMT_JSON)
            json_report(stdout, t, w, nw, best);
        else if (A->fmt == FMT_CSV)
            csv_report(stdout, t, w, nw, best);
        else {
            tool_meta_text(stdout);
            text_report(stdout, t, w, nw, best);
        }
    }
    free(w);
    free(t);
    free(text);
    return status;
}

int cmd_workrate(int argc, char **argv)
{
    workrate_args A;
    memset(&A, 0, sizeof A);
    A.fmt = FMT_TEXT;
    char **rest;
    int nrest;
    int status = tool_parse(&workrate_spec, argc, argv, &A, &rest, &nrest);
    if (status == 0 && nrest != 1)
        status = tool_usage_error("workrate", "expected one topology file (got %d)", nrest);
    if (status == 0)
        status = workrate_main(&A, rest[0]);
    free(rest);
    return status == TOOL_HELP_SHOWN ? EXIT_OK : status;
}
