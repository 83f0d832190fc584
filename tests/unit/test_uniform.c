/*
 * test_uniform.c - the divergence guard of solver/transient/uniform.c:
 * a step of P = I + Q/L must leave a distribution a distribution.  Its
 * callers now choose L above every exit rate, so the guard cannot be
 * met through the command line: it is met here with a rate set too low
 * on purpose, and with an operator that is not a generator (its rows
 * make mass), beside a right run against the closed form.
 *
 * The chain: two states, 0 -> 1 at a = 3, 1 -> 0 at b = 1.5; from state
 * 0, P(0, t) = b/(a+b) + a/(a+b) e^{-(a+b) t}.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/check.h"
#include "solver/transient/transient.h"

/* The transposed generator of the chain (rows: destinations), with
 * `extra` added to the diagonal (extra > 0: not a generator). */
static void two_state(double a, double b, double extra, san_csr *qt, int64_t *rp, int32_t *col,
                      double *val)
{
    /* qt[j][i] = q_ij: row 0 holds q_00, q_10; row 1 holds q_01, q_11 */
    rp[0] = 0;
    rp[1] = 2;
    rp[2] = 4;
    col[0] = 0;
    val[0] = -a + extra;
    col[1] = 1;
    val[1] = b;
    col[2] = 0;
    val[2] = a;
    col[3] = 1;
    val[3] = -b + extra;
    *qt = (san_csr){ 2, rp, col, val };
}

/* x from (1, 0) over t at rate L; returns tr_unif_advance's code. */
static int advance(double a, double b, double extra, double rate, double t, double *x,
                   tr_unif *out)
{
    san_csr qt;
    int64_t rp[3];
    int32_t col[4];
    double val[4];
    two_state(a, b, extra, &qt, rp, col, val);
    num_op op;
    num_op_csr(&op, &qt, fmax(a, b));
    double v[2], y[2], acc[2];
    tr_unif u = { .op = &op, .rate = rate, .eps = 1e-13, .v = v, .y = y, .acc = acc,
                   .ss_at = -1 };
    x[0] = 1;
    x[1] = 0;
    int rc = tr_unif_advance(&u, x, t);
    *out = u;
    return rc;
}

int main(void)
{
    const double a = 3, b = 1.5, t = 0.7;
    double x[2];
    tr_unif u;

    /* the rate above both exit rates: the closed form, no alarm */
    int rc = advance(a, b, 0, 3 * (1 + 1.0 / 64), t, x, &u);
    const double want = b / (a + b) + a / (a + b) * exp(-(a + b) * t);
    CHECK(rc == 0 && !u.diverged, "right rate: no alarm (rc %d)", rc);
    CHECK(fabs(x[0] - want) <= 1e-12 && fabs(x[0] + x[1] - 1) <= 1e-12,
          "right rate: P(0, t) %.17g vs %.17g", x[0], want);

    /* the rate below state 0's exit rate 3: P has 1 - 3/1.5 = -1 on its
     * diagonal, the first step makes an entry of -1 */
    rc = advance(a, b, 0, 1.5, t, x, &u);
    CHECK(rc == SAN_UNIF_DIVERGED && u.diverged, "rate below an exit rate: the guard (rc %d)",
          rc);
    CHECK(u.diverged_at == 1 && u.bad_min < -0.5, "the guard at the first product (%ld), "
          "the entry it saw %g", u.diverged_at, u.bad_min);
    CHECK(x[0] == 1 && x[1] == 0, "x left as it was on the alarm");
    char msg[512];
    tr_unif_diverged_text(&u, msg, sizeof msg);
    CHECK(strstr(msg, "exit rate") != NULL, "the message names the cause: %s", msg);

    /* not a generator: the rows make mass (+0.5 on the diagonal), every
     * entry stays positive and only the total shows it */
    rc = advance(a, b, 0.5, 3.5, t, x, &u);
    CHECK(rc == SAN_UNIF_DIVERGED && u.bad_mass > 1 && u.bad_min >= 0,
          "mass made: the guard on the total (rc %d, mass %.17g)", rc, u.bad_mass);

    /* the mean's series goes through the same step */
    san_csr qt;
    int64_t rp[3];
    int32_t col[4];
    double val[4];
    two_state(a, b, 0, &qt, rp, col, val);
    num_op op;
    num_op_csr(&op, &qt, 3);
    double v[2], y[2], acc[2], xm[2], mean, reach, h[2];
    const char absorb[2] = { 0, 1 };
    tr_unif um = { .op = &op, .rate = 1, .eps = 1e-13, .v = v, .y = y, .acc = acc, .xm = xm,
                    .absorb = absorb, .ss_at = -1 };
    const double x0[2] = { 1, 0 };
    rc = tr_unif_mean(&um, x0, 1e-12, 1e6, &mean, &reach, h);
    CHECK(rc == SAN_UNIF_DIVERGED, "mean series, rate 1 below 3: the guard (rc %d)", rc);
    um.rate = 3 * (1 + 1.0 / 64);
    um.diverged = 0;
    um.steps = 0;
    rc = tr_unif_mean(&um, x0, 1e-12, 1e6, &mean, &reach, h);
    CHECK(rc == 0 && fabs(mean - 1 / a) <= 1e-11 && fabs(reach - 1) <= 1e-12,
          "mean series, right rate: %.17g vs 1/3, reach %.17g", mean, reach);
    printf("%d passed, %d failed\n", n_pass, n_fail);
    return n_fail > 0;
}
