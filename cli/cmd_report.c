/*
 * cmd_report.c - `san report`: run the analyses a study file lists (each
 * a `san sweep|size-buffer|grain|compare ... -f json` as the user would
 * type it, run in this process) and write one self-contained HTML page
 * of their reports (report/html.c) and models (report/models.c).  With
 * --from-json, the page of reports already written.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"
#include "tool/options.h"
#include "san/report.h"

typedef struct {
    const char *output, *title;
    int from_json, quiet;
    int argc;
    char **argv;            /* the command line, "san" first, for the page */
} report_args;

static const tool_option report_options[] = {
    TOOL_GROUP("output:"),
    TOOL_OUTPUT('o', "output", "FILE", report_args, output,
               "write the page to FILE (default: standard output)"),
    TOOL_STRING(0, "title", "TEXT", report_args, title,
               "the page's title (default: the study's title)"),
    TOOL_FLAG('q', "quiet", report_args, quiet, 1,
             "no progress on stderr (it is shown on a terminal only)"),
    TOOL_FLAG(0, "from-json", report_args, from_json, 1,
             "the operands are -f json reports of sweep, size-buffer,\n"
             "grain or compare: a page of them, nothing solved"),
    TOOL_END
};

static const tool_spec report_spec = {
    .name = "report",
    .usage =
        "usage: san report STUDY [-o PAGE.html] [--title TEXT] [-q]\n"
        "       san report --from-json REPORT.json... [-o PAGE.html]\n",
    .intro =
        "Run the analyses of a study file and write one HTML page that holds\n"
        "them all: interactive figures (hover for values, click a legend entry,\n"
        "log axes, export SVG or PNG), sortable tables, each number's accuracy\n"
        "(method, error estimate and bound, storage, lumping of its solve), the\n"
        "warnings, the models' text and each command's provenance.  The page needs\n"
        "no network: its script, style and data are inside it.  Each analysis is\n"
        "'san KIND ARGS -f json -q' run in this process as if typed; the page\n"
        "embeds its report verbatim.  The study file's format: doc/report.md.\n",
    .opts = report_options,
    .outro =
        "example (a study file):\n"
        "  title = Master/slave programs (seed 004)\n"
        "  [sync-vs-async]\n"
        "  run = sweep ms --mode sync,async --slaves 2..7 --buffer 40\n"
        "  x = slaves\n"
        "  plot = slave_transmitting, efficiency\n"
        "\n"
        "Exit status: 0 every analysis ran and solved, 1 some failed (the page\n"
        "is written and says which), 2 bad usage or a bad study file.\n",
    .flags = TOOL_OPERAND_FILES,
};

void help_report(FILE *out)
{
    tool_help(out, &report_spec);
}

/* ------------------------------------------------------------------ */
/* Running one analysis                                                 */
/* ------------------------------------------------------------------ */

/* What the page shows of a run, and what it owns. */
typedef struct {
    char **argv;            /* as recorded: "san", kind, args, "-f", "json", "-q" */
    char *json, *log;
    san_report_models m;
} run_out;

static int run_analysis(const san_study_analysis *a, run_out *o, san_report_run *r, int progress)
{
    char **v = o->argv = calloc(a->nargs + 6, sizeof *v);
    if (!v)
        return -1;
    v[0] = "san";
    v[1] = a->kind;
    memcpy(v + 2, a->args, a->nargs * sizeof *v);
    memcpy(v + a->nargs + 2, (char *[]){ "-f", "json", "-q" }, 3 * sizeof *v);
    san_report_run_default(r);
    r->a = a;
    r->argc = a->nargs + 5;
    r->argv = v;
    if (progress)
        fprintf(stderr, "san report: [%s] san %s ...\n", a->name, a->kind);
    double t0 = san_now();
    r->status = cli_run_captured(r->argc, v, &o->json, &o->log);
    r->seconds = san_now() - t0;
    if (r->status < 0)
        return -1;
    san_report_find_models(a, o->json, &o->m);
    return 0;
}

/* The page must not replace a model an analysis reads: its arguments
 * that name files (a compare line's first word too), before any runs. */
static int refuse_overwrite(const char *output, const san_study *st)
{
    int rc = 0;
    for (int i = 0; output && i < st->n; i++)
        for (int k = 0; k < st->a[i].nargs && !rc; k++) {
            char word[4096];
            snprintf(word, sizeof word, "%s", st->a[i].args[k]);
            word[strcspn(word, " \t")] = '\0';
            const char *in[2] = { st->a[i].args[k], word };
            for (int j = 0; j < 2 && !rc; j++)
                if (in[j][0] && in[j][0] != '-' && access(in[j], F_OK) == 0)
                    rc = tool_refuse_overwrite("report", "--output", output, in[j]);
        }
    return rc;
}

static int oom(void)
{
    fprintf(stderr, "san report: out of memory\n");
    return EXIT_FAIL;
}

/* The analyses of the study in ops[0], run; their count in *n. */
static int run_study(const report_args *A, int nops, char **ops, san_study *st, run_out **ro,
                     san_report_run **runs, int *n)
{
    char err[1024];
    if (nops != 1)
        return tool_usage_error("report", nops ? "one study file, not %d" : "missing the study file%.0d", nops);
    san_status rc = san_study_load(ops[0], st, err, sizeof err);
    if (rc != SAN_OK) {
        fprintf(stderr, "san report: %s\n", rc == SAN_E_NOMEM ? "out of memory" : err);
        return tool_exit_status(rc);
    }
    int status = refuse_overwrite(A->output, st);
    if (status)
        return status;
    if (!(*ro = calloc(st->n + 1, sizeof **ro)) || !(*runs = calloc(st->n + 1, sizeof **runs)))
        return oom();
    for (int i = 0; i < st->n; i++, ++*n) {
        if (run_analysis(&st->a[i], &(*ro)[i], &(*runs)[i], !A->quiet && isatty(2)) != 0) {
            fprintf(stderr, "san report: [%s]: cannot run san %s\n", st->a[i].name, st->a[i].kind);
            return EXIT_FAIL;
        }
        if ((*runs)[i].status != 0) {
            fprintf(stderr, "san report: [%s] (line %d): san %s exited %d:\n%s", st->a[i].name,
                    st->a[i].line, st->a[i].kind, (*runs)[i].status, (*ro)[i].log ? (*ro)[i].log : "");
            status = EXIT_FAIL;
        }
    }
    return status;
}

/* --from-json: the reports in ops, read; their count in *n.  Each
 * becomes an analysis named after its file (in fake). */
static int read_reports(int nops, char **ops, san_study_analysis **fake, run_out **ro,
                        san_report_run **runs, int *n)
{
    if (!(*ro = calloc(nops + 1, sizeof **ro)) || !(*fake = calloc(nops + 1, sizeof **fake)) ||
        !(*runs = calloc(nops + 1, sizeof **runs)))
        return oom();
    for (int i = 0; i < nops; i++, ++*n) {
        size_t len;
        run_out *o = &(*ro)[i];
        if (!(o->json = san_read_file(ops[i], &len))) {
            fprintf(stderr, "san report: %s: cannot read: %s\n", ops[i], strerror(errno));
            return EXIT_USAGE;
        }
        const char *k = san_report_kind(o->json), *base = strrchr(ops[i], '/');
        if (!k) {
            fprintf(stderr, "san report: %s: not a -f json report of sweep, size-buffer, "
                    "grain or compare\n", ops[i]);
            return EXIT_USAGE;
        }
        (*fake)[i].name = (char *)(base ? base + 1 : ops[i]);
        (*fake)[i].kind = (char *)k;
        san_report_run *r = &(*runs)[i];
        san_report_run_default(r);
        r->a = &(*fake)[i];
        r->argc = 1;
        r->argv = &ops[i];
        san_report_find_models(NULL, o->json, &o->m);  /* its generator lines' texts */
    }
    return EXIT_OK;
}

static int write_page(const void *page, FILE *out)
{
    char err[512];
    if (san_report_html(out, page, err, sizeof err) == SAN_OK)
        return 0;
    fprintf(stderr, "san report: %s\n", err);
    return -1;
}

static int report_main(const report_args *A, int nops, char **ops)
{
    san_study st;
    memset(&st, 0, sizeof st);
    int n = 0;
    run_out *ro = NULL;
    san_study_analysis *fake = NULL;
    san_report_run *runs = NULL;
    int status = A->from_json ? read_reports(nops, ops, &fake, &ro, &runs, &n)
                              : run_study(A, nops, ops, &st, &ro, &runs, &n);
    if (status == EXIT_OK || (status == EXIT_FAIL && runs && n == st.n && !A->from_json)) {
        for (int i = 0; i < n; i++) {
            runs[i].json = ro[i].json;
            runs[i].log = ro[i].log;
            runs[i].nmodels = ro[i].m.n;
            runs[i].model_name = (const char *const *)ro[i].m.name;
            runs[i].model_text = (const char *const *)ro[i].m.text;
        }
        san_report_page page;
        san_report_page_default(&page);
        page.study = A->from_json ? NULL : &st;
        page.title = A->title ? A->title : st.title ? st.title : A->from_json ? "san reports" : st.path;
        page.san_version = san_version();
        page.argc = A->argc;
        page.argv = A->argv;
        page.nruns = n;
        page.runs = runs;
        int w = tool_write_output(A->output, write_page, &page);
        status = w != EXIT_OK ? w : status;
    }
    for (int i = 0; ro && i <= n; i++) {
        free(ro[i].argv);
        free(ro[i].json);
        free(ro[i].log);
        san_report_models_free(&ro[i].m);
    }
    free(ro);
    free(fake);
    free(runs);
    san_study_free(&st);
    return status;
}

int cmd_report(int argc, char **argv)
{
    report_args A = { 0 };
    char **ops;
    int nops, status = tool_parse(&report_spec, argc, argv, &A, &ops, &nops);
    A.argc = argc + 1;
    A.argv = malloc((argc + 2) * sizeof *A.argv);
    if (status == 0 && !A.argv)
        status = oom();
    else if (status == 0) {
        A.argv[0] = "san";
        memcpy(A.argv + 1, argv, (argc + 1) * sizeof *argv);    /* argv[argc] is NULL */
        status = report_main(&A, nops, ops);
    }
    free(A.argv);
    free(ops);
    return status == TOOL_HELP_SHOWN ? EXIT_OK : status;
}
