/*
 * html.c - the page of `san report`: the template built into the library
 * (report/page.html with its style and script, embedded by
 * scripts/embed.sh) and the study's runs as one JSON block that the
 * script draws.  Each run's -f json report is embedded verbatim: the
 * page shows the very numbers `san KIND ... -f json` writes.
 */
#include <stdio.h>
#include <string.h>
#include "san/report.h"
#include "base/services.h"
#include "report/templates.h"

/* A JSON string safe inside <script>: '<' as \u003c, so that neither
 * "</script>" nor "<!--" can end or change the block. */
static void put_str(FILE *out, const char *s)
{
    if (!s) {
        fputs("null", out);
        return;
    }
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        case '<': fputs("\\u003c", out); break;
        default:
            if (*p < 0x20)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out);
        }
    }
    fputc('"', out);
}

static void put_words(FILE *out, int n, char *const *w)
{
    fputc('[', out);
    for (int i = 0; i < n; i++) {
        if (i)
            fputc(',', out);
        put_str(out, w[i]);
    }
    fputc(']', out);
}

/* A report as its subcommand wrote it, '<' escaped (it can only occur
 * inside a JSON string, where \u003c means the same); null when the run
 * left no whole document (it failed before writing one). */
static void put_document(FILE *out, const char *json)
{
    const char *b = json, *e = json ? json + strlen(json) : NULL;
    while (b && b < e && (*b == ' ' || *b == '\n' || *b == '\t' || *b == '\r'))
        b++;
    while (e && e > b && (e[-1] == ' ' || e[-1] == '\n' || e[-1] == '\t' || e[-1] == '\r'))
        e--;
    if (!b || b == e || *b != '{' || e[-1] != '}') {
        fputs("null", out);
        return;
    }
    for (const char *p = b; p < e; p++)
        if (*p == '<')
            fputs("\\u003c", out);
        else
            fputc(*p, out);
}

static void put_run(FILE *out, const san_report_run *r)
{
    const san_study_analysis *a = r->a;
    fputs("{\"name\":", out);
    put_str(out, a->name);
    fputs(",\"title\":", out);
    put_str(out, a->title ? a->title : a->name);
    fputs(",\"note\":", out);
    put_str(out, a->note);
    fputs(",\"kind\":", out);
    put_str(out, a->kind);
    fputs(",\"x\":", out);
    put_str(out, a->x);
    fputs(",\"plot\":", out);
    put_str(out, a->plot);
    fputs(",\"series\":", out);
    put_str(out, a->series);
    fputs(",\"log\":", out);
    put_str(out, a->log);
    fputs(",\"command_line\":", out);
    put_words(out, r->argc, r->argv);
    fprintf(out, ",\"status\":%d,\"seconds\":%.3f,\"stderr\":", r->status, r->seconds);
    put_str(out, r->log);
    fputs(",\"models\":[", out);
    for (int i = 0; i < r->nmodels; i++) {
        fputs(i ? ",{\"name\":" : "{\"name\":", out);
        put_str(out, r->model_name[i]);
        fputs(",\"text\":", out);
        put_str(out, r->model_text[i]);
        fputc('}', out);
    }
    fputs("],\"output\":", out);
    put_document(out, r->json);
    fputc('}', out);
}

static void put_data(FILE *out, const san_report_page *p)
{
    fputs("{\"schema\":\"san-report/1\",\"title\":", out);
    put_str(out, p->title);
    fputs(",\"san_version\":", out);
    put_str(out, p->san_version);
    fputs(",\"command_line\":", out);
    put_words(out, p->argc, p->argv);
    fputs(",\"study\":", out);
    if (p->study) {
        fputs("{\"path\":", out);
        put_str(out, p->study->path);
        fputs(",\"note\":", out);
        put_str(out, p->study->note);
        fputs(",\"text\":", out);
        put_str(out, p->study->text);
        fputc('}', out);
    } else
        fputs("null", out);
    fputs(",\"analyses\":[", out);
    for (int i = 0; i < p->nruns; i++) {
        if (i)
            fputs(",\n", out);
        put_run(out, &p->runs[i]);
    }
    fputs("]}", out);
}

/* The page's title as HTML text. */
static void put_text(FILE *out, const char *s)
{
    for (; s && *s; s++)
        switch (*s) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*s, out);
        }
}

void san_report_run_default(san_report_run *r)
{
    memset(r, 0, sizeof *r);
    r->struct_size = sizeof *r;
}

void san_report_page_default(san_report_page *p)
{
    memset(p, 0, sizeof *p);
    p->struct_size = sizeof *p;
}

/* p or a run of it filled against another layout (base_opts_foreign):
 * 1, with err.  The runs are an array: past a first run of another
 * size the stride is wrong, so the check stops at the first one. */
static int page_foreign(const san_report_page *p, char *err, size_t n)
{
    if (BASE_OPTS_FOREIGN(p, "report page", "san_report_page_default", err, n))
        return 1;
    for (int i = 0; i < p->nruns; i++)
        if (BASE_OPTS_FOREIGN(&p->runs[i], "report run", "san_report_run_default", err, n))
            return 1;
    return 0;
}

/* The template with its @@TITLE@@, @@CSS@@, @@JS@@ and @@DATA@@ filled. */
san_status san_report_html(FILE *out, const san_report_page *p, char *err, size_t n)
{
    if (page_foreign(p, err, n))
        return SAN_E_USAGE;
    const char *t = (const char *)rep_tpl_page_html;
    const char *end = t + rep_tpl_page_html_len;
    while (t < end) {
        const char *m = memmem(t, end - t, "@@", 2);
        if (!m) {
            fwrite(t, 1, end - t, out);
            break;
        }
        fwrite(t, 1, m - t, out);
        const char *me = memmem(m + 2, end - m - 2, "@@", 2);
        size_t nl = me ? (size_t)(me - m - 2) : 0;
        if (me && nl == 5 && !memcmp(m + 2, "TITLE", 5))
            put_text(out, p->title);
        else if (me && nl == 3 && !memcmp(m + 2, "CSS", 3))
            fwrite(rep_tpl_page_css, 1, rep_tpl_page_css_len, out);
        else if (me && nl == 2 && !memcmp(m + 2, "JS", 2))
            fwrite(rep_tpl_page_js, 1, rep_tpl_page_js_len, out);
        else if (me && nl == 4 && !memcmp(m + 2, "DATA", 4))
            put_data(out, p);
        else {
            fwrite(m, 1, 2, out);
            t = m + 2;
            continue;
        }
        t = me + 2;
    }
    if (ferror(out)) {
        if (err && n)
            snprintf(err, n, "write error");
        return SAN_E_IO;
    }
    return SAN_OK;
}
