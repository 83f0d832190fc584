/*
 * meta.c - the provenance of every report (doc/output.md): which san,
 * which command line, which model bytes (their SHA-256), which -D
 * overrides, and how the answer was obtained (method, tolerance,
 * storage, converged).  One writer per format, called by every
 * subcommand, so that the block has one shape wherever it appears.
 *
 * What is known when is spread over the run: the command line in
 * main(), the overrides while the options are parsed, the models when
 * they are read.  They are recorded here as they happen (the process
 * runs one subcommand), and written with the report.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tool/tool.h"

/* The version of the output contract: doc/output.md, doc/output.schema.json.
 * Raised when a member changes shape or meaning (adding one does not). */
#define SCHEMA "san-output/1"

typedef struct {
    char *path;             /* a file, "-" for standard input; or NULL */
    char *gen;              /* the generator line of a --gen model; or NULL */
    char sha256[65];        /* of the bytes read, or generated */
} meta_model;

typedef struct {
    char *name, *value;     /* -D NAME=VALUE as typed */
} meta_define;

static struct {
    int argc;
    char **argv;
    meta_model *model;
    int nmodel;
    meta_define *def;
    int ndef;
    int quiet;              /* --quiet: no text header */
} M;

void tool_meta_quiet(void)
{
    M.quiet = 1;
}

void tool_meta_argv(int argc, char **argv)
{
    M.argc = argc;
    M.argv = argv;
}

/* Out of memory while recording: the report still goes out (it is the
 * answer), with a word that its provenance is incomplete. */
static void lost(void)
{
    fprintf(stderr, "san: out of memory: the report's provenance (meta) is incomplete\n");
}

/* A new zeroed entry at the end of the models (the overrides); NULL
 * after lost() when out of memory. */
static meta_model *new_model(void)
{
    meta_model *p = realloc(M.model, (size_t)(M.nmodel + 1) * sizeof *p);
    if (!p) {
        lost();
        return NULL;
    }
    M.model = p;
    memset(&p[M.nmodel], 0, sizeof *p);
    return &p[M.nmodel++];
}

static meta_define *new_define(void)
{
    meta_define *p = realloc(M.def, (size_t)(M.ndef + 1) * sizeof *p);
    if (!p) {
        lost();
        return NULL;
    }
    M.def = p;
    memset(&p[M.ndef], 0, sizeof *p);
    return &p[M.ndef++];
}

void tool_meta_model(const char *path, const char *text, size_t len)
{
    char hex[65];
    tool_sha256_hex(text, len, hex);
    /* a file read twice (compare A A) is one input */
    for (int i = 0; i < M.nmodel; i++)
        if (M.model[i].path && !strcmp(M.model[i].path, path) && !strcmp(M.model[i].sha256, hex))
            return;
    meta_model *m = new_model();
    if (!m)
        return;
    if (!(m->path = strdup(path))) {
        M.nmodel--;
        lost();
        return;
    }
    memcpy(m->sha256, hex, sizeof hex);
}

void tool_meta_gen(const char *line, const char *text, size_t len)
{
    for (int i = 0; i < M.nmodel; i++)
        if (M.model[i].gen && !strcmp(M.model[i].gen, line))
            return;
    meta_model *m = new_model();
    if (!m)
        return;
    if (!(m->gen = strdup(line))) {
        M.nmodel--;
        lost();
        return;
    }
    tool_sha256_hex(text, len, m->sha256);
}

void tool_meta_define(const char *name, size_t len, const char *value)
{
    meta_define *d = new_define();
    if (!d)
        return;
    d->name = strndup(name, len);
    d->value = strdup(value);
    if (!d->name || !d->value) {
        free(d->name);
        free(d->value);
        M.ndef--;
        lost();
    }
}

void tool_meta_free(void)
{
    for (int i = 0; i < M.nmodel; i++) {
        free(M.model[i].path);
        free(M.model[i].gen);
    }
    for (int i = 0; i < M.ndef; i++) {
        free(M.def[i].name);
        free(M.def[i].value);
    }
    free(M.model);
    free(M.def);
    memset(&M, 0, sizeof M);
}

tool_run tool_run_asked(const san_sweep_opts *o, int converged)
{
    tool_run run = { san_method_name(o->solve.method), o->solve.tol,
                    o->storage == SAN_STORAGE_KRON ? "kron"
                    : o->storage == SAN_STORAGE_SPARSE ? "sparse" : "auto", converged };
    return run;
}

/* ---- JSON ---- */

/* An override's value: a number when it is one (-D lambda=2), else the
 * text as typed (a sweep's list, -D lambda=1..4). */
static void json_value(FILE *out, const char *s)
{
    double v;
    if (san_parse_double(s, -HUGE_VAL, HUGE_VAL, &v) == 0)
        san_json_num(out, v);
    else
        san_json_string(out, s);
}

static void json_opt_string(FILE *out, const char *s)
{
    if (s)
        san_json_string(out, s);
    else
        fputs("null", out);
}

void tool_meta_json(FILE *out, const tool_run *r)
{
    fputs("\"schema\": \"" SCHEMA "\",\n  \"meta\": { \"san_version\": ", out);
    san_json_string(out, san_version());
    fputs(",\n    \"command_line\": [", out);
    for (int i = 0; i < M.argc; i++) {
        fputs(i ? ", " : "", out);
        san_json_string(out, M.argv[i]);
    }
    fputs("],\n    \"models\": [", out);
    for (int i = 0; i < M.nmodel; i++) {
        fputs(i ? ", " : "", out);
        if (M.model[i].gen) {
            fputs("{ \"gen\": ", out);
            san_json_string(out, M.model[i].gen);
        } else {
            fputs("{ \"path\": ", out);
            san_json_string(out, M.model[i].path);
        }
        fprintf(out, ", \"sha256\": \"%s\" }", M.model[i].sha256);
    }
    fputs("],\n    \"overrides\": {", out);
    for (int i = 0; i < M.ndef; i++) {
        fputs(i ? ", " : " ", out);
        san_json_string(out, M.def[i].name);
        fputs(": ", out);
        json_value(out, M.def[i].value);
    }
    fputs(M.ndef ? " },\n    \"method\": " : "},\n    \"method\": ", out);
    json_opt_string(out, r ? r->method : NULL);
    fputs(", \"tol\": ", out);
    if (r && r->tol > 0)
        san_json_num(out, r->tol);
    else
        fputs("null", out);
    fputs(", \"storage\": ", out);
    json_opt_string(out, r ? r->storage : NULL);
    fputs(", \"converged\": ", out);
    fputs(!r || r->converged < 0 ? "null" : r->converged ? "true" : "false", out);
    fputs(" },\n  ", out);
}

/* ---- CSV and text ---- */

/* The command line, quoted where a shell would need it, so that it can
 * be pasted back. */
static void command_line(FILE *out)
{
    for (int i = 0; i < M.argc; i++) {
        const char *a = M.argv[i];
        fputs(i ? " " : "", out);
        if (*a && !strpbrk(a, " \t\n'\"\\$`*?[]{}()<>|&;#~!")) {
            fputs(a, out);
            continue;
        }
        fputc('\'', out);
        for (; *a; a++)
            if (*a == '\'')
                fputs("'\\''", out);
            else
                fputc(*a, out);
        fputc('\'', out);
    }
}

static void models(FILE *out, const char *sep)
{
    for (int i = 0; i < M.nmodel; i++) {
        fputs(i ? sep : "", out);
        fprintf(out, "%s%s sha256 %s", M.model[i].gen ? "gen " : "",
                M.model[i].gen ? M.model[i].gen : M.model[i].path, M.model[i].sha256);
    }
}

static void overrides(FILE *out)
{
    for (int i = 0; i < M.ndef; i++)
        fprintf(out, "%s%s=%s", i ? " " : "", M.def[i].name, M.def[i].value);
}

/* "# key: value" lines before the header row: a reader skips them
 * (pandas comment='#'; the readers in this tree do). */
void tool_meta_csv(FILE *out, const tool_run *r)
{
    fprintf(out, "# schema: %s\n# san_version: %s\n# command_line: ", SCHEMA, san_version());
    command_line(out);
    fputs("\n# models:", out);
    if (M.nmodel) {
        fputc(' ', out);
        models(out, "; ");
    }
    fputs("\n# overrides:", out);
    if (M.ndef) {
        fputc(' ', out);
        overrides(out);
    }
    fputs("\n# method:", out);
    if (r && r->method)
        fprintf(out, " %s", r->method);
    fputs("\n# tol:", out);
    if (r && r->tol > 0)
        fprintf(out, " %.17g", r->tol);
    fputs("\n# storage:", out);
    if (r && r->storage)
        fprintf(out, " %s", r->storage);
    fputs("\n# converged:", out);
    if (r && r->converged >= 0)
        fprintf(out, " %d", r->converged);
    fputc('\n', out);
}

/* Two lines for a reader of the text: what ran, on which bytes.  How it
 * was solved is the report's own business (solve prints its solver
 * line), so it is not repeated. */
void tool_meta_text(FILE *out)
{
    if (M.quiet)
        return;
    fprintf(out, "# san %s: ", san_version());
    command_line(out);
    fputc('\n', out);
    if (M.nmodel || M.ndef) {
        fputs("# ", out);
        models(out, ", ");
        if (M.ndef) {
            fputs(M.nmodel ? "; -D " : "-D ", out);
            overrides(out);
        }
        fputc('\n', out);
    }
}

void tool_provenance(FILE *out, san_report_format f, const void *run)
{
    if (f == SAN_REPORT_JSON)
        tool_meta_json(out, run);
    else if (f == SAN_REPORT_CSV)
        tool_meta_csv(out, run);
    else
        tool_meta_text(out);
}

san_report_format tool_report_format(tool_format f)
{
    return f == FMT_JSON ? SAN_REPORT_JSON : f == FMT_CSV ? SAN_REPORT_CSV : SAN_REPORT_TEXT;
}

void tool_sweep_provenance(FILE *out, san_sweep_format f, const void *run)
{
    tool_provenance(out, f == SAN_SWEEP_JSON ? SAN_REPORT_JSON
                        : f == SAN_SWEEP_CSV ? SAN_REPORT_CSV : SAN_REPORT_TEXT, run);
}
