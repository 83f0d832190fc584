/*
 * space.c - the reachable state space and the sparse generator.
 *
 * The states the reachability function accepts are numbered first (the
 * seeds); one breadth-first pass from them (explore.c) finds the others
 * and writes the rows of Q.  The map from mixed-radix index to number is
 * idmap.h's.
 *
 * Then the structure is checked: strongly connected components, exactly
 * one closed class (isolated pockets admitted by a full reachability
 * function are dropped, with a warning).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "explore.h"
#include "space.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

double san_default_max_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    double phys = pages > 0 && size > 0 ? (double)pages * size : 8.0 * (1 << 30);
    return 0.8 * phys;
}

/* ---------------------------------------------------------------- */
/* Seeds: the states the reachability function accepts                */
/* ---------------------------------------------------------------- */

/* Products up to this are scanned for the reachability function. */
#define SCAN_LIMIT 4000000000LL

static void progress(const char *what, int64_t n, double t0, double *last)
{
    double t = now();
    if (t - *last < 0.5)
        return;
    *last = t;
    fprintf(stderr, "\r  %s: %lld states (%.1f s)   ", what, (long long)n, t - t0);
    fflush(stderr);
}

/* Odometer over the product space, evaluating the function in each. */
static int scan_seeds(const san_model *m, space_rows *r, idmap *h, const san_space_opts *o,
                      san_diag *d)
{
    if (!m->product_fits || m->product > SCAN_LIMIT) {
        san_diag_add(d, SAN_ERROR, 0, 0, "the product space has %s states: too many to scan "
                     "with the reachability function (the limit is %lld)", m->product_str,
                     (long long)SCAN_LIMIT);
        return -2;
    }
    int *s = calloc(m->naut + 1, sizeof *s);
    if (!s)
        return -1;
    int all = san_expr_is_const(m->reach) && san_expr_const(m->reach) != 0;
    double t0 = now(), last = t0;
    for (int64_t idx = 0; idx < m->product; idx++) {
        if (all || san_expr_eval(m->reach, s) != 0) {
            if (r->n >= INT32_MAX - 1 || (o->max_states && r->n >= o->max_states))
                break;
            if (space_rows_reserve_states(r, r->n + 1) < 0) {
                free(s);
                return -1;
            }
            int fresh;
            idmap_get(h, idx, (int32_t)r->n, &fresh);
            r->index[r->n++] = idx;
        }
        for (int a = m->naut - 1; a >= 0; a--) {
            if (++s[a] < m->aut[a].nstates)
                break;
            s[a] = 0;
        }
        if (o->progress && (idx & 0xfffff) == 0)
            progress("scanning the reachability function", r->n, t0, &last);
    }
    free(s);
    if (o->progress)
        fprintf(stderr, "\r%60s\r", "");
    return 0;
}

/* ---------------------------------------------------------------- */
/* The whole build                                                    */
/* ---------------------------------------------------------------- */

int san_space_build(const san_model *m, const san_space_opts *o, san_space *sp, san_diag *d)
{
    memset(sp, 0, sizeof *sp);
    sp->m = m;
    double limit = o->max_memory > 0 ? o->max_memory : san_default_max_memory();
    space_rows r = { 0 };
    idmap h;
    double t0 = now();
    if (idmap_init(&h, m, limit) < 0) {
        san_diag_add(d, SAN_ERROR, 0, 0, "out of memory for the state map of %s product states",
                     m->product_str);
        return -1;
    }
    int rc = space_rows_reserve_states(&r, 1024);
    if (rc == 0)
        rc = scan_seeds(m, &r, &h, o, d);
    sp->declared = r.n;
    if (rc == 0 && r.n == 0) {
        san_diag_add(d, SAN_ERROR, 0, 0, "the reachability function accepts no state");
        rc = -2;
    }
    if (rc == 0 && !m->product_fits)
        rc = -2;
    if (rc == 0) {
        rc = space_explore(m, &r, &h, o, limit, &sp->reached_undeclared, d);
    }
    idmap_free(&h);
    if (rc) {
        space_rows_free(&r);
        return rc;
    }
    double t1 = now();
    sp->n = r.n;
    sp->index = r.index;
    sp->q.n = r.n;
    sp->q.rowptr = r.rowptr;
    sp->q.col = r.col;
    sp->q.val = r.val;
    sp->t_explore = t1 - t0;
    sp->t_build = 0;    /* the rows are written during the exploration */
    if (sp->reached_undeclared)
        san_diag_add(d, SAN_WARNING, 0, 0, "%lld reached states are rejected by the reachability "
                     "function; they are kept (the function should accept them)",
                     (long long)sp->reached_undeclared);
    if (o->states_only) {
        sp->nclosed = sp->n;
        sp->in_closed = malloc(sp->n ? sp->n : 1);
        if (!sp->in_closed) {
            san_space_free(sp);
            return -1;
        }
        memset(sp->in_closed, 1, sp->n);
        sp->bytes = 16.0 * sp->n;
        return 0;
    }
    rc = space_check_classes(sp, d);
    sp->t_check = now() - t1;
    if (rc) {
        san_space_free(sp);     /* a failed build leaves nothing to free */
        return rc;
    }
    for (int64_t i = 0; i < sp->n; i++) {
        double q = -sp->q.val[space_diag_pos(&sp->q, i)];
        if (q > sp->max_rate)
            sp->max_rate = q;
    }
    sp->bytes = 16.0 * sp->n + 12.0 * sp->q.rowptr[sp->n] + sp->n;
    return rc;
}

void san_space_free(san_space *sp)
{
    free(sp->index);
    san_csr_free(&sp->q);
    free(sp->in_closed);
    memset(sp, 0, sizeof *sp);
}
