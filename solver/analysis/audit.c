/*
 * audit.c - the solve's checks, before solving: `san check` on the
 * reachable states; see san_audit_model (analyze.h).
 *
 * Whether a rate is negative, a probability out of [0, 1], a routing
 * short of 1, depends on the state: `1/(nb down)` is fine until no one
 * is down, `to(++) e(p) to(=) e(1-p)` sums to 1-p at the end of its
 * block, where e may never fire.  The text cannot tell; the reachable
 * states can.  So the states are explored breadth-first from those the
 * reachability function accepts (reach_walk.h, as the solve does), each
 * state's transitions listed by succ.h in its audit mode: a problem is
 * reported (once, at its place in the text, with the first state where
 * it occurs) and the listing goes on past it, so that one pass finds
 * them all.  One thread: the cap keeps this to seconds.
 *
 * The same pass records what fires and what moves, for the warnings the
 * solve would only imply ("2 closed classes", an absorbing answer): a
 * local state that no reachable state leaves, an event that never
 * fires, an automaton that never moves.  They need every reachable
 * state; a capped exploration gives the text's own warnings instead.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/services.h"
#include "solver/space/idmap.h"
#include "solver/space/reach_walk.h"
#include "solver/space/succ.h"
#include "lang/where.h"
#include "lang/model_int.h"

/* Auto: at most this many states, and states times (automata + 8) at
 * most DEFAULT_WORK, so that a model of many automata explores fewer
 * (the pass visits each automaton of each state): a fifth of a second
 * at most (tss.san: 2 10^5 of its 1.8 10^7 states, 0.2 s). */
#define DEFAULT_MAX_STATES 200000
#define DEFAULT_WORK 1e7
/* Auto: transitions listed at most; a state with more than
 * MAX_FANOUT is not explored at all (2^30 outcome combinations of one
 * event would take minutes to list). */
#define DEFAULT_ARCS 2e7
#define MAX_FANOUT 1e6
/* Auto: evaluations of the reachability function spent finding the
 * seeds, at most (a function that accepts a few states of a huge
 * product, with nothing to prune by, is tried state by state). */
#define SCAN_EVALS (1 << 25)
/* Transitions listed at once. */
#define PIECE 65536
/* Distinct problems reported, at most (the rest are counted). */
#define MAX_PROBLEMS 50

typedef struct {
    int kind, line, col;
} problem_key;

typedef struct {
    const san_model *m;
    const san_audit_opts *o;
    san_audit *r;
    san_diag *d;
    double limit;
    succ_ctx c;
    int c_ready;
    space_arcs arcs;
    int *s;
    int64_t *list;          /* states found, breadth-first */
    int64_t n, cap, max;
    double arcs_listed, max_arcs;
    int truncated;          /* a state was left out (max, memory) */
    idmap h;
    problem_key *seen;
    int nseen, capseen, dropped;
    char *fired;            /* per event */
    char *moved;            /* per automaton */
    int64_t *soff;          /* local state (a, ls) at soff[a] + ls */
    char *visited, *left;
    double t0, last;
} audit;

static void audit_free(audit *A)
{
    if (A->c_ready)
        succ_free(&A->c);
    free(A->arcs.v);
    free(A->s);
    free(A->list);
    idmap_free(&A->h);
    free(A->seen);
    free(A->fired);
    free(A->moved);
    free(A->soff);
    free(A->visited);
    free(A->left);
}

/* Has this problem been reported?  Marks it when not.  Replicas share
 * the place of their rate and transitions: one report for them all. */
static int seen_before(audit *A, int kind, int line, int col)
{
    for (int i = 0; i < A->nseen; i++)
        if (A->seen[i].kind == kind && A->seen[i].line == line && A->seen[i].col == col)
            return 1;
    if (A->nseen == A->capseen) {
        int cap = A->capseen ? 2 * A->capseen : 16;
        problem_key *v = realloc(A->seen, cap * sizeof *v);
        if (!v)
            return 1;       /* not reported: the count stays right */
        A->seen = v;
        A->capseen = cap;
    }
    A->seen[A->nseen++] = (problem_key){ kind, line, col };
    return 0;
}

/* succ.h's audit hook: the first time a problem is met. */
static void report(void *ctx, const succ_problem *p, const int *s)
{
    audit *A = ctx;
    int line = 0, col = 0;
    succ_problem_where(A->m, p, &line, &col);
    if (!line) {                /* no place: one report per event */
        line = -1 - p->event;
        col = p->aut;
    }
    if (seen_before(A, p->kind, line, col))
        return;
    if (A->nseen > MAX_PROBLEMS) {
        A->dropped++;
        return;
    }
    char msg[2048];
    succ_problem_text(A->m, p, s, msg, sizeof msg);
    san_diag_add(A->d, SAN_ERROR, line > 0 ? line : 0, line > 0 ? col : 0, "%s", msg);
}

/* ---------------------------------------------------------------- */
/* The states                                                         */
/* ---------------------------------------------------------------- */

static int keep(audit *A, int64_t idx)
{
    if (A->n == A->max) {
        A->truncated = 1;
        return 1;
    }
    if (A->n == A->cap) {
        int64_t cap = A->cap ? 2 * A->cap : 4096;
        if (8.0 * cap + idmap_bytes(&A->h, A->m) > A->limit) {
            A->truncated = 1;
            return 1;
        }
        int64_t *v = realloc(A->list, cap * sizeof *v);
        if (!v)
            return -1;
        A->list = v;
        A->cap = cap;
    }
    A->list[A->n++] = idx;
    return 0;
}

static int seed_take(reach_walk *w, int64_t idx, const int *state)
{
    (void)state;
    return keep(w->ctx, idx);
}

/* A number for idx when it is new and there is room: 0, or -1 (memory). */
static int visit(audit *A, int64_t idx)
{
    if (idmap_find(&A->h, idx) >= 0)
        return 0;
    if (A->n == A->max || (idmap_full(&A->h) && 3.0 * idmap_bytes(&A->h, A->m) > A->limit)) {
        A->truncated = 1;
        return 0;
    }
    int fresh;
    if (idmap_get(&A->h, idx, (int32_t)A->n, &fresh) == -2)
        return -1;
    int rc = keep(A, idx);
    return rc < 0 ? -1 : 0;
}

static void progress(audit *A, int64_t i)
{
    double t = san_now();
    if (t - A->last < 0.5)
        return;
    A->last = t;
    fprintf(stderr, "\r  checking the reachable states: %lld of %lld (%.1f s)   ",
            (long long)i, (long long)A->n, t - A->t0);
    fflush(stderr);
}

/* What state s (index idx) did: the events that fired, the automata
 * that moved and the local states they left. */
static void record(audit *A, const int *s, int64_t idx)
{
    const san_model *m = A->m;
    for (int a = 0; a < m->naut; a++)
        A->visited[A->soff[a] + s[a]] = 1;
    for (int k = 0; k < A->arcs.n; k++) {
        const space_arc *arc = &A->arcs.v[k];
        A->fired[arc->event] = 1;
        if (arc->to == idx)
            continue;
        const lang_event *E = &m->ev[arc->event];
        for (int j = 0; j < E->nparts; j++) {
            int a = E->parts[j];
            if ((int)(arc->to / m->stride[a] % m->aut[a].nstates) != s[a]) {
                A->moved[a] = 1;
                A->left[A->soff[a] + s[a]] = 1;
            }
        }
    }
}

/* The exit rates of one state: beyond the largest double, once (a state
 * listed in pieces is named without its events: succ.h sees one piece). */
static void exit_rate(audit *A, const int *s, int64_t idx, double out, int pieces)
{
    char err[1024], st[512];
    if (out <= DBL_MAX || seen_before(A, -1, 0, 0))
        return;
    if (pieces == 1 && succ_check_exit_rate(&A->c, s, idx, &A->arcs, 0, err, sizeof err) < 0) {
        san_diag_add(A->d, SAN_ERROR, 0, 0, "%s", err);
        return;
    }
    san_state_name(A->m, s, st, sizeof st);
    san_diag_add(A->d, SAN_ERROR, 0, 0, "the rates leaving state (%s) sum beyond the largest "
                 "double (%.3g)", st, DBL_MAX);
}

/* One state's transitions, in pieces of PIECE at most (a state of 2^20
 * outcome combinations stays within memory): recorded, the successors
 * numbered.  0, -1 (memory), 1 (stop: the arcs budget, 2^63 outcomes). */
static int expand(audit *A, int64_t idx)
{
    char err[1024];
    succ_cursor cur = { 0, 0 };
    double out = 0;
    int more = 1, pieces = 0;
    san_state_decode(A->m, idx, A->s);
    while (more) {
        A->arcs.n = 0;
        more = succ_enumerate_part(&A->c, A->s, idx, &cur, PIECE, &A->arcs, err, sizeof err);
        if (more == -1)
            return -1;
        if (more == -2) {       /* past 2^63 combinations: the solve stops too */
            if (!seen_before(A, -2, 0, 0))
                san_diag_add(A->d, SAN_ERROR, 0, 0, "%s", err);
            return 1;
        }
        pieces++;
        A->arcs_listed += A->arcs.n;
        for (int k = 0; k < A->arcs.n; k++)
            out += A->arcs.v[k].to != idx ? A->arcs.v[k].rate : 0;
        record(A, A->s, idx);
        for (int k = 0; k < A->arcs.n; k++)
            if (visit(A, A->arcs.v[k].to) < 0)
                return -1;
        if (A->arcs_listed > A->max_arcs)
            return 1;
    }
    exit_rate(A, A->s, idx, out, pieces);
    return 0;
}

static int explore(audit *A)
{
    for (int64_t i = 0; i < A->n; i++) {
        if (A->o->interrupt && *A->o->interrupt)
            return -1;
        if (A->o->progress && (i & 1023) == 0)
            progress(A, i);
        int rc = expand(A, A->list[i]);
        if (rc < 0)
            return -1;
        if (rc > 0) {
            A->truncated = 1;
            A->n = i + 1;       /* the states checked */
            break;
        }
    }
    if (A->o->progress)
        fprintf(stderr, "\r%70s\r", "");
    return 0;
}

/* ---------------------------------------------------------------- */
/* Warnings                                                           */
/* ---------------------------------------------------------------- */

/* Places already warned about, so that the replicas of one declaration
 * get one warning: a replica's place is most often the last one seen
 * (replicas are consecutive), so that one is looked at first. */
typedef struct {
    int line[4096], col[4096], n;
} places;

static int repeats(places *P, int line, int col)
{
    if (P->n && P->line[P->n - 1] == line && P->col[P->n - 1] == col)
        return 1;
    for (int k = 0; k < P->n; k++)
        if (P->line[k] == line && P->col[k] == col)
            return 1;
    if (P->n < 4096) {
        P->line[P->n] = line;
        P->col[P->n++] = col;
    }
    return 0;
}

/* Events used by some automaton that no reachable state fires, once a
 * declaration: the copies of a replicated one (consecutive, declared at
 * the same place) together, warned about when none of them fires. */
static void warn_events(audit *A, places *P)
{
    const san_model *m = A->m;
    P->n = 0;
    for (int e = 0; e < m->nev;) {
        int line = m->ev[e].line, col = m->ev[e].col, f = e, fired = 0, used = 0;
        for (; f < m->nev && m->ev[f].line == line && m->ev[f].col == col; f++) {
            fired |= A->fired[f];
            used |= m->ev[f].nparts > 0;
        }
        if (!fired && used && !repeats(P, line, col))
            san_diag_add(A->d, SAN_WARNING, line, col, "event '%s' never fires in the %lld "
                         "reachable states (never enabled, or its rate is 0 wherever it is)",
                         m->ev[e].name, (long long)A->n);
        e = f;
    }
}

/* Automata (of more than one state) that keep one state in every
 * reachable state, and local states that, once entered, are never left. */
static void warn_automata(audit *A, places *P)
{
    const san_model *m = A->m;
    P->n = 0;
    for (int a = 0; a < m->naut; a++) {
        int line = 0, col = 0;
        const lang_automaton *M = &m->aut[a];
        if (M->nstates < 2 || A->moved[a])
            continue;
        where_automaton(m, a, &line, &col);
        if (repeats(P, line, col))
            continue;
        int ls = -1, nvisited = 0;
        for (int k = 0; k < M->nstates; k++)
            if (A->visited[A->soff[a] + k] && !nvisited++)
                ls = k;
        if (nvisited == 1)
            san_diag_add(A->d, SAN_WARNING, line, col, "automaton '%s' never moves: it stays "
                         "in state '%s' in every reachable state", M->name, M->states[ls]);
        else
            san_diag_add(A->d, SAN_WARNING, line, col, "automaton '%s' never moves: no "
                         "transition of the reachable states changes its state", M->name);
    }
    P->n = 0;
    for (int a = 0; a < m->naut; a++) {
        const lang_automaton *M = &m->aut[a];
        if (!A->moved[a])
            continue;
        for (int ls = 0; ls < M->nstates; ls++) {
            int line = 0, col = 0;
            if (!A->visited[A->soff[a] + ls] || A->left[A->soff[a] + ls])
                continue;
            where_state(m, a, ls, &line, &col);
            if (repeats(P, line, col))
                continue;
            san_diag_add(A->d, SAN_WARNING, line, col, "state '%s' of '%s' is absorbing: "
                         "no reachable state leaves it (the chain will have an absorbing "
                         "class; a steady state puts all its mass there, or, with several "
                         "closed classes, weighs each by the probability of reaching it)", M->states[ls], M->name);
        }
    }
}

/* Without every reachable state: what the text shows.  Constant routing
 * probabilities that do not sum to 1 from a local state (an error if the
 * event fires there), local states with no transition out. */
static void warn_text(audit *A, places *P)
{
    const san_model *m = A->m;
    P->n = 0;
    for (int a = 0; a < m->naut; a++) {
        const lang_automaton *M = &m->aut[a];
        for (int ls = 0; ls < M->nstates; ls++) {
            int out = 0;
            for (int t = M->first[ls]; t < M->first[ls + 1];) {
                int e = M->tr[t].event, u = t, functional = 0;
                double sum = 0;
                for (; u < M->first[ls + 1] && M->tr[u].event == e; u++) {
                    const san_expr *p = M->tr[u].prob;
                    functional |= p && !san_expr_is_const(p);
                    sum += !p ? 1 : san_expr_is_const(p) ? san_expr_const(p) : 0;
                    out |= M->tr[u].to != ls;
                }
                int line = 0, col = 0;
                if (!functional && fabs(sum - 1) > 1e-9 && m->ev[e].nparts > 0 &&
                    where_trans(m, a, ls, e, &line, &col) &&
                    !seen_before(A, SUCC_PROB_SUM, line, col))
                    san_diag_add(A->d, SAN_WARNING, line, col, "routing probabilities of "
                                 "event '%s' from state '%s' of '%s' sum to %.12g, not 1: an "
                                 "error if '%s' fires there in a reachable state (not "
                                 "checked)", m->ev[e].name, M->states[ls], M->name, sum,
                                 m->ev[e].name);
                t = u;
            }
            int line = 0, col = 0;
            if (!out && M->nstates > 1 && where_state(m, a, ls, &line, &col) &&
                !repeats(P, line, col))
                san_diag_add(A->d, SAN_WARNING, line, col, "state '%s' of '%s' has no "
                             "transition to another state: absorbing if reached",
                             M->states[ls], M->name);
        }
    }
}

/* ---------------------------------------------------------------- */
/* The audit                                                          */
/* ---------------------------------------------------------------- */

static int64_t state_cap(const san_model *m, const san_audit_opts *o)
{
    if (o->explore == SAN_EXPLORE_ALWAYS)
        return INT32_MAX - 1;
    if (o->max_states > 0)
        return o->max_states < INT32_MAX - 1 ? o->max_states : INT32_MAX - 1;
    double k = DEFAULT_WORK / (m->naut + 8.0);
    return k < DEFAULT_MAX_STATES ? (int64_t)k : DEFAULT_MAX_STATES;
}

static int setup(audit *A)
{
    const san_model *m = A->m;
    A->s = calloc(m->naut + 1, sizeof *A->s);
    A->fired = calloc(m->nev + 1, 1);
    A->moved = calloc(m->naut + 1, 1);
    A->soff = malloc((m->naut + 1) * sizeof *A->soff);
    if (!A->s || !A->fired || !A->moved || !A->soff)
        return -1;
    A->soff[0] = 0;
    for (int a = 0; a < m->naut; a++)
        A->soff[a + 1] = A->soff[a] + m->aut[a].nstates;
    A->visited = calloc(A->soff[m->naut] + 1, 1);
    A->left = calloc(A->soff[m->naut] + 1, 1);
    if (!A->visited || !A->left || succ_init(&A->c, m) < 0)
        return -1;
    A->c_ready = 1;
    A->c.report = report;
    A->c.report_ctx = A;
    return 0;
}

/* The seeds (the states the reachability function accepts, up to the
 * cap) and the map: 0, 1 when none is accepted, 2 when none was found
 * within the evaluations auto allows, -1. */
static int seeds(audit *A)
{
    reach_walk w = { .m = A->m, .take = seed_take, .ctx = A,
                     .max_evals = A->o->explore == SAN_EXPLORE_AUTO ? SCAN_EVALS : 0 };
    int rc = reach_walk_run(&w);
    if (rc == -3)
        A->truncated = 1;
    else if (rc < 0)
        return -1;
    if (A->n == 0)
        return rc == -3 ? 2 : 1;
    if (idmap_init(&A->h, A->m, A->m->partial || A->truncated ? 0 : (double)A->n, A->limit) < 0)
        return -1;
    for (int64_t i = 0; i < A->n; i++) {
        int fresh;
        if (idmap_get(&A->h, A->list[i], (int32_t)i, &fresh) == -2)
            return -1;
    }
    return 0;
}

static int run(audit *A)
{
    const san_model *m = A->m;
    san_audit *r = A->r;
    if (A->o->explore == SAN_EXPLORE_NEVER) {
        snprintf(r->why, sizeof r->why, "--explore never");
        return 0;
    }
    if (!m->product_fits) {
        snprintf(r->why, sizeof r->why, "the product space (%s states) does not fit in 64 "
                 "bits", m->product_str);
        return 0;
    }
    int ev;
    double ev_fanout, fanout = succ_fanout(m, &ev, &ev_fanout);
    if (A->o->explore == SAN_EXPLORE_AUTO && fanout > MAX_FANOUT) {
        snprintf(r->why, sizeof r->why, "one state can have up to %.3g transitions (event "
                 "'%s': %.3g outcomes); --explore always lists them", fanout, ev >= 0 ? m->ev[ev].name : "?", ev_fanout);
        return 0;
    }
    if (setup(A) < 0)
        return -1;
    int rc = seeds(A);
    if (rc < 0)
        return -1;
    if (rc == 1) {              /* the solve stops there */
        int line = 0, col = 0;
        where_reach(m, &line, &col);
        snprintf(r->why, sizeof r->why, "the reachability function accepts no state");
        san_diag_add(A->d, SAN_ERROR, line, col, "the reachability function accepts no state");
        return 0;
    }
    if (rc > 0) {
        snprintf(r->why, sizeof r->why, "the reachability function accepted none of the "
                 "states tried; --explore always scans them all");
        return 0;
    }
    r->explored = 1;
    if (explore(A) < 0)
        return -1;
    r->states = A->n;
    r->complete = !A->truncated;
    if (!r->complete)
        snprintf(r->why, sizeof r->why, "the first %lld, breadth-first from the states the "
                 "reachability function accepts (%s; --explore always checks them all)", (long long)A->n,
                 A->arcs_listed > A->max_arcs ? "the cap of --explore auto on transitions"
                 : A->n == A->max ? "the cap of --explore auto" : "the memory limit");
    return 0;
}

san_status san_audit_model(const san_model *m, const san_audit_opts *o, san_audit *r,
                           san_diag *d)
{
    memset(r, 0, sizeof *r);
    char msg[192];
    if (BASE_OPTS_FOREIGN(o, "audit", "san_audit_opts_default", msg, sizeof msg)) {
        san_diag_add(d, SAN_ERROR, 0, 0, "%s", msg);
        return SAN_E_USAGE;
    }
    audit A;
    memset(&A, 0, sizeof A);
    A.m = m;
    A.o = o;
    A.r = r;
    A.d = d;
    A.limit = base_budget(o->max_memory);
    A.max = state_cap(m, o);
    A.max_arcs = o->explore == SAN_EXPLORE_ALWAYS ? INFINITY : DEFAULT_ARCS;
    A.t0 = A.last = san_now();
    places *P = malloc(sizeof *P);
    int rc = P ? run(&A) : -1;
    if (rc == 0 && r->complete) {
        warn_events(&A, P);
        warn_automata(&A, P);
    } else if (rc == 0) {
        warn_text(&A, P);
    }
    if (rc == 0 && A.dropped)
        san_diag_add(d, SAN_ERROR, 0, 0, "%d more problems of rates or routing are not "
                     "listed", A.dropped);
    if (o->progress && r->explored)
        fprintf(stderr, "\r%70s\r", "");
    free(P);
    audit_free(&A);
    return rc < 0 ? SAN_E_NOMEM : SAN_OK;
}
