/*
 * from.c - `--from FILE` of transient and passage: an initial
 * distribution as `--vector FILE` writes it (tool/vector.c), read back
 * against the model.  Each row is "index,<local state of each
 * automaton>,probability" (the names may be left out: "index,
 * probability"); the header, when there is one, names the automata.
 *
 * Nothing is guessed: a file without a row (empty, a header alone,
 * /dev/null) is an error, not the uniform distribution; the names of a
 * row must be those of the state its index decodes to (a row "0,s[5],1"
 * is not state 0 of a queue); a probability that is not a number in
 * [0, 1] is refused with its line and why.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tool/tool.h"

void tool_from_free(tool_from *v)
{
    free(v->idx);
    free(v->p);
    memset(v, 0, sizeof *v);
}

/* The fields of a CSV line, in place (quotes removed, "" read as one
 * quote: the names as san_csv_field wrote them); at most max stored.
 * The count (max + 1: more than max), or -1 when a quote is not closed. */
static int csv_split(char *line, char **field, int max)
{
    int n = 0;
    char *r = line, *w = line;      /* w never passes r: in place */
    for (;;) {
        if (n == max)
            return max + 1;
        field[n++] = w;
        if (*r == '"') {
            for (r++; *r != '"' || r[1] == '"'; r++) {
                if (!*r)
                    return -1;
                if (*r == '"')
                    r++;            /* "" */
                *w++ = *r;
            }
            r++;
        }
        while (*r && *r != ',')
            *w++ = *r++;
        if (!*r) {
            *w = '\0';
            return n;
        }
        *w++ = '\0';
        r++;
    }
}

/* Why s is no probability (NULL: it is one, into *p).  Each reason its
 * own: NaN, infinite, beyond a double, negative, above 1. */
static const char *probability_why(const char *s, double *p)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end)
        return "not a number";
    if (isnan(v))
        return "NaN, not a probability";
    if (isinf(v)) {
        int spelled = strpbrk(s, "iI") != NULL;     /* "inf", not "1e999" */
        if (!spelled)
            return v > 0 ? "too large for a double (beyond 1.8e308), not a probability"
                         : "too large a negative number for a double, not a probability";
        return "infinite, not a probability";
    }
    if (v < 0)
        return "negative, not a probability";
    if (v > 1)
        return "more than 1, not a probability";
    *p = v;             /* a text that rounds to 0 (1e-400) is 0 */
    return NULL;
}

/* The local states a row names against those of the state of its index:
 * the first automaton where they differ, or -1. */
static int names_differ(const san_model *m, int64_t index, char **names, int *s)
{
    san_state_decode(m, index, s);
    for (int a = 0; a < san_model_automata(m); a++)
        if (strcmp(names[a], san_model_local_state(m, a, s[a])))
            return a;
    return -1;
}

typedef struct {
    const char *cmd, *path;
    const san_model *m;
    long line;
    int names;              /* the header's: 1 names the automata, 0 none,
                               -1 no header */
    char **field;           /* naut + 3 pointers */
    int *s;                 /* naut states */
} reader;

static int refuse(const reader *r, const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "san %s: --from %s:%ld: ", r->cmd, r->path, r->line);
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    return EXIT_USAGE;
}

/* The header: "index", the automata (all of them, in order, or none),
 * "probability".  A vector over lumped replicas names its classes
 * (Slave[1..4]), whose occupancy states are not the model's. */
static int read_header(reader *r, char *line)
{
    const san_model *m = r->m;
    const int naut = san_model_automata(m);
    int n = csv_split(line, r->field, naut + 2);
    int ok = n == 2 || n == naut + 2;
    for (int a = 0; ok && n > 2 && a < naut; a++)
        ok = !strcmp(r->field[a + 1], san_model_automaton_name(m, a));
    if (ok) {
        r->names = n > 2;
        return EXIT_OK;
    }
    fprintf(stderr, "san %s: --from %s: its columns are not the model's automata (%d of "
            "them); a vector `solve --vector` wrote over lumped replicas is over occupancy "
            "states: write it with `san solve --lump off --vector`\n", r->cmd, r->path,
            naut);
    return EXIT_USAGE;
}

/* A row into v: its index, its names checked, its probability. */
static int read_row(reader *r, char *line, tool_from *v)
{
    const san_model *m = r->m;
    const int naut = san_model_automata(m);
    int n = csv_split(line, r->field, naut + 2);
    if (n < 2 || n > naut + 2 || (n != 2 && n != naut + 2) || (r->names == 1 && n == 2)
        || (r->names == 0 && n > 2)) {
        fprintf(stderr, "san %s: --from %s:%ld: expected 'index,<local states>,probability' "
                "(one local state for each of the model's %d automat%s)%s\n", r->cmd, r->path,
                r->line, naut, naut == 1 ? "on" : "a",
                r->names == 1 ? "" : " or 'index,probability'");
        return EXIT_USAGE;
    }
    double x;
    if (san_parse_integer(r->field[0], 0, 9e18, &x) != 0)
        return refuse(r, "state index '%s' is %s", r->field[0], "not a whole number >= 0");
    int64_t index = (int64_t)x;
    int64_t product;
    if (san_model_product(m, &product) && index >= product) {
        char last[32];
        snprintf(last, sizeof last, "%lld", (long long)product - 1);
        return refuse(r, "state index %s is past the model's last state index, %s",
                      r->field[0], last);
    }
    int a = n > 2 ? names_differ(m, index, r->field + 1, r->s) : -1;
    if (a >= 0) {
        fprintf(stderr, "san %s: --from %s:%ld: state index %lld has %s in %s, not '%s': the "
                "index and the names disagree\n", r->cmd, r->path, r->line, (long long)index,
                san_model_automaton_name(m, a), san_model_local_state(m, a, r->s[a]),
                r->field[a + 1]);
        return EXIT_USAGE;
    }
    double p = 0;
    const char *why = probability_why(r->field[n - 1], &p);
    if (why)
        return refuse(r, "probability '%s' is %s", r->field[n - 1], why);
    if (v->n == v->cap) {
        int64_t c = v->cap ? 2 * v->cap : 1024;
        int64_t *i = realloc(v->idx, c * sizeof *i);
        if (i)
            v->idx = i;
        double *q = i ? realloc(v->p, c * sizeof *q) : NULL;
        if (!q) {
            fprintf(stderr, "san %s: --from %s: out of memory\n", r->cmd, r->path);
            return EXIT_FAIL;
        }
        v->p = q;
        v->cap = c;
    }
    v->idx[v->n] = index;
    v->p[v->n++] = p;
    return EXIT_OK;
}

/* Every line of f. */
static int read_lines(reader *r, FILE *f, tool_from *v)
{
    char *line = NULL;
    size_t cap = 0;
    int status = EXIT_OK;
    errno = 0;
    while (status == EXIT_OK && getline(&line, &cap, f) > 0) {
        r->line++;
        line[strcspn(line, "\r\n")] = '\0';
        if (r->line == 1 && !strncmp(line, "index", 5))
            status = read_header(r, line);
        else if (*line)
            status = read_row(r, line, v);
    }
    if (status == EXIT_OK && ferror(f)) {
        fprintf(stderr, "san %s: --from %s: %s\n", r->cmd, r->path, strerror(errno ? errno : EIO));
        status = EXIT_FAIL;
    }
    free(line);
    return status;
}

int tool_read_from(const char *cmd, const char *path, const san_model *m, tool_from *v)
{
    memset(v, 0, sizeof *v);
    FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (!f) {
        fprintf(stderr, "san %s: --from: cannot read '%s': %s\n", cmd, path, strerror(errno));
        return errno == ENOMEM ? EXIT_FAIL : EXIT_USAGE;
    }
    const int naut = san_model_automata(m);
    reader r = { cmd, path, m, 0, -1, malloc((naut + 3) * sizeof *r.field),
                 malloc((naut + 1) * sizeof *r.s) };
    int status = EXIT_FAIL;
    if (r.field && r.s)
        status = read_lines(&r, f, v);
    else
        fprintf(stderr, "san %s: --from %s: out of memory\n", cmd, path);
    if (f != stdin)
        fclose(f);
    free(r.field);
    free(r.s);
    /* no row: read as "no distribution given" it would silently become
     * the uniform one */
    if (status == EXIT_OK && v->n == 0) {
        fprintf(stderr, "san %s: --from %s: no state in it (%s); a distribution is one row "
                "'index,...,probability' per state\n", cmd, path,
                r.names >= 0 ? "a header and no row" : r.line ? "blank lines only"
                : "the file is empty");
        status = EXIT_USAGE;
    }
    if (status != EXIT_OK)
        tool_from_free(v);
    return status;
}
