/*
 * space.c - the reachable state space and the sparse generator.
 *
 * The states the reachability function accepts are numbered first (the
 * seeds, found by reach_walk.h without trying every product state); one
 * breadth-first pass from them (explore.c) finds the others and writes
 * the rows of Q, or for the tensor path (states_only) each state's exit
 * rate and, at low fill, the arcs for the class check.  The map from
 * mixed-radix index to number is idmap.h's, sized from the seeds.
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
#include "base/services.h"
#include "solver/space/explore.h"
#include "solver/space/idmap.h"
#include "solver/space/messages.h"
#include "solver/space/reach_walk.h"
#include "solver/space/state_space.h"
#include "base/services.h"
#include "lang/model_int.h"
#include "solver/space/space_int.h"


/* ---------------------------------------------------------------- */
/* Seeds: the states the reachability function accepts                */
/* ---------------------------------------------------------------- */

/* The scan evaluates the reachability function (on states or on boxes
 * of them) at most this many times. */
#define SCAN_LIMIT 4000000000LL

static void progress(const char *what, int64_t n, double t0, double *last)
{
    double t = san_now();
    if (t - *last < 0.5)
        return;
    *last = t;
    fprintf(stderr, "\r  %s: %lld states (%.1f s)   ", what, (long long)n, t - t0);
    fflush(stderr);
}

typedef struct {
    space_rows *r;
    const san_space_opts *o;
    const san_model *m;
    double limit;           /* bytes */
    int why;                /* the walk stopped: SCAN_MEMORY, _LIMIT, ... */
    double t0, last;
} scan;

enum { SCAN_OK, SCAN_NOMEM, SCAN_OVER_LIMIT, SCAN_INTERRUPTED, SCAN_TIME };

/* The seeds' list and the map they will need (idmap.h), held against
 * the memory limit: a function that accepts most of a huge product
 * space stops there, not when memory runs out. */
static double scan_need(const space_rows *r, const san_model *m, double limit)
{
    return 16.0 * r->cap + idmap_estimate(m, (double)r->n, limit);
}

static int scan_take(reach_walk *w, int64_t idx, const int *state)
{
    scan *S = w->ctx;
    space_rows *r = S->r;
    (void)state;
    if (r->n >= INT32_MAX - 1 || (S->o->max_states && r->n >= S->o->max_states))
        return 1;
    if (r->n == r->cap) {
        if (space_rows_reserve_states(r, r->n + 1) < 0) {
            S->why = SCAN_NOMEM;
            return -1;
        }
        if (scan_need(r, S->m, S->limit) > S->limit) {
            S->why = SCAN_OVER_LIMIT;
            return -1;
        }
    }
    r->index[r->n++] = idx;
    return 0;
}

static int scan_tick(reach_walk *w)
{
    scan *S = w->ctx;
    if (S->o->interrupt && *S->o->interrupt) {
        S->why = SCAN_INTERRUPTED;
        return -1;
    }
    if (S->o->time_limit > 0 && san_now() - S->t0 >= S->o->time_limit) {
        S->why = SCAN_TIME;
        return -1;
    }
    if (S->o->progress)
        progress("scanning the reachability function", S->r->n, S->t0, &S->last);
    return 0;
}

/* The states the reachability function accepts, in index order
 * (reach_walk.h: whole boxes of states skipped or taken at once). */
static int scan_seeds(const san_model *m, space_rows *r, const san_space_opts *o,
                      double limit, san_diag *d)
{
    if (!m->product_fits) {
        san_diag_add(d, SAN_ERROR, 0, 0, "the product space has %s states: too many to scan "
                     "with the reachability function (state indices are 64-bit)",
                     m->product_str);
        return -2;
    }
    scan S = { r, o, m, limit, SCAN_OK, san_now(), 0 };
    S.last = S.t0;
    reach_walk w = { .m = m, .max_evals = SCAN_LIMIT, .take = scan_take, .tick = scan_tick,
                     .ctx = &S };
    int rc = reach_walk_run(&w);
    if (o->progress)
        fprintf(stderr, "\r%60s\r", "");
    if (rc == -3) {
        san_diag_add(d, SAN_ERROR, 0, 0, "the product space has %s states: scanning it with "
                     "the reachability function took more than %lld evaluations (%lld states "
                     "accepted so far)", m->product_str, (long long)SCAN_LIMIT,
                     (long long)r->n);
        return -2;
    }
    if (rc == 0)
        return 0;
    if (S.why == SCAN_OVER_LIMIT) {
        char need[32], lim[32];
        san_diag_add(d, SAN_ERROR, 0, 0, "the reachability function accepts more than %lld "
                     "states: their list and map need more than %s, beyond the memory "
                     "limit of %s; raise --max-memory, or reduce the model",
                     (long long)r->n, san_format_bytes(scan_need(r, m, limit), need, sizeof need),
                     san_format_bytes(limit, lim, sizeof lim));
        return SPACE_LIMIT;
    }
    if (S.why == SCAN_TIME) {
        san_diag_add(d, SAN_ERROR, 0, 0, "the time limit was reached while scanning the "
                     "reachability function (%lld states); raise --time-limit",
                     (long long)r->n);
        return SPACE_TIME;
    }
    san_diag_add(d, SAN_ERROR, 0, 0, S.why == SCAN_INTERRUPTED
                 ? "interrupted while scanning the reachability function (%lld states)"
                 : "out of memory while scanning the reachability function (%lld states)",
                 (long long)r->n);
    return -1;
}

/* States only, the exploration keeps the arcs for the class check
 * (explore.h) when the map is a hash: a reachable set under 1/16 of the
 * product space, where each state's successors cost the most to
 * enumerate again (functions of many automata: rs N=28 R=8, the check
 * 7.7 -> 0.7 s) and the arcs (about 4 bytes each, 60-70 a state) are no
 * more than the hash already took.  Where the map is flat they would be
 * the peak, for little (tss.san: 2.25 GB instead of 1.0, the check
 * 5.9 -> 4.9 s, the exploration 1 s longer). */
static void keep_arcs(space_rows *r)
{
    r->rowptr = malloc((r->cap + 1) * sizeof *r->rowptr);
    r->arcs = r->rowptr != NULL;
}

/* The index -> number map (idmap.h), the seeds in it, sized for them
 * unless the function is partial (the seeds are then only where the
 * exploration starts). */
static int map_seeds(idmap *h, const san_model *m, const space_rows *r, double limit)
{
    if (idmap_init(h, m, m->partial ? 0 : (double)r->n, limit) < 0)
        return -1;
    for (int64_t i = 0; i < r->n; i++) {
        int fresh;
        if (idmap_get(h, r->index[i], (int32_t)i, &fresh) == -2)
            return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- */
/* The whole build                                                    */
/* ---------------------------------------------------------------- */

san_status space_status(int rc, const san_space_opts *o)
{
    switch (rc) {
    case 0:           return SAN_OK;
    case -2:          return SAN_E_MODEL;
    case SPACE_LIMIT: return SAN_E_LIMIT;
    case SPACE_TIME:  return SAN_E_INTERRUPTED;
    default:          return o && o->interrupt && *o->interrupt ? SAN_E_INTERRUPTED
                                                                  : SAN_E_NOMEM;
    }
}

static int space_build(const san_model *m, const san_space_opts *o, san_space *sp,
                       san_diag *d, const space_tuning *t);

void san_space_opts_default(san_space_opts *o)
{
    *o = (san_space_opts){ .struct_size = sizeof *o };
}

int space_opts_foreign(const san_space_opts *o, san_diag *d)
{
    char msg[192];
    if (!BASE_OPTS_FOREIGN(o, "space", "san_space_opts_default", msg, sizeof msg))
        return 0;
    san_diag_add(d, SAN_ERROR, 0, 0, "%s", msg);
    return 1;
}

/* The states' arrays grew by doubling: back to n, as sp->bytes counts
 * them (rs 18/9, 155,382 states in 262,144 places: 1.7 MB held past a
 * --max-memory that counted n). */
static void shrink_states(san_space *sp)
{
    const size_t n = sp->n ? (size_t)sp->n : 1;
    int64_t *ix = realloc(sp->index, n * sizeof *ix);
    sp->index = ix ? ix : sp->index;
    if (sp->exit) {
        double *ex = realloc(sp->exit, n * sizeof *ex);
        sp->exit = ex ? ex : sp->exit;
    }
}

san_status san_space_build(const san_model *m, const san_space_opts *o, san_space *sp,
                           san_diag *d)
{
    return space_build_tuned(m, o, sp, d, NULL);
}

san_status space_build_tuned(const san_model *m, const san_space_opts *o, san_space *sp,
                             san_diag *d, const space_tuning *t)
{
    if (space_opts_foreign(o, d)) {
        memset(sp, 0, sizeof *sp);
        return SAN_E_USAGE;
    }
    return space_status(space_build(m, o, sp, d, t ? t : &space_tuning_default), o);
}

static int space_build(const san_model *m, const san_space_opts *o, san_space *sp, san_diag *d,
                       const space_tuning *t)
{
    memset(sp, 0, sizeof *sp);
    sp->m = m;
    double limit = base_budget(o->max_memory);
    space_rows r = { 0 };
    r.states_only = o->states_only;
    idmap h = { 0 };
    double t0 = san_now();
    int rc = space_rows_reserve_states(&r, 1024);
    if (rc == 0)
        rc = scan_seeds(m, &r, o, limit, d);
    sp->declared = r.n;
    if (rc == 0 && r.n == 0) {
        space_say_no_state(d);
        rc = -2;
    }
    if (rc == 0 && (rc = map_seeds(&h, m, &r, limit)) == -1)
        san_diag_add(d, SAN_ERROR, 0, 0, "out of memory for the state map of %s product states",
                     m->product_str);
    if (rc == 0 && o->states_only && !o->no_arcs && !h.dir)
        keep_arcs(&r);
    if (rc == 0) {
        /* the time limit counts from the start of the build */
        san_space_opts left = *o;
        if (o->time_limit > 0)
            left.time_limit = fmax(o->time_limit - (san_now() - t0), 1e-6);
        rc = space_explore(m, &r, &h, &left, limit, t, &sp->reached_undeclared, d);
    }
    idmap_free(&h);
    if (rc) {
        space_rows_free(&r);
        return rc;
    }
    double t1 = san_now();
    sp->n = r.n;
    sp->index = r.index;
    sp->q.n = r.n;
    sp->q.rowptr = r.rowptr;
    sp->exit = r.exit;
    sp->q.col = r.col;
    sp->q.val = r.val;
    sp->t_explore = t1 - t0;
    sp->t_build = 0;    /* the rows are written during the exploration */
    if (sp->reached_undeclared)
        space_say_undeclared(d, sp->reached_undeclared);
    if (o->states_only) {
        shrink_states(sp);
        sp->nclosed = sp->n;
        sp->in_closed = malloc(sp->n ? sp->n : 1);
        if (!sp->in_closed) {
            space_clear(sp);
            return -1;
        }
        memset(sp->in_closed, 1, sp->n);
        sp->bytes = 17.0 * sp->n;
        return 0;
    }
    if (o->progress) {
        fprintf(stderr, "\r  checking the classes of %lld states   ", (long long)sp->n);
        fflush(stderr);
    }
    san_space_opts left = *o;     /* what is left of the time limit */
    if (o->time_limit > 0)
        left.time_limit = fmax(o->time_limit - (san_now() - t0), 1e-6);
    rc = space_check_classes(sp, &left, d);
    if (o->progress)
        fprintf(stderr, "\r%60s\r", "");
    sp->t_check = san_now() - t1;
    if (rc) {
        space_clear(sp);     /* a failed build leaves nothing to free */
        return rc;
    }
    for (int64_t i = 0; i < sp->n; i++) {
        double q = -sp->q.val[space_diag_pos(&sp->q, i)];
        if (q > sp->max_rate)
            sp->max_rate = q;
    }
    sp->bytes = 16.0 * sp->n + 12.0 * sp->q.rowptr[sp->n] + sp->n + (sp->cls ? 4.0 * sp->n : 0);
    return rc;
}

void space_clear(san_space *sp)
{
    free(sp->index);
    free(sp->exit);
    san_csr_free(&sp->q);
    free(sp->in_closed);
    free(sp->cls);
    memset(sp, 0, sizeof *sp);
}
