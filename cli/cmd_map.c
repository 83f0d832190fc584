/*
 * cmd_map.c - `san map`: seed 002's Dynamic Pipeline Mapping.  Given the
 * stages' production times and P processors, the mapping before (one
 * stage per processor) and the proposal (gathered fast stages, replicated
 * slow ones), their bottlenecks and throughputs, the time of a finite
 * job, and the `san gen pipeline` line that models the proposal
 * stochastically.  The models are the library's (analytic/map.c,
 * analytic/finite.c); here are the options and the three formats.
 * --batch maps one pipeline per input line, for scenario studies.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/options.h"

typedef struct {
    const char *stages, *method, *mode, *batch;
    int processors, phases, cm_own;
    double cm_time;
    long items;
    cli_format fmt;
} map_args;

static const cli_option map_options[] = {
    CLI_GROUP("pipeline:"),
    CLI_STRING(0, "stages", "T1,...,Tm",  map_args, stages,
               "independent production time Tr of each stage"),
    CLI_INT('P', "processors", "P", map_args, processors, 1, 100000, "a positive integer",
            "processors available (required)", NULL),
    CLI_DOUBLE(0, "cm-time", "TG", map_args, cm_time, 0, INFINITY, CLI_OPEN_HI, NULL,
               "seed 000: per-item time of a replicated stage's\n"
               "communication manager (sync sends: 2(mo + lambda v));\n"
               "the stage's period becomes max(TG, Tr/r)", "0"),
    CLI_FLAG(0, "cm-own-processor", map_args, cm_own, 1,
             "the communication manager takes a processor of its own"),
    CLI_GROUP("options:"),
    CLI_STRING(0, "method", "M", map_args, method,
               "dpm (the paper's algorithm, default) or optimal\n"
               "(the smallest bottleneck of any such mapping)"),
    CLI_INT('n', "items", "N", map_args, items, 1, 1e12, "a positive integer",
            "also the time of a finite job of N items", NULL),
    CLI_STRING(0, "mode", "sync|async", map_args, mode,
               "--mode of the generator line (default async)"),
    CLI_INT(0, "phases", "K", map_args, phases, 1, 64, NULL,
            "--phases of the generator line (Erlang-K service)", "1"),
    CLI_STRING(0, "batch", "FILE", map_args, batch,
               "map every line of FILE (- for stdin), one stage list\n"
               "a line, and print one row per pipeline"),
    CLI_FORMAT(map_args, fmt, CLI_FMT_TEXT | CLI_FMT_JSON | CLI_FMT_CSV, NULL),
    CLI_END
};

static const cli_spec map_spec = {
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
    cli_help(out, &map_spec);
}

/* ------------------------------------------------------------------ */
/* One pipeline                                                         */
/* ------------------------------------------------------------------ */

typedef struct {
    san_map_input in;
    san_map_result res;
    int has_finite;
    san_finite_time fin_before, fin_after;
    char line[4096];
} map_case;

static int map_one(const map_args *A, const san_map_input *base, const char *stages,
                   map_case *c, char *err, size_t n)
{
    c->in = *base;
    c->in.nstages = san_map_parse_list(stages, c->in.tr, SAN_MAP_MAX_STAGES);
    if (c->in.nstages < 0) {
        snprintf(err, n, "--stages: expected up to %d numbers > 0 separated by commas, not '%s'",
                 SAN_MAP_MAX_STAGES, stages);
        return -1;
    }
    if (san_map(&c->in, &c->res, err, n) != SAN_OK)
        return -1;
    c->has_finite = A->items > 0;
    if (c->has_finite && (san_finite_pipeline(&c->in, &c->res.before, A->items, &c->fin_before)
                          != SAN_OK
                          || san_finite_pipeline(&c->in, &c->res.after, A->items, &c->fin_after)
                          != SAN_OK)) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    san_map_gen_line(&c->in, &c->res.after, A->mode, A->phases, c->line, sizeof c->line);
    return 0;
}

/* "E1+E2 | E3 x3 | E4": the units of a mapping. */
static void put_units(FILE *out, const san_map_mapping *m, const char *sep)
{
    for (int u = 0; u < m->nunits; u++) {
        fputs(u ? sep : "", out);
        for (int i = m->first[u]; i <= m->last[u]; i++)
            fprintf(out, "%sE%d", i > m->first[u] ? "+" : "", i + 1);
        if (m->replicas[u] > 1)
            fprintf(out, " x%d", m->replicas[u]);
    }
}

/* ------------------------------------------------------------------ */
/* Text                                                                 */
/* ------------------------------------------------------------------ */

static void text_mapping(FILE *out, const char *what, const san_map_mapping *m)
{
    fprintf(out, "%s (%d processor%s):\n  ", what, m->processors, m->processors == 1 ? "" : "s");
    put_units(out, m, " | ");
    fprintf(out, "\n  production times:");
    for (int u = 0; u < m->nunits; u++)
        fprintf(out, " %.6g", m->period[u]);
    fprintf(out, "\n  bottleneck %.6g (", m->bottleneck);
    san_map_mapping one = *m;
    one.first[0] = m->first[m->bottleneck_unit];
    one.last[0] = m->last[m->bottleneck_unit];
    one.replicas[0] = m->replicas[m->bottleneck_unit];
    one.nunits = 1;
    put_units(out, &one, "");
    fprintf(out, "), throughput %.6g\n", 1 / m->bottleneck);
}

static void text_finite(FILE *out, const char *what, const san_finite_time *f)
{
    fprintf(out, "  %-7s fill %.6g, fill + (n-1) x bottleneck = %.6g, ", what, f->fill,
            f->closed_form);
    if (isnan(f->exact))
        fprintf(out, "item by item: not run (over 10^7 items)\n");
    else
        fprintf(out, "item by item %.6g\n", f->exact);
}

static void text_case(FILE *out, const map_args *A, const map_case *c)
{
    fprintf(out, "stages:");
    for (int i = 0; i < c->in.nstages; i++)
        fprintf(out, " %.6g", c->in.tr[i]);
    fprintf(out, " on %d processors; Tp_ideal = sum(Tr)/P = %.6g\n", c->in.processors,
            c->res.tp_ideal);
    if (c->in.cm_time > 0)
        fprintf(out, "communication manager: %.6g per item%s\n", c->in.cm_time,
                c->in.cm_own_processor ? ", on a processor of its own" : "");
    text_mapping(out, "before, one stage per processor", &c->res.before);
    text_mapping(out, c->in.method == SAN_MAP_OPTIMAL ? "after, optimal" : "after, DPM",
                 &c->res.after);
    fprintf(out, "gain (throughput after / before): %.6g\n", c->res.gain);
    if (c->has_finite) {
        fprintf(out, "time of %ld items (deterministic, unbounded buffers):\n", A->items);
        text_finite(out, "before", &c->fin_before);
        text_finite(out, "after", &c->fin_after);
    }
    fprintf(out, "stochastic model of the proposal:\n  san gen %s\n", c->line);
}

/* ------------------------------------------------------------------ */
/* JSON                                                                 */
/* ------------------------------------------------------------------ */

static void json_num(FILE *out, double v)
{
    cli_json_figure(out, v);
}

static void json_mapping(FILE *out, const san_map_mapping *m)
{
    fprintf(out, "{ \"processors\": %d, \"bottleneck\": ", m->processors);
    json_num(out, m->bottleneck);
    fputs(", \"throughput\": ", out);
    json_num(out, 1 / m->bottleneck);
    fputs(", \"units\": [", out);
    for (int u = 0; u < m->nunits; u++) {
        fprintf(out, "%s{ \"stages\": [", u ? ", " : "");
        for (int i = m->first[u]; i <= m->last[u]; i++)
            fprintf(out, "%s%d", i > m->first[u] ? ", " : "", i + 1);
        fprintf(out, "], \"replicas\": %d, \"period\": ", m->replicas[u]);
        json_num(out, m->period[u]);
        fputs(" }", out);
    }
    fputs("] }", out);
}

static void json_finite(FILE *out, const san_finite_time *f)
{
    fputs("{ \"fill\": ", out);
    json_num(out, f->fill);
    fputs(", \"closed_form\": ", out);
    json_num(out, f->closed_form);
    fputs(", \"exact\": ", out);
    json_num(out, f->exact);
    fputs(" }", out);
}

/* One mapping; top (not a case of a batch): the document itself, with
 * the provenance block. */
static void json_case(FILE *out, const map_args *A, const map_case *c, const char *indent,
                      int top)
{
    if (top) {
        fputs("{\n  ", out);
        cli_meta_json(out, NULL);
        fputs("\"stages\": [", out);
    } else {
        fprintf(out, "%s{ \"stages\": [", indent);
    }
    for (int i = 0; i < c->in.nstages; i++) {
        fputs(i ? ", " : "", out);
        json_num(out, c->in.tr[i]);
    }
    fprintf(out, "], \"processors\": %d, \"method\": \"%s\", \"tp_ideal\": ", c->in.processors,
            c->in.method == SAN_MAP_OPTIMAL ? "optimal" : "dpm");
    json_num(out, c->res.tp_ideal);
    fprintf(out, ",\n%s  \"before\": ", indent);
    json_mapping(out, &c->res.before);
    fprintf(out, ",\n%s  \"after\": ", indent);
    json_mapping(out, &c->res.after);
    fprintf(out, ",\n%s  \"gain\": ", indent);
    json_num(out, c->res.gain);
    if (c->has_finite) {
        fprintf(out, ",\n%s  \"items\": %ld, \"time_before\": ", indent, A->items);
        json_finite(out, &c->fin_before);
        fputs(", \"time_after\": ", out);
        json_finite(out, &c->fin_after);
    }
    fprintf(out, ",\n%s  \"gen\": ", indent);
    san_json_string(out, c->line);
    fputs(" }", out);
}

/* ------------------------------------------------------------------ */
/* CSV                                                                  */
/* ------------------------------------------------------------------ */

static void csv_header(FILE *out, const map_args *A)
{
    fputs("stages,processors,method,tp_ideal,before_bottleneck,after_bottleneck,gain,"
          "after_processors,mapping", out);
    if (A->items > 0)
        fputs(",items,time_before,time_after,time_before_closed,time_after_closed", out);
    fputs(",gen\n", out);
}

static void csv_case(FILE *out, const map_args *A, const map_case *c)
{
    fputc('"', out);
    for (int i = 0; i < c->in.nstages; i++)
        fprintf(out, "%s%.12g", i ? "," : "", c->in.tr[i]);
    fprintf(out, "\",%d,%s,%.12g,%.12g,%.12g,%.12g,%d,", c->in.processors,
            c->in.method == SAN_MAP_OPTIMAL ? "optimal" : "dpm", c->res.tp_ideal,
            c->res.before.bottleneck, c->res.after.bottleneck, c->res.gain,
            c->res.after.processors);
    put_units(out, &c->res.after, " | ");
    if (c->has_finite)
        fprintf(out, ",%ld,%.12g,%.12g,%.12g,%.12g", A->items, c->fin_before.exact,
                c->fin_after.exact, c->fin_before.closed_form, c->fin_after.closed_form);
    fprintf(out, ",\"%s\"\n", c->line);
}

/* ------------------------------------------------------------------ */
/* The command                                                          */
/* ------------------------------------------------------------------ */

static void emit(FILE *out, const map_args *A, const map_case *c, int k, int batch)
{
    if (k == 0 && A->fmt == FMT_TEXT)
        cli_meta_text(out);
    if (A->fmt == FMT_CSV) {
        if (k == 0) {
            cli_meta_csv(out, NULL);
            csv_header(out, A);
        }
        csv_case(out, A, c);
    } else if (A->fmt == FMT_JSON) {
        /* a batch: the cases in "cases", after the provenance block */
        if (batch && k == 0) {
            fputs("{\n  ", out);
            cli_meta_json(out, NULL);
            fputs("\"cases\": [\n", out);
        } else if (batch) {
            fputs(",\n", out);
        }
        json_case(out, A, c, batch ? "    " : "", !batch);
        if (!batch)
            fputc('\n', out);
    } else if (batch) {
        fprintf(out, "%-4d bottleneck %.6g -> %.6g (gain %.4g) on %d processors: ", k + 1,
                c->res.before.bottleneck, c->res.after.bottleneck, c->res.gain,
                c->res.after.processors);
        put_units(out, &c->res.after, " | ");
        fputc('\n', out);
    } else {
        text_case(out, A, c);
    }
}

/* Every non-empty line of the batch file (blanks and '#' comments
 * skipped) as a stage list. */
static int map_batch(const map_args *A, const san_map_input *base)
{
    size_t len;
    char *text;
    int rc = cli_read_model(A->batch, 0, 0, &text, &len);
    if (rc != EXIT_OK)
        return rc;
    map_case *c = malloc(sizeof *c);
    int k = 0, status = EXIT_OK, lineno = 0;
    char err[512];
    for (char *line = strtok(text, "\n"); line && c; line = strtok(NULL, "\n")) {
        lineno++;
        line += strspn(line, " \t\r");
        line[strcspn(line, " \t\r#")] = '\0';
        if (!*line)
            continue;
        if (map_one(A, base, line, c, err, sizeof err) < 0) {
            status = cli_usage_error("map", "%s:%d: %s", A->batch, lineno, err);
            break;
        }
        emit(stdout, A, c, k++, 1);
    }
    if (A->fmt == FMT_JSON && status == EXIT_OK && k == 0) {
        fputs("{\n  ", stdout);
        cli_meta_json(stdout, NULL);
        fputs("\"cases\": []\n}\n", stdout);
    } else if (A->fmt == FMT_JSON && status == EXIT_OK) {
        fputs("\n  ]\n}\n", stdout);
    }
    free(c);
    free(text);
    return c ? status : EXIT_FAIL;
}

static int map_main(map_args *A)
{
    san_map_input base;
    memset(&base, 0, sizeof base);
    if (!A->processors)
        return cli_usage_error("map", "-P/--processors: required");
    if (!A->stages == !A->batch)
        return cli_usage_error("map", "give --stages or --batch (one of them)");
    if (A->method && strcmp(A->method, "dpm") && strcmp(A->method, "optimal"))
        return cli_usage_error("map", "--method: expected dpm or optimal, not '%s'", A->method);
    if (A->mode && strcmp(A->mode, "sync") && strcmp(A->mode, "async"))
        return cli_usage_error("map", "--mode: expected sync or async, not '%s'", A->mode);
    base.processors = A->processors;
    base.method = A->method && !strcmp(A->method, "optimal") ? SAN_MAP_OPTIMAL : SAN_MAP_DPM;
    base.cm_time = A->cm_time;
    base.cm_own_processor = A->cm_own;
    if (A->batch)
        return map_batch(A, &base);
    map_case c;
    char err[512];
    if (map_one(A, &base, A->stages, &c, err, sizeof err) < 0)
        return cli_usage_error("map", "%s", err);
    emit(stdout, A, &c, 0, 0);
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
    int status = cli_parse(&map_spec, argc, argv, &A, &rest, &nrest);
    if (status == 0 && nrest > 0)
        status = cli_usage_error("map", "unexpected argument '%s'", rest[0]);
    if (status == 0)
        status = map_main(&A);
    free(rest);
    return status == CLI_HELP_SHOWN ? EXIT_OK : status;
}
