/*
 * cmd_report.c - `san report`: run the analyses a study file lists (each
 * a `san sweep|size-buffer|grain|compare ... -f json` of this very
 * program, in a process of its own, as the user would type it) and write
 * one self-contained HTML page of their reports (report/html.c).  With
 * --from-json, the page of reports already written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/options.h"
#include "san/report.h"

typedef struct {
    const char *output, *title;
    int from_json, quiet;
    int argc;
    char **argv;            /* the command line, "san" first, for the page */
} report_args;

static const cli_option report_options[] = {
    CLI_GROUP("output:"),
    CLI_OUTPUT('o', "output", "FILE", report_args, output,
               "write the page to FILE (default: standard output)"),
    CLI_STRING(0, "title", "TEXT", report_args, title,
               "the page's title (default: the study's title)"),
    CLI_FLAG('q', "quiet", report_args, quiet, 1,
             "no progress on stderr (it is shown on a terminal only)"),
    CLI_FLAG(0, "from-json", report_args, from_json, 1,
             "the operands are -f json reports of sweep, size-buffer,\n"
             "grain or compare: a page of them, nothing solved"),
    CLI_END
};

static const cli_spec report_spec = {
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
        "'san KIND ARGS -f json -q' run as a process of its own; the page embeds\n"
        "its report verbatim.  The study file's format: doc/report.md.\n",
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
    .flags = CLI_OPERAND_FILES,
};

void help_report(FILE *out)
{
    cli_help(out, &report_spec);
}

/* ------------------------------------------------------------------ */
/* Running one analysis                                                 */
/* ------------------------------------------------------------------ */

/* The models an analysis shows: each one's text when it solved at most
 * REPORT_MAX_TEXTS distinct ones, else the first's text and the list of
 * every generator line (a page of 12 copies of the master/slave model
 * that differ in a constant would bury the study). */
enum { REPORT_MAX_TEXTS = 4, REPORT_MAX_MODELS = REPORT_MAX_TEXTS + 1 };

typedef struct {
    char **argv;            /* as recorded: "san", kind, args, "-f", "json", "-q" */
    int argc;
    char *json, *log;
    int status;
    double seconds;
    int nmodels;
    char *model_name[REPORT_MAX_MODELS], *model_text[REPORT_MAX_MODELS];
} run_out;

/* The whole of an open file, from its start, as a string. */
static char *slurp_fd(int fd)
{
    if (lseek(fd, 0, SEEK_SET) < 0)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (len + 1 >= cap) {
            char *g = realloc(buf, cap *= 2);
            if (!g) {
                free(buf);
                return NULL;
            }
            buf = g;
        }
        ssize_t k = read(fd, buf + len, cap - len - 1);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        len += k;
    }
    if (buf)
        buf[len] = '\0';
    return buf;
}

static int temp_fd(void)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/san-report-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd >= 0)
        unlink(path);
    return fd;
}

/* Runs this program with argv (argv[0] "san") and collects its standard
 * output and error; its exit status, or -1 when it could not start. */
static int run_self(char *const *argv, char **out, char **err)
{
    *out = *err = NULL;
    int fo = temp_fd(), fe = temp_fd();
    if (fo < 0 || fe < 0) {
        if (fo >= 0) close(fo);
        if (fe >= 0) close(fe);
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fo, 1);
        dup2(fe, 2);
        int fn = open("/dev/null", O_RDONLY);
        if (fn >= 0)
            dup2(fn, 0);
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    int status = -1;
    if (pid > 0) {
        int ws;
        while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
            ;
        status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    }
    *out = slurp_fd(fo);
    *err = slurp_fd(fe);
    close(fo);
    close(fe);
    return status;
}

/* Every distinct "command": "..." of a report, in order: the generator
 * line of each variant (sweep rows, compare models, grains, the chosen
 * buffer of each size-buffer configuration).  A line with an escape in
 * its JSON string is left out (a generator line has none).  The count,
 * lines malloc'd into *out; -1 when out of memory. */
static int report_commands(const char *json, char ***out)
{
    static const char key[] = "\"command\": \"";
    char **v = NULL;
    int n = 0;
    for (const char *p = json ? strstr(json, key) : NULL; p; p = strstr(p, key)) {
        p += strlen(key);
        const char *e = strchr(p, '"');
        if (!e)
            break;
        int seen = memchr(p, '\\', e - p) != NULL || e == p;
        for (int i = 0; i < n && !seen; i++)
            seen = strlen(v[i]) == (size_t)(e - p) && !memcmp(v[i], p, e - p);
        if (!seen) {
            char **g = realloc(v, (n + 1) * sizeof *g);
            if (!g || !(g[n] = malloc(e - p + 1))) {
                v = g ? g : v;
                for (int i = 0; i < n; i++)
                    free(v[i]);
                free(v);
                return -1;
            }
            memcpy(g[n], p, e - p);
            g[n][e - p] = '\0';
            v = g;
            n++;
        }
        p = e;
    }
    *out = v;
    return n;
}

static char *cat_words(char *const *w, int n)
{
    size_t l = 1;
    for (int i = 0; i < n; i++)
        l += strlen(w[i]) + 1;
    char *s = malloc(l);
    if (s) {
        s[0] = '\0';
        for (int i = 0; i < n; i++)
            strcat(strcat(s, i ? " " : ""), w[i]);
    }
    return s;
}

/* The .san text of a generator line ("ms --mode async --slaves 3", or
 * "model.san -D K=3": the file's text), with its name in the page. */
static char *model_of_line(const char *line, char **name)
{
    *name = NULL;
    char *copy = strdup(line);
    if (!copy)
        return NULL;
    char *w[64];
    int n = 0;
    w[n++] = "san";
    w[n++] = "gen";
    for (char *t = strtok(copy, " "); t && n < 63; t = strtok(NULL, " "))
        w[n++] = t;
    w[n] = NULL;
    char *text = NULL;
    if (n > 2 && access(w[2], R_OK) == 0) {     /* a model file and its -D values */
        size_t len;
        text = san_read_file(w[2], &len);
        *name = text ? strdup(line) : NULL;
    } else if (n > 2) {
        char *err;
        if (run_self(w, &text, &err) != 0 || !text || !*text) {
            free(text);
            text = NULL;
        } else
            *name = cat_words(w, n);
        free(err);
    }
    free(copy);
    if (text && !*name) {
        free(text);
        text = NULL;
    }
    return text;
}

static void add_model(run_out *r, char *name, char *text)
{
    if (name && text && r->nmodels < REPORT_MAX_MODELS) {
        r->model_name[r->nmodels] = name;
        r->model_text[r->nmodels++] = text;
    } else {
        free(name);
        free(text);
    }
}

/* The models an analysis solved, to show in the page: the model file it
 * names, or the text `san gen` writes for each generator line of its
 * report; past REPORT_MAX_TEXTS lines, the first one's text and every
 * line (the page says which). */
static void find_models(const san_study_analysis *a, run_out *r)
{
    if (a->nargs > 0 && a->args[0][0] != '-' && access(a->args[0], R_OK) == 0) {
        size_t len;
        char *text = san_read_file(a->args[0], &len);
        add_model(r, text ? strdup(a->args[0]) : NULL, text);
        return;
    }
    char **line = NULL;
    int n = report_commands(r->json, &line);
    if (n < 0)
        n = 0;      /* out of memory: no model shown */
    int shown = n <= REPORT_MAX_TEXTS ? n : 1;
    for (int i = 0; i < shown; i++) {
        char *name, *text = model_of_line(line[i], &name);
        if (text && n > shown) {
            char *g = realloc(name, strlen(name) + 96);
            if (g) {
                name = g;
                snprintf(name + strlen(name), 96, " (the first of %d variants; their lines below)", n);
            }
        }
        add_model(r, name, text);
    }
    if (n > shown) {
        size_t l = 1;
        for (int i = 0; i < n; i++)
            l += strlen(line[i]) + 9;
        char *list = malloc(l), *name = malloc(96);
        if (list && name) {
            list[0] = '\0';
            for (int i = 0; i < n; i++)
                strcat(strcat(strcat(list, "san gen "), line[i]), "\n");
            snprintf(name, 96, "the generator lines of the %d variants (each writes its model)", n);
        }
        add_model(r, name, list);
    }
    for (int i = 0; i < n; i++)
        free(line[i]);
    free(line);
}

static int run_analysis(const san_study_analysis *a, run_out *r, int progress)
{
    r->argc = a->nargs + 5;
    r->argv = calloc(r->argc + 1, sizeof *r->argv);
    if (!r->argv)
        return -1;
    r->argv[0] = "san";
    r->argv[1] = a->kind;
    for (int i = 0; i < a->nargs; i++)
        r->argv[2 + i] = a->args[i];
    r->argv[a->nargs + 2] = "-f";
    r->argv[a->nargs + 3] = "json";
    r->argv[a->nargs + 4] = "-q";
    if (progress)
        fprintf(stderr, "san report: [%s] san %s ...\n", a->name, a->kind);
    double t0 = san_now();
    r->status = run_self(r->argv, &r->json, &r->log);
    r->seconds = san_now() - t0;
    if (r->status < 0)
        return -1;
    find_models(a, r);
    return 0;
}

/* The page must not replace a model an analysis reads: its arguments
 * that name files (a compare line's first word too), before any runs. */
static int refuse_overwrite(const char *output, const san_study *st)
{
    for (int i = 0; output && i < st->n; i++)
        for (int k = 0; k < st->a[i].nargs; k++) {
            char word[4096];
            snprintf(word, sizeof word, "%s", st->a[i].args[k]);
            word[strcspn(word, " \t")] = '\0';
            const char *in[2] = { st->a[i].args[k], word };
            for (int j = 0; j < 2; j++) {
                int rc = in[j][0] && in[j][0] != '-' && access(in[j], F_OK) == 0
                             ? cli_refuse_overwrite("report", "--output", output, in[j]) : 0;
                if (rc)
                    return rc;
            }
        }
    return 0;
}

/* ------------------------------------------------------------------ */
/* --from-json: reports already written                                 */
/* ------------------------------------------------------------------ */

/* The subcommand that wrote a report, by two members only it has
 * (doc/output.md's table); NULL for another report or no report. */
static const char *kind_of(const char *json)
{
    static const char *const kinds[][3] = {
        { "sweep", "\"sweep\": ", "\"rows\": [" },
        { "size-buffer", "\"within\": ", "\"configurations\": [" },
        { "grain", "\"by\": ", "\"configurations\": [" },
        { "compare", "\"differences\": ", "\"models\": [" },
    };
    if (!strstr(json, "\"schema\": \"san-output/"))
        return NULL;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strstr(json, kinds[i][1]) && strstr(json, kinds[i][2]))
            return kinds[i][0];
    return NULL;
}

typedef struct {
    const san_report_page *page;
} page_ctx;

static int write_page(const void *ctx, FILE *out)
{
    const page_ctx *c = ctx;
    if (san_report_html(out, c->page) != 0) {
        fprintf(stderr, "san report: write error\n");
        return -1;
    }
    return 0;
}

static int report_main(const report_args *A, int nops, char **ops)
{
    san_study st;
    memset(&st, 0, sizeof st);
    int nruns = 0, status = EXIT_OK;
    run_out *ro = NULL;
    san_study_analysis *fake = NULL;
    san_report_run *runs = NULL;
    char err[1024];
    if (A->from_json) {
        ro = calloc(nops, sizeof *ro);
        fake = calloc(nops, sizeof *fake);
        if (!ro || !fake)
            goto oom;
        for (int i = 0; i < nops; i++) {
            size_t len;
            ro[i].json = san_read_file(ops[i], &len);
            if (!ro[i].json) {
                fprintf(stderr, "san report: %s: cannot read: %s\n", ops[i], strerror(errno));
                status = EXIT_USAGE;
                goto done;
            }
            const char *k = kind_of(ro[i].json);
            if (!k) {
                fprintf(stderr, "san report: %s: not a -f json report of sweep, size-buffer, "
                        "grain or compare\n", ops[i]);
                status = EXIT_USAGE;
                goto done;
            }
            const char *base = strrchr(ops[i], '/');
            fake[i].name = (char *)(base ? base + 1 : ops[i]);
            fake[i].kind = (char *)k;
            ro[i].argc = 1;
            ro[i].argv = calloc(2, sizeof *ro[i].argv);
            if (!ro[i].argv)
                goto oom;
            ro[i].argv[0] = ops[i];
            find_models(&fake[i], &ro[i]);      /* its generator lines' texts */
            nruns++;
        }
    } else {
        if (nops != 1) {
            status = cli_usage_error("report", nops ? "one study file, not %d" : "missing the study file%.0d", nops);
            goto done;
        }
        san_status rc = san_study_load(ops[0], &st, err, sizeof err);
        if (rc != SAN_OK) {
            fprintf(stderr, "san report: %s\n", rc == SAN_E_NOMEM ? "out of memory" : err);
            status = cli_exit_status(rc);
            goto done;
        }
        if ((status = refuse_overwrite(A->output, &st)) != 0)
            goto done;
        ro = calloc(st.n, sizeof *ro);
        if (!ro)
            goto oom;
        for (int i = 0; i < st.n; i++, nruns++) {
            if (run_analysis(&st.a[i], &ro[i], !A->quiet && isatty(2)) != 0) {
                fprintf(stderr, "san report: [%s]: cannot run san %s\n", st.a[i].name, st.a[i].kind);
                status = EXIT_FAIL;
                goto done;
            }
            if (ro[i].status != 0) {
                fprintf(stderr, "san report: [%s] (line %d): san %s exited %d:\n%s", st.a[i].name,
                        st.a[i].line, st.a[i].kind, ro[i].status, ro[i].log ? ro[i].log : "");
                status = EXIT_FAIL;
            }
        }
    }
    runs = calloc(nruns ? nruns : 1, sizeof *runs);
    if (!runs)
        goto oom;
    for (int i = 0; i < nruns; i++) {
        runs[i].a = A->from_json ? &fake[i] : &st.a[i];
        runs[i].argc = ro[i].argc;
        runs[i].argv = ro[i].argv;
        runs[i].status = ro[i].status;
        runs[i].seconds = ro[i].seconds;
        runs[i].json = ro[i].json;
        runs[i].log = ro[i].log;
        runs[i].nmodels = ro[i].nmodels;
        runs[i].model_name = (const char *const *)ro[i].model_name;
        runs[i].model_text = (const char *const *)ro[i].model_text;
    }
    san_report_page page = {
        .study = A->from_json ? NULL : &st,
        .title = A->title ? A->title : st.title ? st.title : A->from_json ? "san reports" : st.path,
        .san_version = san_version(),
        .argc = A->argc,
        .argv = A->argv,
        .nruns = nruns,
        .runs = runs,
    };
    page_ctx ctx = { &page };
    int w = cli_write_output(A->output, write_page, &ctx);
    if (w != EXIT_OK)
        status = w;
    goto done;
oom:
    fprintf(stderr, "san report: out of memory\n");
    status = EXIT_FAIL;
done:
    for (int i = 0; ro && i < (A->from_json ? nops : st.n); i++) {
        free(ro[i].argv);
        free(ro[i].json);
        free(ro[i].log);
        for (int k = 0; k < ro[i].nmodels; k++) {
            free(ro[i].model_name[k]);
            free(ro[i].model_text[k]);
        }
    }
    free(ro);
    free(fake);
    free(runs);
    san_study_free(&st);
    return status;
}

int cmd_report(int argc, char **argv)
{
    report_args A;
    memset(&A, 0, sizeof A);
    char **ops;
    int nops;
    int status = cli_parse(&report_spec, argc, argv, &A, &ops, &nops);
    A.argc = argc + 1;
    A.argv = malloc((argc + 2) * sizeof *A.argv);
    if (status == 0 && !A.argv) {
        fprintf(stderr, "san report: out of memory\n");
        status = EXIT_FAIL;
    }
    if (status == 0) {
        A.argv[0] = "san";
        memcpy(A.argv + 1, argv, argc * sizeof *argv);
        A.argv[argc + 1] = NULL;
        status = report_main(&A, nops, ops);
    }
    free(A.argv);
    free(ops);
    return status == CLI_HELP_SHOWN ? EXIT_OK : status;
}
