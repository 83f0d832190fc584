/*
 * test_storage_choice.c - --storage auto's rule on sizes alone
 * (solver/analysis/storage_choice.c): each branch from synthetic
 * predictions, the edges of the constants, the same answer every time
 * for the same sizes, and the cost model's monotony and its tss9 figures.
 */
#include <math.h>
#include <string.h>
#include "tests/unit/check.h"
#include "san.h"
#include "solver/analysis/storage_choice.h"

static san_storage_choice pick(double ts, double ms, double tk, double mk, double budget)
{
    san_storage_choice c;
    memset(&c, 0, sizeof c);
    c.states = 1;
    c.t_sparse = ts, c.m_sparse = ms, c.t_kron = tk, c.m_kron = mk, c.budget = budget;
    storage_rule(&c);
    return c;
}

static void check_pick(double ts, double ms, double tk, double mk, double budget,
                       san_storage want, san_storage_rule rule, const char *what)
{
    san_storage_choice c = pick(ts, ms, tk, mk, budget);
    CHECK(c.pick == want && c.rule == rule, "%s: got %s by %s", what,
          c.pick == SAN_STORAGE_KRON ? "kron" : "sparse", san_storage_rule_name(c.rule));
    /* the same sizes, the same answer */
    san_storage_choice d = pick(ts, ms, tk, mk, budget);
    CHECK(d.pick == c.pick && d.rule == c.rule, "%s: not deterministic", what);
}

static void rule_branches(void)
{
    const double G = 1e9, S = STORAGE_MEM_SHARE;
    /* faster and not 3x bigger: the faster */
    check_pick(10, 2 * G, 12, 1 * G, 100 * G, SAN_STORAGE_SPARSE, SAN_PICK_FASTER, "sparse faster");
    check_pick(12, 1 * G, 10, 2 * G, 100 * G, SAN_STORAGE_KRON, SAN_PICK_FASTER, "kron faster");
    /* kron within the slack and 3x smaller: kron */
    check_pick(10, 3 * G, 10 * STORAGE_TIME_SLACK, 1 * G, 100 * G, SAN_STORAGE_KRON,
               SAN_PICK_SMALLER, "kron at the slack, 3x smaller");
    check_pick(10, 3 * G, 10 * STORAGE_TIME_SLACK * 1.001, 1 * G, 100 * G, SAN_STORAGE_SPARSE,
               SAN_PICK_FASTER, "kron past the slack");
    check_pick(10, 2.99 * G, 11, 1 * G, 100 * G, SAN_STORAGE_SPARSE, SAN_PICK_FASTER,
               "kron under 3x smaller");
    /* and the other way round */
    check_pick(14, 1 * G, 10, 3 * G, 100 * G, SAN_STORAGE_SPARSE, SAN_PICK_SMALLER,
               "sparse nearly as fast, 3x smaller");
    /* equal times: sparse */
    check_pick(10, 1 * G, 10, 1 * G, 100 * G, SAN_STORAGE_SPARSE, SAN_PICK_FASTER, "a tie");
    /* one fits the share of the budget */
    check_pick(10, 9 * G, 30, 1 * G, 10 * G, SAN_STORAGE_KRON, SAN_PICK_FITS, "sparse over 0.8");
    check_pick(10, S * 10 * G, 30, 1 * G, 10 * G, SAN_STORAGE_SPARSE, SAN_PICK_FASTER,
               "sparse at the share exactly");
    check_pick(30, 1 * G, 10, 9 * G, 10 * G, SAN_STORAGE_SPARSE, SAN_PICK_FITS, "kron over 0.8");
    /* neither: the smaller */
    check_pick(10, 20 * G, 30, 12 * G, 10 * G, SAN_STORAGE_KRON, SAN_PICK_NEITHER, "neither");
    check_pick(10, 12 * G, 30, 20 * G, 10 * G, SAN_STORAGE_SPARSE, SAN_PICK_NEITHER,
               "neither, sparse smaller");
}

static san_storage_choice predicted(double n, double nnz, double kron_bytes)
{
    san_storage_choice c;
    memset(&c, 0, sizeof c);
    c.states = n, c.nonzeros = nnz, c.kron_bytes = kron_bytes, c.budget = 16e9;
    storage_predict(&c);
    storage_rule(&c);
    return c;
}

static void cost_model(void)
{
    /* tss9 (--lump off): 1,987,983 states, 23,816,330 nonzeros, the
     * descriptor's estimate 185 MiB: near idle sparse 13.2 s / 989 MB,
     * kron 17.5 s / 257 MB (within 25% and 15% here) */
    san_storage_choice c = predicted(1987983, 23816330, 194295740);
    CHECK(fabs(c.t_sparse / 13.2 - 1) < 0.25 && fabs(c.t_kron / 17.5 - 1) < 0.25,
          "tss9 times %.3g %.3g", c.t_sparse, c.t_kron);
    CHECK(fabs(c.m_sparse / 989e6 - 1) < 0.15 && fabs(c.m_kron / 257e6 - 1) < 0.15,
          "tss9 memory %.3g %.3g", c.m_sparse, c.m_kron);
    CHECK(c.pick == SAN_STORAGE_KRON && c.rule == SAN_PICK_SMALLER, "tss9: kron, the smaller");
    /* more of everything costs more */
    san_storage_choice d = predicted(2 * 1987983, 2 * 23816330, 2 * 194295740);
    CHECK(d.t_sparse > c.t_sparse && d.t_kron > c.t_kron && d.m_sparse > c.m_sparse &&
          d.m_kron > c.m_kron, "twice the sizes");
    /* the text names the pick first */
    char why[256];
    san_storage_choice_text(&c, why, sizeof why);
    CHECK(!strncmp(why, "kron, the smaller", 17), "text: %s", why);
    c.rule = SAN_PICK_NONE;
    CHECK(san_storage_choice_text(&c, why, sizeof why)[0] == '\0', "no rule, no text");
}

int main(void)
{
    rule_branches();
    cost_model();
    printf("%d passed, %d failed\n", n_pass, n_fail);
    return n_fail > 0;
}
