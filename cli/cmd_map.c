/*
 * cmd_map.c - `san map`: seed 002's Dynamic Pipeline Mapping.  Given the
 * stages' production times and P processors, the mapping before (one
 * stage per processor) and the proposal (gathered fast stages, replicated
 * slow ones), their bottlenecks and throughputs, the time of a finite
 * job, and the `san gen pipeline` line that models the proposal
 * stochastically.  The models (analytic/map.c, analytic/finite.c) and
 * the report (report/map_out.c) are the library's; here are the options.
 * --batch maps one pipeline per input line, for scenario studies.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "tool/options.h"

typedef struct {
    const char *stages, *method, *mode, *batch;
    int processors, phases, cm_own;
    double cm_time;
    long items;
    tool_format fmt;
} map_args;

static const tool_option map_options[] = {
    TOOL_GROUP("pipeline:"),
    TOOL_STRING(0, "stages", "T1,...,Tm",  map_args, stages,
               "independent production time Tr of each stage"),
    TOOL_INT('P', "processors", "P", map_args, processors, 1, 100000, "a positive integer",
            "processors available (required)", NULL),
    TOOL_DOUBLE(0, "cm-time", "TG", map_args, cm_time, 0, INFINITY, TOOL_OPEN_HI, NULL,
               "seed 000: per-item time of a replicated stage's\n"
               "communication manager (sync sends: 2(mo + lambda v));\n"
               "the stage's period becomes max(TG, Tr/r)", "0"),
    TOOL_FLAG(0, "cm-own-processor", map_args, cm_own, 1,
             "the communication manager takes a processor of its own"),
    TOOL_GROUP("options:"),
    TOOL_STRING(0, "method", "M", map_args, method,
               "dpm (the paper's algorithm, default) or optimal\n"
               "(the smallest bottleneck of any such mapping)"),
    TOOL_INT('n', "items", "N", map_args, items, 1, 1e12, "a positive integer",
            "also the time of a finite job of N items", NULL),
    TOOL_STRING(0, "mode", "sync|async", map_args, mode,
               "--mode of the generator line (default async)"),
    TOOL_INT(0, "phases", "K", map_args, phases, 1, 64, NULL,
            "--phases of the generator line (Erlang-K service)", "1"),
    TOOL_STRING(0, "batch", "FILE", map_args, batch,
               "map every line of FILE (- for stdin), one stage list\n"
               "a line, and print one row per pipeline"),
    TOOL_FORMAT(map_args, fmt, TOOL_FMT_TEXT | TOOL_FMT_JSON | TOOL_FMT_CSV, NULL),
    TOOL_END
};

static const tool_spec map_spec = {
    .name = "map",
    .usage = "usage: san map --stages T1,...,Tm -P P [options]\n"
             "       san map --batch FILE -P P [options]\n",
    .intro =
        "Map a pipeline onto P processors after seed 002 (Dynamic Pipeline\n"
        "Mapping): gather fast consecutive stages on one processor, replicate\n"
        "slow ones, towards Tp_ideal = sum(Tr)/P.  Prints the bottleneck and the\n"
        "throughput before (one stage per processor) and after, and the\n"
        "`san gen pipeline` line that models the proposal stochastically.\n",
    .opts = map_options,
    .outro =
        "example:\n"
        "  san map --stages 2,2,11,6,4 -P 6     # bottleneck 11 -> 6 (seed 002, fig. 2)\n"
        "\n"
        "Exit status: 0 success, 2 bad usage.\n",
};

void help_map(FILE *out)
{
    tool_help(out, &map_spec);
}

/* ------------------------------------------------------------------ */
/* The command                                                          */
/* ------------------------------------------------------------------ */

/* Every non-empty line of the batch file (blanks and '#' comments
 * skipped) as a stage list. */
static int map_batch(const map_args *A, const san_map_input *base)
{
    size_t len;
    char *text;
    int rc = tool_read_model(A->batch, 0, 0, &text, &len);
    if (rc != EXIT_OK)
        return rc;
    san_map_case *c = malloc(sizeof *c);
    san_map_report_opts ro;
    san_map_report_opts_default(&ro);
    ro.batch = 1;
    ro.preamble = tool_provenance;
    const san_report_format f = tool_report_format(A->fmt);
    int k = 0, status = EXIT_OK, lineno = 0;
    char err[512];
    for (char *line = strtok(text, "\n"); line && c; line = strtok(NULL, "\n")) {
        lineno++;
        line += strspn(line, " \t\r");
        line[strcspn(line, " \t\r#")] = '\0';
        if (!*line)
            continue;
        san_status st = san_map_case_run(base, line, A->items, A->mode, A->phases, c, err,
                                         sizeof err);
        if (st != SAN_OK) {
            status = tool_usage_error("map", "%s:%d: %s", A->batch, lineno, err);
            break;
        }
        san_report_map_case(stdout, f, c, k++, &ro);
    }
    if (status == EXIT_OK)
        san_report_map_end(stdout, f, k, &ro);
    free(c);
    free(text);
    return c ? status : EXIT_FAIL;
}

static int map_main(map_args *A)
{
    san_map_input base;
    san_map_input_default(&base);
    if (!A->processors)
        return tool_usage_error("map", "-P/--processors: required");
    if (!A->stages == !A->batch)
        return tool_usage_error("map", "give --stages or --batch (one of them)");
    if (A->method && strcmp(A->method, "dpm") && strcmp(A->method, "optimal"))
        return tool_usage_error("map", "--method: expected dpm or optimal, not '%s'", A->method);
    if (A->mode && strcmp(A->mode, "sync") && strcmp(A->mode, "async"))
        return tool_usage_error("map", "--mode: expected sync or async, not '%s'", A->mode);
    base.processors = A->processors;
    base.method = A->method && !strcmp(A->method, "optimal") ? SAN_MAP_OPTIMAL : SAN_MAP_DPM;
    base.cm_time = A->cm_time;
    base.cm_own_processor = A->cm_own;
    if (A->batch)
        return map_batch(A, &base);
    san_map_case c;
    char err[512];
    if (san_map_case_run(&base, A->stages, A->items, A->mode, A->phases, &c, err, sizeof err)
        != SAN_OK)
        return tool_usage_error("map", "%s", err);
    san_map_report_opts ro;
    san_map_report_opts_default(&ro);
    ro.preamble = tool_provenance;
    san_report_map_case(stdout, tool_report_format(A->fmt), &c, 0, &ro);
    return EXIT_OK;
}

int cmd_map(int argc, char **argv)
{
    map_args A;
    memset(&A, 0, sizeof A);
    A.fmt = FMT_TEXT;
    A.phases = 1;
    char **rest;
    int nrest;
    int status = tool_parse(&map_spec, argc, argv, &A, &rest, &nrest);
    if (status == 0 && nrest > 0)
        status = tool_usage_error("map", "unexpected argument '%s'", rest[0]);
    if (status == 0)
        status = map_main(&A);
    free(rest);
    return status == TOOL_HELP_SHOWN ? EXIT_OK : status;
}
