/*
 * topology.c - the JSON topology of the work-rate model (seed 003):
 * networks on a tree, hosts on networks, their rates.  The format is in
 * doc/analytic.md ("Work-rate (seed 003)").
 *
 * A reader of its own rather than a library (libjansson): the format is
 * two arrays of flat objects, the reader is small, numbers go through the
 * one parser of base/parse.c like every number of the toolkit, messages
 * carry line numbers in the toolkit's style, and libsan gains no
 * dependency for it.  It reads standard JSON (RFC 8259) except \u escapes
 * outside ASCII, which names do not need.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "analytic/analytic_int.h"

/* ------------------------------------------------------------------ */
/* A small JSON tree                                                    */
/* ------------------------------------------------------------------ */

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jtype;

typedef struct jval {
    jtype type;
    int line;
    double num;
    char *str;
    int n;
    char **keys;            /* J_OBJ */
    struct jval *items;     /* J_ARR, J_OBJ */
} jval;

typedef struct {
    const char *s, *end;
    int line, depth;
    char *err;
    size_t n;
    int failed;
} jparser;

static void jfail(jparser *p, const char *msg)
{
    if (!p->failed)
        snprintf(p->err, p->n, "line %d: %s", p->line, msg);
    p->failed = 1;
}

static void jfree(jval *v)
{
    free(v->str);
    for (int i = 0; i < v->n; i++) {
        if (v->keys)
            free(v->keys[i]);
        if (v->items)
            jfree(&v->items[i]);
    }
    free(v->keys);
    free(v->items);
}

static void skip_ws(jparser *p)
{
    while (p->s < p->end && strchr(" \t\r\n", *p->s)) {
        p->line += *p->s == '\n';
        p->s++;
    }
}

static int jvalue(jparser *p, jval *v);

/* A string after its opening quote; ASCII \u escapes only. */
static char *jstring(jparser *p)
{
    size_t cap = 16, len = 0;
    char *out = malloc(cap);
    while (out && p->s < p->end && *p->s != '"') {
        char c = *p->s++;
        if ((unsigned char)c < 0x20) {
            jfail(p, "control character in a string");
            break;
        }
        if (c == '\\' && p->s < p->end) {
            char e = *p->s++;
            const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
            const char *k = strchr(from, e);
            if (e == 'u' && p->end - p->s >= 4) {
                char hex[5] = { p->s[0], p->s[1], p->s[2], p->s[3], 0 };
                char *stop;
                long u = strtol(hex, &stop, 16);
                p->s += 4;
                if (*stop || u < 1 || u > 0x7f) {
                    jfail(p, "\\u escape: only ASCII characters");
                    break;
                }
                c = (char)u;
            } else if (e && k) {
                c = to[k - from];
            } else {
                jfail(p, "bad escape in a string");
                break;
            }
        }
        if (len + 2 > cap) {
            char *o = realloc(out, cap *= 2);
            if (!o) {
                free(out);
                out = NULL;
                break;
            }
            out = o;
        }
        out[len++] = c;
    }
    if (!out) {
        jfail(p, "out of memory");
        return NULL;
    }
    if (p->failed || p->s >= p->end) {
        jfail(p, "unterminated string");
        free(out);
        return NULL;
    }
    p->s++;
    out[len] = '\0';
    return out;
}

/* A number: its characters by the JSON grammar's alphabet, its value
 * from base/parse.c. */
static int jnumber(jparser *p, jval *v)
{
    const char *a = p->s;
    while (p->s < p->end && strchr("+-0123456789.eE", *p->s))
        p->s++;
    char buf[64];
    size_t len = (size_t)(p->s - a);
    if (len == 0 || len >= sizeof buf) {
        jfail(p, "expected a value");
        return -1;
    }
    memcpy(buf, a, len);
    buf[len] = '\0';
    if (san_parse_double(buf, -HUGE_VAL, HUGE_VAL, &v->num) < 0) {
        jfail(p, "bad number");
        return -1;
    }
    v->type = J_NUM;
    return 0;
}

/* Grows the items (and keys) of an array or object by one. */
static jval *jpush(jparser *p, jval *v, char *key)
{
    jval *it = realloc(v->items, (v->n + 1) * sizeof *it);
    char **k = v->type == J_OBJ ? realloc(v->keys, (v->n + 1) * sizeof *k) : NULL;
    if (it)
        v->items = it;
    if (k)
        v->keys = k;
    if (!it || (v->type == J_OBJ && !k)) {
        jfail(p, "out of memory");
        free(key);
        return NULL;
    }
    if (k)
        k[v->n] = key;
    memset(&it[v->n], 0, sizeof *it);
    return &it[v->n++];
}

/* The items of an array or the members of an object, after the bracket. */
static int jcompound(jparser *p, jval *v, char close)
{
    skip_ws(p);
    if (p->s < p->end && *p->s == close) {
        p->s++;
        return 0;
    }
    for (;;) {
        char *key = NULL;
        skip_ws(p);
        if (close == '}') {
            if (p->s >= p->end || *p->s != '"') {
                jfail(p, "expected a member name in quotes");
                return -1;
            }
            p->s++;
            if (!(key = jstring(p)))
                return -1;
            skip_ws(p);
            if (p->s >= p->end || *p->s != ':') {
                free(key);
                jfail(p, "expected ':'");
                return -1;
            }
            p->s++;
        }
        jval *item = jpush(p, v, key);
        if (!item || jvalue(p, item) < 0)
            return -1;
        skip_ws(p);
        if (p->s < p->end && *p->s == ',') {
            p->s++;
            continue;
        }
        if (p->s < p->end && *p->s == close) {
            p->s++;
            return 0;
        }
        jfail(p, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
        return -1;
    }
}

static int jword(jparser *p, const char *w)
{
    size_t k = strlen(w);
    if ((size_t)(p->end - p->s) >= k && !memcmp(p->s, w, k)) {
        p->s += k;
        return 1;
    }
    return 0;
}

static int jvalue(jparser *p, jval *v)
{
    skip_ws(p);
    v->line = p->line;
    if (p->s >= p->end) {
        jfail(p, "unexpected end of input");
        return -1;
    }
    if (++p->depth > 32) {
        jfail(p, "nested too deeply");
        return -1;
    }
    int rc = 0;
    char c = *p->s;
    if (c == '{' || c == '[') {
        p->s++;
        v->type = c == '{' ? J_OBJ : J_ARR;
        rc = jcompound(p, v, c == '{' ? '}' : ']');
    } else if (c == '"') {
        p->s++;
        v->type = J_STR;
        rc = (v->str = jstring(p)) ? 0 : -1;
    } else if (jword(p, "true") || jword(p, "false")) {
        v->type = J_BOOL;
        v->num = p->s[-1] == 'e' && p->s[-2] == 'u';
    } else if (jword(p, "null")) {
        v->type = J_NULL;
    } else {
        rc = jnumber(p, v);
    }
    p->depth--;
    return rc;
}

/* ------------------------------------------------------------------ */
/* The topology                                                         */
/* ------------------------------------------------------------------ */

static const jval *member(const jval *o, const char *key)
{
    for (int i = 0; i < o->n; i++)
        if (!strcmp(o->keys[i], key))
            return &o->items[i];
    return NULL;
}

/* Every member of o is one of the allowed keys (a misspelt rate would
 * otherwise silently mean "no limit"). */
static int only_keys(const jval *o, const char *const *allowed, char *err, size_t n)
{
    for (int i = 0; i < o->n; i++) {
        int ok = 0;
        for (int k = 0; allowed[k] && !ok; k++)
            ok = !strcmp(o->keys[i], allowed[k]);
        if (!ok) {
            snprintf(err, n, "line %d: unknown member \"%s\"", o->items[i].line, o->keys[i]);
            return -1;
        }
    }
    return 0;
}

/* A positive number member, or dflt when absent. */
static int pos_member(const jval *o, const char *key, double dflt, double *out, char *err,
                      size_t n)
{
    const jval *v = member(o, key);
    if (!v) {
        *out = dflt;
        return 0;
    }
    if (v->type != J_NUM || !(v->num > 0) || !isfinite(v->num)) {
        snprintf(err, n, "line %d: \"%s\" must be a number > 0", v->line, key);
        return -1;
    }
    *out = v->num;
    return 0;
}

static int name_member(const jval *o, const char *key, char *out, char *err, size_t n)
{
    const jval *v = member(o, key);
    if (!v || v->type != J_STR || !v->str[0] || strlen(v->str) >= SAN_WR_NAME) {
        snprintf(err, n, "line %d: \"%s\" must be a name of 1 to %d characters", v ? v->line
                 : o->line, key, SAN_WR_NAME - 1);
        return -1;
    }
    strcpy(out, v->str);
    return 0;
}

static int find_net(const san_topology *t, const char *name)
{
    for (int i = 0; i < t->nnets; i++)
        if (!strcmp(t->net[i].name, name))
            return i;
    return -1;
}

/* Networks first (names, rates), parents resolved once all are known. */
static int read_nets(const jval *arr, double task_bytes, san_topology *t, char *err, size_t n)
{
    static const char *const keys[] = { "name", "rate", "bandwidth", "parent", NULL };
    if (arr->type != J_ARR || arr->n > SAN_WR_MAX) {
        snprintf(err, n, "line %d: \"networks\" must be an array of at most %d objects",
                 arr->line, SAN_WR_MAX);
        return -1;
    }
    t->nnets = arr->n;
    for (int i = 0; i < arr->n; i++) {
        const jval *o = &arr->items[i];
        san_wr_net *w = &t->net[i];
        double bw;
        if (o->type != J_OBJ) {
            snprintf(err, n, "line %d: a network must be an object", o->line);
            return -1;
        }
        if (only_keys(o, keys, err, n) < 0 || name_member(o, "name", w->name, err, n) < 0
            || pos_member(o, "rate", INFINITY, &w->rate, err, n) < 0
            || pos_member(o, "bandwidth", 0, &bw, err, n) < 0)
            return -1;
        if (bw > 0 && !(task_bytes > 0)) {
            snprintf(err, n, "line %d: \"bandwidth\" needs \"task_bytes\" at the top (eq. 8)",
                     o->line);
            return -1;
        }
        if (bw > 0)
            w->rate = fmin(w->rate, bw / task_bytes);
        if (find_net(t, w->name) < i) {
            snprintf(err, n, "line %d: network \"%s\" named twice", o->line, w->name);
            return -1;
        }
    }
    for (int i = 0; i < arr->n; i++) {
        const jval *par = member(&arr->items[i], "parent");
        t->net[i].parent = -1;
        if (!par)
            continue;
        if (par->type != J_STR || (t->net[i].parent = find_net(t, par->str)) < 0) {
            snprintf(err, n, "line %d: \"parent\" must name a network", par->line);
            return -1;
        }
    }
    /* A tree: following parents from any network ends at a root. */
    for (int i = 0; i < t->nnets; i++) {
        int k = i, steps = 0;
        while (k >= 0 && steps++ <= t->nnets)
            k = t->net[k].parent;
        if (k >= 0) {
            snprintf(err, n, "network \"%s\": its parents form a cycle", t->net[i].name);
            return -1;
        }
    }
    return 0;
}

static int read_host(const jval *o, san_topology *t, san_wr_host *h, char *err, size_t n)
{
    static const char *const keys[] = { "name", "network", "slave", "master", "slave_time",
                                        "master_time", "avail", NULL };
    char net[SAN_WR_NAME];
    double avail, ts, tm;
    if (o->type != J_OBJ) {
        snprintf(err, n, "line %d: a host must be an object", o->line);
        return -1;
    }
    if (only_keys(o, keys, err, n) < 0 || name_member(o, "name", h->name, err, n) < 0
        || name_member(o, "network", net, err, n) < 0
        || pos_member(o, "avail", 1, &avail, err, n) < 0
        || pos_member(o, "slave", 0, &h->slave_rate, err, n) < 0
        || pos_member(o, "master", -1, &h->master_rate, err, n) < 0
        || pos_member(o, "slave_time", 0, &ts, err, n) < 0
        || pos_member(o, "master_time", 0, &tm, err, n) < 0)
        return -1;
    if ((h->network = find_net(t, net)) < 0) {
        snprintf(err, n, "line %d: host \"%s\": no network \"%s\"", o->line, h->name, net);
        return -1;
    }
    if (avail > 1) {
        snprintf(err, n, "line %d: \"avail\" is a fraction of the CPU, in (0, 1]", o->line);
        return -1;
    }
    if (ts > 0)             /* eq. 6 */
        h->slave_rate = avail / ts;
    if (tm > 0)             /* eq. 7 */
        h->master_rate = avail / tm;
    return 0;
}

static int read_hosts(const jval *arr, san_topology *t, char *err, size_t n)
{
    if (arr->type != J_ARR || arr->n < 1 || arr->n > SAN_WR_MAX) {
        snprintf(err, n, "line %d: \"hosts\" must be an array of 1 to %d objects", arr->line,
                 SAN_WR_MAX);
        return -1;
    }
    t->nhosts = arr->n;
    for (int i = 0; i < arr->n; i++) {
        if (read_host(&arr->items[i], t, &t->host[i], err, n) < 0)
            return -1;
        for (int k = 0; k < i; k++)
            if (!strcmp(t->host[k].name, t->host[i].name)) {
                snprintf(err, n, "line %d: host \"%s\" named twice", arr->items[i].line,
                         t->host[i].name);
                return -1;
            }
    }
    return 0;
}

static int read_root(const jval *root, san_topology *t, char *err, size_t n)
{
    static const char *const keys[] = { "networks", "hosts", "task_bytes", "comment", NULL };
    double task_bytes;
    const jval *nets, *hosts;
    if (root->type != J_OBJ) {
        snprintf(err, n, "line %d: the topology must be an object", root->line);
        return -1;
    }
    if (only_keys(root, keys, err, n) < 0
        || pos_member(root, "task_bytes", 0, &task_bytes, err, n) < 0)
        return -1;
    if (!(nets = member(root, "networks")) || !(hosts = member(root, "hosts"))) {
        snprintf(err, n, "the topology needs \"networks\" and \"hosts\"");
        return -1;
    }
    return read_nets(nets, task_bytes, t, err, n) < 0 || read_hosts(hosts, t, err, n) < 0 ? -1
                                                                                          : 0;
}

san_status san_topology_read(const char *text, size_t len, san_topology *t, char *err,
                             size_t n)
{
    jparser p = { text, text + len, 1, 0, err, n, 0 };
    jval root;
    memset(&root, 0, sizeof root);
    memset(t, 0, sizeof *t);
    int rc = jvalue(&p, &root);
    skip_ws(&p);
    if (rc == 0 && p.s < p.end) {
        jfail(&p, "text after the topology");
        rc = -1;
    }
    if (rc == 0)
        rc = read_root(&root, t, err, n);
    jfree(&root);
    return rc == 0 ? SAN_OK : strstr(err, "out of memory") ? SAN_E_NOMEM : SAN_E_USAGE;
}
