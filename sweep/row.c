/*
 * row.c - a row of the table: its release, its results by name, and the
 * row as lines of text and back, for sending it between MPI ranks.
 * Numbers are written with 17 significant digits, which read back to the
 * same double: the gathered table equals the serial one.  Marginals are
 * not carried (a sweep does not keep them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sweep/sweep_int.h"

void san_sweep_row_free(san_sweep_row *r)
{
    free(r->pick);
    free(r->command);
    free(r->error);
    free(r->product);
    for (int i = 0; r->res_name && i < r->nres; i++)
        free(r->res_name[i]);
    free(r->res_name);
    free(r->res);
    for (int a = 0; a < r->naut; a++) {
        free(r->aut_name ? r->aut_name[a] : NULL);
        for (int k = 0; r->state_name && r->state_name[a] && k < r->nstates[a]; k++)
            free(r->state_name[a][k]);
        free(r->state_name ? r->state_name[a] : NULL);
        free(r->marginal ? r->marginal[a] : NULL);
    }
    free(r->aut_name);
    free(r->nstates);
    free(r->state_name);
    free(r->marginal);
    memset(r, 0, sizeof *r);
}

void san_sweep_row_accuracy(const san_sweep_row *r, san_sweep_accuracy *a)
{
    /* a closed form, or a variant that stopped before its solve, has
     * no method, storage or lumping to report */
    a->solved = r->reachable && !r->analytic;
    a->method = r->method;
    a->iterations = r->iterations;
    a->residual = r->residual;
    a->error_est = r->error_est;
    a->converged = r->ok;
    a->error_bound = r->error_bound;
    a->storage = r->storage;
    a->lumped = r->lumped;
}

int san_sweep_row_result(const san_sweep_row *r, const char *name, double *v)
{
    for (int i = 0; r->ok && i < r->nres; i++)
        if (!strcmp(r->res_name[i], name)) {
            *v = r->res[i];
            return 1;
        }
    return 0;
}

typedef struct {
    char *s;
    size_t len, cap;
    int oom;
} tbuf;

static void put(tbuf *b, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void put(tbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (b->oom || need < 0)
        return;
    if (b->len + need + 1 > b->cap) {
        size_t cap = (b->cap ? b->cap : 256);
        while (cap < b->len + need + 1)
            cap *= 2;
        char *p = realloc(b->s, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->s = p;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += need;
}

/* A text field on one line: line breaks become spaces. */
static void put_text(tbuf *b, const char *key, const char *s)
{
    put(b, "%s ", key);
    for (const char *p = s ? s : ""; *p; p++)
        put(b, "%c", *p == '\n' || *p == '\r' ? ' ' : *p);
    put(b, "\n");
}

char *sweep_row_pack(const san_sweep_row *r, int naxes)
{
    tbuf b = { 0 };
    put(&b, "variant %d\npick", r->variant);
    for (int a = 0; a < naxes; a++)
        put(&b, " %d", r->pick ? r->pick[a] : -1);
    put(&b, "\nok %d\nanalytic %d\n", r->ok, r->analytic);
    put_text(&b, "error", r->error);
    put(&b, "has_error %d\n", r->error != NULL);
    put_text(&b, "command", r->command);
    put_text(&b, "product", r->product);
    put(&b, "plog %.17g\nreachable %lld\nmethod %d\niterations %ld\nresidual %.17g\n"
        "error_est %.17g\ntime %.17g\nerror_bound %d\nstorage %d\nlumped %d\n",
        r->product_log10, (long long)r->reachable, (int)r->method, r->iterations, r->residual,
        r->error_est, r->time_s, r->error_bound, (int)r->storage, r->lumped);
    for (int i = 0; i < r->nres; i++)
        put(&b, "res %.17g %s\n", r->res[i], r->res_name[i]);
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

static int add_result(san_sweep_row *r, const char *line)
{
    char *end;
    double v = strtod(line, &end);
    if (*end != ' ')
        return -1;
    char **pn = realloc(r->res_name, (r->nres + 1) * sizeof *pn);
    if (pn)
        r->res_name = pn;
    double *pv = realloc(r->res, (r->nres + 1) * sizeof *pv);
    if (pv)
        r->res = pv;
    if (!pn || !pv || !(r->res_name[r->nres] = strdup(end + 1)))
        return -1;
    r->res[r->nres++] = v;
    return 0;
}

/* One "key value" line into the row. */
static int unpack_line(san_sweep_row *r, int naxes, const char *key, char *val, char **error)
{
    if (!strcmp(key, "variant"))
        r->variant = atoi(val);
    else if (!strcmp(key, "pick")) {
        r->pick = malloc((naxes + 1) * sizeof *r->pick);
        if (!r->pick)
            return -1;
        char *p = val;
        for (int a = 0; a < naxes; a++)
            r->pick[a] = (int)strtol(p, &p, 10);
    } else if (!strcmp(key, "ok"))
        r->ok = atoi(val);
    else if (!strcmp(key, "analytic"))
        r->analytic = atoi(val);
    else if (!strcmp(key, "error"))
        *error = strdup(val);
    else if (!strcmp(key, "has_error")) {
        if (atoi(val))
            r->error = *error, *error = NULL;
    } else if (!strcmp(key, "command"))
        r->command = strdup(val);
    else if (!strcmp(key, "product"))
        r->product = strdup(val);
    else if (!strcmp(key, "plog"))
        r->product_log10 = strtod(val, NULL);
    else if (!strcmp(key, "reachable"))
        r->reachable = strtoll(val, NULL, 10);
    else if (!strcmp(key, "method"))
        r->method = (san_method)atoi(val);
    else if (!strcmp(key, "iterations"))
        r->iterations = strtol(val, NULL, 10);
    else if (!strcmp(key, "residual"))
        r->residual = strtod(val, NULL);
    else if (!strcmp(key, "error_est"))
        r->error_est = strtod(val, NULL);
    else if (!strcmp(key, "time"))
        r->time_s = strtod(val, NULL);
    else if (!strcmp(key, "error_bound"))
        r->error_bound = atoi(val);
    else if (!strcmp(key, "storage"))
        r->storage = (san_storage)atoi(val);
    else if (!strcmp(key, "lumped"))
        r->lumped = atoi(val);
    else if (!strcmp(key, "res"))
        return add_result(r, val);
    return 0;
}

int sweep_row_unpack(const char *text, int naxes, san_sweep_row *r)
{
    memset(r, 0, sizeof *r);
    char *copy = strdup(text), *error = NULL;
    int rc = copy ? 0 : -1;
    for (char *line = copy; rc == 0 && line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        char *sp = strchr(line, ' ');
        char empty[] = "";
        char *val = sp ? (*sp = '\0', sp + 1) : empty;
        rc = unpack_line(r, naxes, line, val, &error);
        line = nl ? nl + 1 : NULL;
    }
    free(error);
    free(copy);
    if (rc == 0 && !r->pick)
        rc = -1;
    if (rc < 0)
        san_sweep_row_free(r);
    return rc;
}
