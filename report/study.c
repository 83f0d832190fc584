/*
 * study.c - the study file of `san report`: a title, then one [section]
 * per analysis with `key = value` lines (doc/report.md).  The analysis'
 * command (`run = sweep ms --slaves 2..7`) is split into words as a
 * shell would (quotes, backslashes), so that a line copied from a
 * terminal works here unchanged.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "san/report.h"

static const char *const kinds[] = { "sweep", "size-buffer", "grain", "compare" };
enum { NKINDS = sizeof kinds / sizeof kinds[0] };

/* The flags the report sets itself on every run. */
static const char *const reserved[] = { "-f", "--format", "-o", "--output", "--plot",
                                        "-q", "--quiet" };
enum { NRESERVED = sizeof reserved / sizeof reserved[0] };

typedef struct {
    const char *path;
    char *err;
    size_t n;
} where;

static san_status bad(const where *w, int line, int col, const char *fmt, ...)
{
    int k = snprintf(w->err, w->n, "%s:%d:%d: ", w->path, line, col);
    if (k >= 0 && (size_t)k < w->n) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(w->err + k, w->n - k, fmt, ap);
        va_end(ap);
    }
    return SAN_E_MODEL;
}

static char *dup_n(const char *s, size_t n)
{
    char *r = malloc(n + 1);
    if (r) {
        memcpy(r, s, n);
        r[n] = '\0';
    }
    return r;
}

/* Splits s into words: '...' literal, "..." with \" \\ \$ \` escapes,
 * a backslash outside quotes escapes the next character.  The column of
 * an unterminated quote in *col (1-based, from s) on failure: -1. */
static int split_words(const char *s, char ***words, int *nwords, int *col)
{
    char **w = NULL;
    int nw = 0;
    size_t len = strlen(s);
    char *buf = malloc(len + 1);
    if (!buf)
        return -2;
    const char *p = s;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        size_t k = 0;
        while (*p && *p != ' ' && *p != '\t') {
            if (*p == '\'') {
                const char *q = strchr(p + 1, '\'');
                if (!q) {
                    *col = (int)(p - s) + 1;
                    goto unterminated;
                }
                memcpy(buf + k, p + 1, q - p - 1);
                k += q - p - 1;
                p = q + 1;
            } else if (*p == '"') {
                const char *start = p++;
                while (*p && *p != '"') {
                    if (*p == '\\' && p[1] && strchr("\"\\$`", p[1]))
                        p++;
                    buf[k++] = *p++;
                }
                if (!*p) {
                    *col = (int)(start - s) + 1;
                    goto unterminated;
                }
                p++;
            } else if (*p == '\\' && p[1]) {
                buf[k++] = p[1];
                p += 2;
            } else
                buf[k++] = *p++;
        }
        char **g = realloc(w, (nw + 1) * sizeof *g);
        if (!g || !(g[nw] = dup_n(buf, k))) {
            w = g ? g : w;
            goto oom;
        }
        w = g;
        nw++;
    }
    free(buf);
    *words = w;
    *nwords = nw;
    return 0;
unterminated:
    for (int i = 0; i < nw; i++)
        free(w[i]);
    free(w);
    free(buf);
    return -1;
oom:
    for (int i = 0; i < nw; i++)
        free(w[i]);
    free(w);
    free(buf);
    return -2;
}

static const char *const global_keys[] = { "title", "note" };
static const char *const section_keys[] = { "title", "note", "run", "x", "plot", "series", "log" };

static int known(const char *key, const char *const *keys, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(key, keys[i]))
            return 1;
    return 0;
}

static char **field(san_study *st, san_study_analysis *a, const char *key)
{
    if (!a)
        return !strcmp(key, "title") ? &st->title : &st->note;
    if (!strcmp(key, "title")) return &a->title;
    if (!strcmp(key, "note")) return &a->note;
    if (!strcmp(key, "x")) return &a->x;
    if (!strcmp(key, "plot")) return &a->plot;
    if (!strcmp(key, "series")) return &a->series;
    return &a->log;
}

/* `run = KIND ARGS`: the kind one of ours, no flag the report sets. */
static san_status set_run(const where *w, san_study_analysis *a, const char *val,
                          int line, int vcol)
{
    char **words;
    int nw, col = 0;
    int rc = split_words(val, &words, &nw, &col);
    if (rc == -2)
        return SAN_E_NOMEM;
    if (rc < 0)
        return bad(w, line, vcol + col - 1, "unterminated quote in run");
    san_status st = SAN_OK;
    if (nw == 0)
        st = bad(w, line, vcol, "expected a subcommand after 'run =' (sweep, size-buffer, grain, compare)");
    else {
        int k = 0;
        while (k < NKINDS && strcmp(words[0], kinds[k]))
            k++;
        if (k == NKINDS)
            st = bad(w, line, vcol, "'%s' is not a subcommand a study runs: expected sweep, "
                     "size-buffer, grain or compare", words[0]);
        for (int i = 1; i < nw && st == SAN_OK; i++)
            for (int r = 0; r < NRESERVED; r++) {
                size_t l = strlen(reserved[r]);
                if (!strncmp(words[i], reserved[r], l) && (words[i][l] == '\0' || words[i][l] == '='))
                    st = bad(w, line, vcol, "run: '%s' is set by the report (it reads each "
                             "analysis as -f json); leave it out", reserved[r]);
            }
    }
    if (st != SAN_OK) {
        for (int i = 0; i < nw; i++)
            free(words[i]);
        free(words);
        return st;
    }
    a->kind = words[0];
    a->nargs = nw - 1;
    a->args = malloc((nw > 1 ? nw - 1 : 1) * sizeof *a->args);
    if (!a->args) {
        for (int i = 0; i < nw; i++)
            free(words[i]);
        free(words);
        a->kind = NULL;
        return SAN_E_NOMEM;
    }
    for (int i = 1; i < nw; i++)
        a->args[i - 1] = words[i];
    free(words);
    return SAN_OK;
}

/* One `[name]` line: a new analysis. */
static san_status open_section(const where *w, san_study *st, const char *p, const char *end,
                               const char *line_start, int line)
{
    const char *q = p + 1;
    while (q < end && (isalnum((unsigned char)*q) || *q == '-' || *q == '_' || *q == '.'))
        q++;
    if (q == p + 1 || q >= end || *q != ']')
        return bad(w, line, (int)(q - line_start) + 1,
                   "expected a section name (letters, digits, - _ .) and ']'");
    const char *r = q + 1;
    while (r < end && (*r == ' ' || *r == '\t'))
        r++;
    if (r < end && *r != '#')
        return bad(w, line, (int)(r - line_start) + 1, "expected the end of the line after ']'");
    for (int i = 0; i < st->n; i++)
        if (strlen(st->a[i].name) == (size_t)(q - p - 1) && !strncmp(st->a[i].name, p + 1, q - p - 1))
            return bad(w, line, (int)(p - line_start) + 2, "section '%s' already given at line %d",
                       st->a[i].name, st->a[i].line);
    san_study_analysis *g = realloc(st->a, (st->n + 1) * sizeof *g);
    if (!g)
        return SAN_E_NOMEM;
    st->a = g;
    memset(&g[st->n], 0, sizeof *g);
    g[st->n].line = line;
    if (!(g[st->n].name = dup_n(p + 1, q - p - 1)))
        return SAN_E_NOMEM;
    st->n++;
    return SAN_OK;
}

static san_status parse_line(const where *w, san_study *st, const char *ls, const char *le, int line)
{
    const char *p = ls;
    while (p < le && (*p == ' ' || *p == '\t'))
        p++;
    if (p == le || *p == '#')
        return SAN_OK;
    if (*p == '[')
        return open_section(w, st, p, le, ls, line);
    const char *k = p;
    while (p < le && (isalnum((unsigned char)*p) || *p == '_' || *p == '-'))
        p++;
    if (p == k)
        return bad(w, line, (int)(p - ls) + 1, "expected 'key = value', '[section]' or '# comment'");
    char key[32];
    size_t kl = (size_t)(p - k) < sizeof key - 1 ? (size_t)(p - k) : sizeof key - 1;
    memcpy(key, k, kl);
    key[kl] = '\0';
    while (p < le && (*p == ' ' || *p == '\t'))
        p++;
    if (p == le || *p != '=')
        return bad(w, line, (int)(p - ls) + 1, "expected '=' after '%s'", key);
    p++;
    while (p < le && (*p == ' ' || *p == '\t'))
        p++;
    const char *ve = le;
    while (ve > p && (ve[-1] == ' ' || ve[-1] == '\t' || ve[-1] == '\r'))
        ve--;
    san_study_analysis *a = st->n ? &st->a[st->n - 1] : NULL;
    int kcol = (int)(k - ls) + 1, vcol = (int)(p - ls) + 1;
    if (!a && !known(key, global_keys, 2))
        return bad(w, line, kcol, "unknown key '%s' before the first [section] (expected title "
                   "or note; an analysis' keys go in its section)", key);
    if (a && !known(key, section_keys, 7))
        return bad(w, line, kcol, "unknown key '%s' (expected title, note, run, x, plot, series "
                   "or log)", key);
    if (p == ve)
        return bad(w, line, vcol, "expected a value after '%s ='", key);
    char *val = dup_n(p, ve - p);
    if (!val)
        return SAN_E_NOMEM;
    san_status rc = SAN_OK;
    if (a && !strcmp(key, "run")) {
        if (a->kind)
            rc = bad(w, line, kcol, "run given twice in [%s]", a->name);
        else
            rc = set_run(w, a, val, line, vcol);
        free(val);
        return rc;
    }
    if (a && !strcmp(key, "log") && strcmp(val, "x") && strcmp(val, "y") && strcmp(val, "xy")) {
        free(val);
        return bad(w, line, vcol, "log: expected x, y or xy");
    }
    char **f = field(st, a, key);
    if (*f) {
        free(val);
        return bad(w, line, kcol, "%s given twice", key);
    }
    *f = val;
    return SAN_OK;
}

san_status san_study_parse(const char *path, const char *text, size_t len,
                           san_study *st, char *err, size_t n)
{
    memset(st, 0, sizeof *st);
    where w = { path, err, n };
    if (!(st->path = strdup(path)) || !(st->text = dup_n(text, len)))
        return SAN_E_NOMEM;
    st->len = len;
    if (memchr(text, '\0', len))
        return bad(&w, 1, 1, "a study is text: this file holds a NUL byte");
    const char *p = text, *end = text + len;
    int line = 1;
    while (p < end) {
        const char *le = memchr(p, '\n', end - p);
        if (!le)
            le = end;
        san_status rc = parse_line(&w, st, p, le, line);
        if (rc != SAN_OK)
            return rc;
        p = le + 1;
        line++;
    }
    if (st->n == 0)
        return bad(&w, line > 1 ? line - 1 : 1, 1, "expected at least one [section] with a run = line");
    for (int i = 0; i < st->n; i++)
        if (!st->a[i].kind)
            return bad(&w, st->a[i].line, 1, "[%s] has no 'run = SUBCOMMAND ...' line", st->a[i].name);
    return SAN_OK;
}

san_status san_study_load(const char *path, san_study *st, char *err, size_t n)
{
    memset(st, 0, sizeof *st);
    size_t len;
    char *text = san_read_file(path, &len);
    if (!text) {
        snprintf(err, n, "%s: cannot read the study file", path);
        return SAN_E_INPUT;
    }
    san_status rc = san_study_parse(path, text, len, st, err, n);
    free(text);
    return rc;
}

void san_study_free(san_study *st)
{
    for (int i = 0; i < st->n; i++) {
        san_study_analysis *a = &st->a[i];
        free(a->name);
        free(a->title);
        free(a->note);
        free(a->kind);
        for (int k = 0; k < a->nargs; k++)
            free(a->args[k]);
        free(a->args);
        free(a->x);
        free(a->plot);
        free(a->series);
        free(a->log);
    }
    free(st->a);
    free(st->path);
    free(st->text);
    free(st->title);
    free(st->note);
    memset(st, 0, sizeof *st);
}
