/*
 * gen.c - the pieces the templates share: text buffer, flag scanning,
 * value parsing with messages that name the flag, and the command line
 * recorded in the header comment.  A leaf of gen/: the templates (ms.c,
 * pipeline.c) use it, their dispatcher (dispatch.c) is on top.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "san.h"
#include "gen/gen_int.h"

/* ------------------------------------------------------------------ */
/* Text buffer                                                          */
/* ------------------------------------------------------------------ */

static int gbuf_reserve(gbuf *b, size_t extra)
{
    if (b->oom)
        return -1;
    if (b->len + extra + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 1024;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) {
        b->oom = 1;
        return -1;
    }
    b->s = s;
    b->cap = cap;
    return 0;
}

static void gbuf_vprintf(gbuf *b, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int need = vsnprintf(NULL, 0, fmt, ap);
    if (need >= 0 && gbuf_reserve(b, (size_t)need) == 0) {
        vsnprintf(b->s + b->len, b->cap - b->len, fmt, again);
        b->len += (size_t)need;
    }
    va_end(again);
}

void gbuf_printf(gbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gbuf_vprintf(b, fmt, ap);
    va_end(ap);
}

char *gbuf_take(gbuf *b)
{
    if (b->oom || gbuf_reserve(b, 0) < 0) {
        gbuf_free(b);
        return NULL;
    }
    char *s = b->s;
    s[b->len] = '\0';      /* a buffer nothing was printed to (the PRISM
                               importer's rate of a command whose guard
                               failed) is still a string */
    b->s = NULL;
    b->len = b->cap = 0;
    return s;
}

void gbuf_free(gbuf *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
    b->oom = 0;
}

void gen_err(char *err, size_t n, const char *fmt, ...)
{
    if (!err || !n)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------ */
/* Flags                                                                */
/* ------------------------------------------------------------------ */

/* "--slave: unknown flag; did you mean --slaves?" */
static void unknown_flag(const char *flag, const char *const *known, char *err, size_t n)
{
    san_suggest s;
    san_suggest_init(&s, flag);
    for (int i = 0; known && known[i]; i++)
        san_suggest_add(&s, known[i]);
    const char *near = san_suggest_best(&s);
    gen_err(err, n, "%s: unknown flag%s%s%s", flag, near ? "; did you mean " : "",
            near ? near : "", near ? "?" : "");
}

int gen_scan_flags(int argc, char **argv, gen_flag_fn fn, void *ctx,
                   const char *const *known, char *err, size_t n)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--", 2) != 0 || !a[2]) {
            gen_err(err, n, "unexpected argument '%s' (template flags start with --)", a);
            return -1;
        }
        /* Split --flag=value, or take the next argument as the value. */
        char flag[64];
        const char *val;
        const char *eq = strchr(a, '=');
        size_t fl = eq ? (size_t)(eq - a) : strlen(a);
        if (fl >= sizeof flag) {
            gen_err(err, n, "%.40s...: unknown flag", a);
            return -1;
        }
        memcpy(flag, a, fl);
        flag[fl] = '\0';
        if (!eq && fn(ctx, flag, NULL, err, n) == GEN_SWITCH)
            continue;
        if (eq) {
            val = eq + 1;
        } else if (i + 1 < argc) {
            val = argv[++i];
        } else {
            /* Tell an unknown flag from a known one missing its value. */
            int r = fn(ctx, flag, NULL, err, n);
            if (r == GEN_UNKNOWN)
                unknown_flag(flag, known, err, n);
            else if (r == 0)
                gen_err(err, n, "%s: missing value", flag);
            return -1;
        }
        int r = fn(ctx, flag, val, err, n);
        if (r == GEN_UNKNOWN) {
            unknown_flag(flag, known, err, n);
            return -1;
        }
        if (r < 0)
            return -1;
    }
    return 0;
}

/* The numbers of the flags go through the one parser of base/parse.c;
 * a refusal names the flag, the range and what was wrong with the value
 * ("--slaves: must be an integer in [1, 64] (got 1e20: too large)"). */
static int gen_number(const char *flag, const char *what, const char *val, double lo,
                      double hi, int whole, double *out, char *err, size_t n)
{
    double v;
    if ((whole ? san_parse_integer : san_parse_double)(val, lo, hi, &v) == 0) {
        *out = v + 0.0;         /* -0 would be written "-0" into the model */
        return 0;
    }
    const char *why = san_parse_why(val, lo, hi, whole);
    gen_err(err, n, "%s: must be %s in [%.12g, %.12g] (got %s%s%s)", flag, what, lo, hi, val,
            why ? ": " : "", why ? why : "");
    return -1;
}

int gen_int(const char *flag, const char *val, long min, long max,
            long *out, char *err, size_t n)
{
    double v;
    if (gen_number(flag, "an integer", val, (double)min, (double)max, 1, &v, err, n) < 0)
        return -1;
    *out = (long)v;
    return 0;
}

int gen_real(const char *flag, const char *val, double lo, double hi, double *out,
             char *err, size_t n)
{
    return gen_number(flag, "a number", val, lo, hi, 0, out, err, n);
}

int gen_time(const char *flag, const char *val, double *out, char *err, size_t n)
{
    return gen_real(flag, val, GEN_TIME_MIN, GEN_TIME_MAX, out, err, n);
}

int gen_time_or_zero(const char *flag, const char *val, double *out, char *err, size_t n)
{
    double v;
    if (san_parse_double(val, 0, 0, &v) == 0) {
        *out = 0;
        return 0;
    }
    if (san_parse_double(val, GEN_TIME_MIN, GEN_TIME_MAX, out) == 0)
        return 0;
    const char *why = san_parse_why(val, GEN_TIME_MIN, GEN_TIME_MAX, 0);
    gen_err(err, n, "%s: must be 0 (none) or a number in [%.12g, %.12g] (got %s%s%s)", flag,
            GEN_TIME_MIN, GEN_TIME_MAX, val, why ? ": " : "", why ? why : "");
    return -1;
}

int gen_prob(const char *flag, const char *val, double *out, char *err, size_t n)
{
    double v;
    if (san_parse_double(val, 0, 1, &v) == 0 && (v == 0 || (v >= GEN_PROB_EPS &&
                                                           v <= 1 - GEN_PROB_EPS))) {
        *out = v + 0.0;
        return 0;
    }
    const char *why = san_parse_why(val, 0, 1, 0);
    gen_err(err, n, "%s: must be 0 or a probability in [%.12g, %.12g] (got %s%s%s)", flag,
            GEN_PROB_EPS, 1 - GEN_PROB_EPS, val, why ? ": " : "", why ? why : "");
    return -1;
}

/* Split a comma list into items, calling one(item) for each; counts them
 * and refuses empty items and lists longer than max. */
typedef int (*item_fn)(const char *flag, const char *item, int idx, void *dst,
                       char *err, size_t n);

static int split_list(const char *flag, const char *val, int max, item_fn one,
                      void *dst, int *count, char *err, size_t n)
{
    int k = 0;
    const char *p = val;
    for (;;) {
        const char *q = strchr(p, ',');
        size_t len = q ? (size_t)(q - p) : strlen(p);
        char item[64];
        if (len == 0 || len >= sizeof item) {
            gen_err(err, n, "%s: expected a comma-separated list such as 1,2,3 (got '%s')",
                    flag, val);
            return -1;
        }
        if (k == max) {
            gen_err(err, n, "%s: at most %d items (got more)", flag, max);
            return -1;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        if (one(flag, item, k, dst, err, n) < 0)
            return -1;
        k++;
        if (!q)
            break;
        p = q + 1;
    }
    *count = k;
    return 0;
}

/* "--stages item 2": the flag and the item's place, for the message. */
static const char *item_name(char *buf, size_t n, const char *flag, int idx)
{
    snprintf(buf, n, "%s item %d", flag, idx + 1);
    return buf;
}

static int time_item(const char *flag, const char *item, int idx, void *dst,
                     char *err, size_t n)
{
    char name[96];
    return gen_time(item_name(name, sizeof name, flag, idx), item, (double *)dst + idx, err, n);
}

int gen_time_list(const char *flag, const char *val, double *out, int max,
                  int *count, char *err, size_t n)
{
    return split_list(flag, val, max, time_item, out, count, err, n);
}

/* The range travels with the destination so that one item parser fits
 * every integer list. */
typedef struct { long *out; long min, max; } int_dst;

static int int_item(const char *flag, const char *item, int idx, void *dst,
                    char *err, size_t n)
{
    int_dst *d = dst;
    char name[96];
    return gen_int(item_name(name, sizeof name, flag, idx), item, d->min, d->max,
                   d->out + idx, err, n);
}

int gen_int_list(const char *flag, const char *val, long min, long max, long *out,
                 int maxitems, int *count, char *err, size_t n)
{
    int_dst d = { out, min, max };
    return split_list(flag, val, maxitems, int_item, &d, count, err, n);
}

/* ------------------------------------------------------------------ */
/* Output helpers                                                       */
/* ------------------------------------------------------------------ */

void gen_cmdline_comment(gbuf *b, int argc, char **argv)
{
    gbuf_printf(b, "// generated by: san gen");
    for (int i = 0; i < argc; i++) {
        gbuf_printf(b, " ");
        int quote = !argv[i][0] || strpbrk(argv[i], " \t'\"") != NULL;
        if (quote)
            gbuf_printf(b, "'");
        for (const unsigned char *p = (const unsigned char *)argv[i]; *p; p++)
            gbuf_printf(b, "%c", *p < 0x20 || *p == 0x7f ? '?' : *p);
        if (quote)
            gbuf_printf(b, "'");
    }
    gbuf_printf(b, "\n");
}

void gen_provenance(gbuf *b, int argc, char **argv)
{
    gen_cmdline_comment(b, argc, argv);
    gbuf_printf(b, "// san %s; explained by --explain and doc/indices.md\n", san_version());
}

char *gen_write(const gen_writer *w, const void *t, int explain, char *size, int argc,
                char **argv, char **out_size, char *err, size_t n)
{
    if (!size) {
        if (!err || !err[0])
            gen_err(err, n, "out of memory");
        return NULL;
    }
    gbuf b = { 0 };
    if (explain)
        w->header(&b, t, size, argc, argv);
    else
        gen_provenance(&b, argc, argv);
    size_t body = b.len;
    w->body(&b, t);
    if (!explain)
        gen_strip_comments(&b, body);
    char *text = gbuf_take(&b);
    if (!text)
        gen_err(err, n, "out of memory");
    if (out_size && text)
        *out_size = size;
    else
        free(size);
    return text;
}

int gen_explain_flag(const char *flag, const char *val, int *on, char *err, size_t n)
{
    if (strcmp(flag, "--explain") != 0)
        return GEN_UNKNOWN;
    if (val) {
        gen_err(err, n, "--explain: takes no value");
        return -1;
    }
    *on = 1;
    return GEN_SWITCH;
}

void gen_line(gbuf *b, const char *comment, const char *fmt, ...)
{
    enum { COMMENT_COL = 34 };
    size_t start = b->len;
    va_list ap;
    va_start(ap, fmt);
    gbuf_vprintf(b, fmt, ap);
    va_end(ap);
    if (comment && !b->oom) {
        size_t width = b->len - start;
        gbuf_printf(b, "%*s// %s", width < COMMENT_COL ? (int)(COMMENT_COL - width) : 1, "",
                    comment);
    }
    gbuf_printf(b, "\n");
}

void gen_strip_comments(gbuf *b, size_t from)
{
    if (b->oom || from >= b->len)
        return;
    char *out = b->s + from;
    for (const char *line = b->s + from, *end = b->s + b->len; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *stop = nl ? nl : end;
        const char *code_end = stop;
        for (const char *c = line; c + 1 < stop; c++)
            if (c[0] == '/' && c[1] == '/') {
                code_end = c;
                break;
            }
        int comment = code_end != stop;
        while (code_end > line && (code_end[-1] == ' ' || code_end[-1] == '\t'))
            code_end--;
        if (!(comment && code_end == line)) {   /* a comment-only line goes whole */
            memmove(out, line, (size_t)(code_end - line));
            out += code_end - line;
            if (nl)
                *out++ = '\n';
        }
        line = nl ? nl + 1 : end;
    }
    b->len = (size_t)(out - b->s);
    b->s[b->len] = '\0';
}

const char *gen_fmt(char *buf, size_t n, double v)
{
    snprintf(buf, n, "%.12g", v);
    return buf;
}

const char *gen_fmt_exact(char *buf, size_t n, double v)
{
    for (int digits = 12; digits <= 17; digits++) {
        snprintf(buf, n, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

/* ------------------------------------------------------------------ */
/* Exact sizes                                                          */
/* ------------------------------------------------------------------ */

void gen_big_one(gen_big *b)
{
    b->limb[0] = 1;
    b->n = 1;
    b->overflow = 0;
    b->log10 = 0;
}

void gen_big_mul(gen_big *b, unsigned long f)
{
    b->log10 += f ? log10((double)f) : -INFINITY;
    if (b->overflow)
        return;
    unsigned long long carry = 0;
    for (int i = 0; i < b->n; i++) {
        unsigned long long x = (unsigned long long)b->limb[i] * f + carry;
        b->limb[i] = (unsigned)(x % 1000000000ULL);
        carry = x / 1000000000ULL;
    }
    while (carry) {
        if (b->n == GEN_BIG_LIMBS) {
            b->overflow = 1;
            return;
        }
        b->limb[b->n++] = (unsigned)(carry % 1000000000ULL);
        carry /= 1000000000ULL;
    }
}

void gen_big_str(const gen_big *b, char *buf, size_t n)
{
    if (b->overflow) {
        snprintf(buf, n, "about 1e+%.0f", floor(b->log10));
        return;
    }
    size_t k = (size_t)snprintf(buf, n, "%u", b->limb[b->n - 1]);
    for (int i = b->n - 2; i >= 0 && k < n; i--)
        k += (size_t)snprintf(buf + k, n - k, "%09u", b->limb[i]);
}

int gen_big_fits(const gen_big *b)
{
    if (b->overflow || b->n > 3 || (b->n == 3 && b->limb[2] > 9))
        return 0;
    unsigned long long v = 0;
    for (int i = b->n - 1; i >= 0; i--)
        v = v * 1000000000ULL + b->limb[i];
    return v <= (unsigned long long)INT64_MAX;
}

void gen_big_short(const gen_big *b, char *buf, size_t n)
{
    if (!b->overflow && b->n <= 2) {
        gen_big_str(b, buf, n);
        return;
    }
    double e = floor(b->log10);
    snprintf(buf, n, "about %.2fe+%.0f", pow(10, b->log10 - e), e);
}

int gen_check_size(const gen_big *b, const char *formula, const char *flags,
                   char *err, size_t n)
{
    if (gen_big_fits(b))
        return 0;
    char v[64];
    gen_big_short(b, v, sizeof v);
    gen_err(err, n, "%s: the product space %s = %s states, more than the solver's 64-bit "
            "state indices count (2^63 - 1 = %lld); lower %s", flags, formula, v,
            (long long)INT64_MAX, flags);
    return -1;
}
