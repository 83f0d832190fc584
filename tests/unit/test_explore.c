/*
 * test_explore.c - the exploration's bounded batches and its pieces
 * (solver/space/explore.c) give the same state space as the plain
 * breadth-first search.
 *
 * The batches of the exploration are cut where a worker's quota of
 * transitions is spent, and a state with more transitions than a whole
 * quota is expanded alone, in pieces, its successors numbered piece by
 * piece and its row merged as it grows.  On the models here the
 * default quotas (thousands of transitions) never cut anything; the
 * tunings below shrink them to 1, 7 and 100 transitions, so that every
 * state goes through the pieces, or every batch is cut, or both.  The
 * space built must be the same: the same states in the same order (the
 * numbering is breadth-first whatever the batches), the same rows of Q
 * (columns exactly, values to roundoff: duplicates are summed in
 * another order), the same exit rates over the descriptor's path.
 *
 * The models: N replicas routing 0.5/0.5 on one synchronizing event
 * (2^N successors a state, all distinct), from every state or from one
 * (partial reachability: every successor is new, numbered in the
 * pieces), and replicas whose routing repeats a destination and loops
 * back (duplicate successors and self-loops merged across pieces),
 * with a local event beside.  Exit status 0 when every check passes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "san.h"
#include "solver/space/state_space.h"

#include "tests/unit/check.h"
#include "tests/unit/model_text.h"
#include "solver/space/space_int.h"

/* N replicas, one synchronizing event, a 0.5/0.5 routing each. */
static char *fanout_model(int n, int partial)
{
    char *t = malloc(1024);
    snprintf(t, 1024,
             "identifiers\n  R = [0..%d];\n  h = 0.5;\nevents\n  syn go (1)\n"
             "%s;\nnetwork fan (continuous)\n  aut P[R]\n"
             "    stt a to(a) go(h) to(b) go(h)\n    stt b to(a) go(h) to(b) go(h)\n"
             "results\n  pb = nb b;\n",
             n - 1, partial ? "partial reachability = nb b == 0" : "reachability = 1");
    return t;
}

/* Routing outcomes that repeat a destination and stay put, a local
 * event besides. */
static char *duplicates_model(int n)
{
    char *t = malloc(1024);
    snprintf(t, 1024,
             "identifiers\n  R = [0..%d];\nevents\n  syn go (2)\n  loc back (1)\n"
             "partial reachability = nb b == 0;\nnetwork dup (continuous)\n  aut P[R]\n"
             "    stt a to(b) go(0.3) to(b) go(0.2) to(a) go(0.5)\n"
             "    stt b to(a) back to(b) go(1)\n"
             "results\n  pb = nb b;\n",
             n - 1);
    return t;
}

static int build(const san_model *m, int states_only, const space_tuning *t, san_space *sp)
{
    san_space_opts o;
    san_space_opts_default(&o);
    o.states_only = states_only;
    o.no_arcs = 1;
    san_diag d;
    san_diag_init(&d, "test", NULL, 0);
    san_status st = space_build_tuned(m, &o, sp, &d, t);
    if (st != SAN_OK)
        san_diag_print(&d, stderr, 0);
    san_diag_clear(&d);
    return st;
}

static int close_to(double a, double b)
{
    return fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b)) + 1e-300;
}

/* The same states in the same order, the same rows (or exit rates). */
static void same_space(const char *what, const san_space *a, const san_space *b)
{
    int ok = a->n == b->n;
    for (int64_t i = 0; ok && i < a->n; i++)
        ok = a->index[i] == b->index[i];
    CHECK(ok, "%s: states differ (%lld against %lld states)", what, (long long)b->n,
          (long long)a->n);
    if (!ok)
        return;
    if (a->exit) {
        for (int64_t i = 0; ok && i < a->n; i++)
            ok = b->exit && close_to(a->exit[i], b->exit[i]);
        CHECK(ok, "%s: exit rates differ", what);
        return;
    }
    for (int64_t i = 0; ok && i <= a->n; i++)
        ok = a->q.rowptr[i] == b->q.rowptr[i];
    CHECK(ok, "%s: row lengths differ", what);
    for (int64_t p = 0; ok && p < a->q.rowptr[a->n]; p++)
        ok = a->q.col[p] == b->q.col[p] && close_to(a->q.val[p], b->q.val[p]);
    CHECK(ok, "%s: rows differ", what);
}

static void one_model(const char *name, char *text)
{
    san_model *m = test_model(name, text);
    free(text);
    if (!m)
        return;
    static const space_tuning tunings[] = { { 1, 1 }, { 7, 7 }, { 100, 100 } };
    for (int states_only = 0; states_only < 2; states_only++) {
        san_space ref;
        int st = build(m, states_only, NULL, &ref);
        CHECK(st == SAN_OK, "%s: default build: status %d", name, st);
        if (st != SAN_OK)
            continue;
        for (size_t k = 0; k < sizeof tunings / sizeof *tunings; k++) {
            char what[256];
            snprintf(what, sizeof what, "%s, %s, quota %lld", name,
                     states_only ? "states only" : "sparse", (long long)tunings[k].quota_max);
            san_space sp;
            st = build(m, states_only, &tunings[k], &sp);
            CHECK(st == SAN_OK, "%s: status %d", what, st);
            if (st == SAN_OK) {
                same_space(what, &ref, &sp);
                space_clear(&sp);
            }
        }
        printf("  %-28s %-12s %6lld states: same under every quota\n", name,
               states_only ? "states only" : "sparse", (long long)ref.n);
        space_clear(&ref);
    }
    san_model_free(m);
}

int main(void)
{
    one_model("fan-out N=8", fanout_model(8, 0));
    one_model("fan-out N=9 partial", fanout_model(9, 1));
    one_model("duplicates N=6", duplicates_model(6));
    printf("%d passed, %d failed\n", n_pass, n_fail);
    return n_fail > 0;
}
