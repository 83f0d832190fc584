/*
 * diag.c - diagnostics in the style of gcc and clang:
 *
 *   model.san:12:7: error: unknown state 'usng' in automaton 'P[0]'
 *      12 |   to(usng) Acq
 *         |      ^
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "san.h"

void san_diag_init(san_diag *d, const char *file, const char *src, size_t len)
{
    memset(d, 0, sizeof *d);
    d->file = file;
    d->src = src;
    d->srclen = len;
    d->max_errors = 100;
}

void san_diag_clear(san_diag *d)
{
    for (int i = 0; i < d->n; i++)
        free(d->items[i].msg);
    free(d->items);
    d->items = NULL;
    d->n = d->cap = 0;
}

void san_diag_add(san_diag *d, san_severity sev, int line, int col,
                  const char *fmt, ...)
{
    if (sev == SAN_ERROR && d->nerrors >= d->max_errors) {
        d->nerrors++;           /* still counted, no longer stored */
        return;
    }
    if (d->n == d->cap) {
        int cap = d->cap ? 2 * d->cap : 16;
        san_diag_item *p = realloc(d->items, cap * sizeof *p);
        if (!p)
            return;
        d->items = p;
        d->cap = cap;
    }
    va_list ap;
    va_start(ap, fmt);
    char *msg = NULL;
    if (vasprintf(&msg, fmt, ap) < 0)
        msg = NULL;
    va_end(ap);
    if (!msg)
        return;
    san_diag_item *it = &d->items[d->n++];
    it->sev = sev;
    it->line = line;
    it->col = col;
    it->msg = msg;
    if (sev == SAN_ERROR)
        d->nerrors++;
    else if (sev == SAN_WARNING)
        d->nwarnings++;
}

/* Where the quoting of lines has got to: the printing walks the source
 * once, forward, as the messages are sorted (a search from the top per
 * message made 10^5 warnings on a 10^5-line file quadratic). */
typedef struct {
    const char *p, *end;    /* start of line `line` */
    int line;
} line_cursor;

/* The lexer's lines: a byte order mark first is skipped, a line ends
 * at LF, CR LF or a lone CR (lang/lexer.l). */
static void cursor_init(line_cursor *c, const san_diag *d)
{
    c->p = d->src;
    c->end = d->src ? d->src + d->srclen : NULL;
    c->line = 1;
    if (c->p && d->srclen >= 3 && !memcmp(c->p, "\xEF\xBB\xBF", 3))
        c->p += 3;
}

static const char *line_end(const char *p, const char *end)
{
    while (p < end && *p != '\n' && *p != '\r')
        p++;
    return p;
}

/* The start and length of 1-based line `line` (at or after the cursor). */
static int find_line(line_cursor *c, int line, const char **start, size_t *n)
{
    if (!c->p || line < c->line)
        return 0;
    while (c->line < line) {
        const char *e = line_end(c->p, c->end);
        if (e == c->end)
            return 0;
        c->p = e + (e[0] == '\r' && e + 1 < c->end && e[1] == '\n' ? 2 : 1);
        c->line++;
    }
    *start = c->p;
    *n = line_end(c->p, c->end) - c->p;
    return 1;
}

/* Quote the line, with unprintable bytes as '?', then the caret. */
static void print_excerpt(line_cursor *c, FILE *out, int line, int col)
{
    const char *s;
    size_t n;
    if (!find_line(c, line, &s, &n))
        return;
    if (n > 300)
        n = 300;
    fprintf(out, "%5d | ", line);
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = s[i];
        fputc(ch == '\t' || (ch >= 0x20 && ch != 0x7f) ? ch : '?', out);
    }
    fprintf(out, "\n      | ");
    for (int i = 1; i < col && (size_t)i <= n; i++)
        fputc(s[i - 1] == '\t' ? '\t' : ' ', out);
    fprintf(out, "^\n");
}

/* Messages are printed in source order, as a reader walks the file; the
 * phases find them in another order.  Stable: ties keep their order. */
static int by_position(const void *x, const void *y)
{
    const san_diag_item *a = *(san_diag_item *const *)x, *b = *(san_diag_item *const *)y;
    if (a->line != b->line)
        return (a->line > b->line) - (a->line < b->line);
    if (a->col != b->col)
        return (a->col > b->col) - (a->col < b->col);
    return (a > b) - (a < b);
}

void san_diag_print(const san_diag *d, FILE *out, int color)
{
    const san_diag_item **order = malloc((d->n ? d->n : 1) * sizeof *order);
    if (!order)
        return;
    for (int i = 0; i < d->n; i++)
        order[i] = &d->items[i];
    qsort(order, d->n, sizeof *order, by_position);
    static const char *label[] = { "note", "warning", "error" };
    static const char *hue[] = { "\033[1;36m", "\033[1;35m", "\033[1;31m" };
    line_cursor c;
    cursor_init(&c, d);
    for (int i = 0; i < d->n; i++) {
        const san_diag_item *it = order[i];
        if (color)
            fprintf(out, "\033[1m");
        if (it->line > 0)
            fprintf(out, "%s:%d:%d: ", d->file, it->line, it->col);
        else
            fprintf(out, "%s: ", d->file);
        if (color)
            fprintf(out, "%s%s:\033[0m\033[1m %s\033[0m\n", hue[it->sev], label[it->sev], it->msg);
        else
            fprintf(out, "%s: %s\n", label[it->sev], it->msg);
        if (it->line > 0)
            print_excerpt(&c, out, it->line, it->col);
    }
    free(order);
    if (d->nerrors > d->max_errors)
        fprintf(out, "%s: too many errors (%d), stopped reporting after %d\n",
                d->file, d->nerrors, d->max_errors);
}
