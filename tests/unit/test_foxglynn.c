/*
 * test_foxglynn.c - the Poisson weights of solver/transient/foxglynn.c
 * against the exact probabilities (from lgamma): the truncation bound
 * reported covers the mass really left out, and every kept weight is the
 * Poisson probability renormalized over the kept range.
 */
#define _USE_MATH_DEFINES
#include <math.h>
#include <stdio.h>
#include "tests/unit/check.h"
#include "solver/transient/transient.h"

/* log Poisson(k; lambda).  k ln(lambda) - lambda - lgamma(k + 1) loses
 * ~1e-9 to cancellation at lambda = 1e6 (terms of 1e7): past k = 100 it
 * is written as -k log1p((lambda - k)/k)... with Stirling's series for
 * log k!, whose first omitted term is below 1e-17 there. */
static double log_poisson(double lambda, int64_t k)
{
    const double x = (double)k;
    if (k < 100)
        return x * log(lambda) - lambda - lgamma(x + 1);
    /* k ln(lambda/k) + k - lambda, from log1p of a small argument */
    double d = (lambda - x) / x;
    double main = x * log1p(d) - (lambda - x);
    double corr = 1 / (12 * x) - 1 / (360 * x * x * x) + 1 / (1260 * x * x * x * x * x)
                  - 1 / (1680 * pow(x, 7));
    return main - 0.5 * log(2 * M_PI * x) - corr;
}

static double poisson(double lambda, int64_t k)
{
    if (lambda == 0)
        return k == 0;
    return exp(log_poisson(lambda, k));
}

/* The exact mass outside [left, right]: 1 - the mass inside, the inside
 * summed smallest first. */
static double outside(double lambda, const tr_fg *fg)
{
    double in = 0;
    for (int64_t k = fg->left; k <= fg->right; k++)
        in += poisson(lambda, k);
    return fmax(0, 1 - in);
}

static void one(double lambda, double eps)
{
    tr_fg fg;
    CHECK(tr_fg_compute(lambda, eps, &fg) == 0, "lambda %g eps %g: computed", lambda, eps);
    if (!fg.w)
        return;
    CHECK(fg.trunc <= eps, "lambda %g: bound %g <= eps %g", lambda, fg.trunc, eps);
    CHECK(fg.left <= (int64_t)lambda && (int64_t)lambda <= fg.right, "lambda %g: mode kept",
          lambda);
    /* roundoff: the weights are products of up to ~10 sqrt(lambda)
     * ratios, each rounded */
    double rtol = 1e-13 + 1e-15 * sqrt(lambda) * 10;
    double out = outside(lambda, &fg);
    CHECK(out <= fg.trunc * (1 + 1e-6) + rtol, "lambda %g eps %g: mass outside %g within the "
          "bound %g", lambda, eps, out, fg.trunc);
    double worst = 0, sum = 0;
    for (int64_t k = fg.left; k <= fg.right; k++) {
        double p = poisson(lambda, k), w = fg.w[k - fg.left];
        sum += w;
        if (p > 1e-300)
            worst = fmax(worst, fabs(w / p - 1));
    }
    CHECK(worst <= fg.trunc + rtol, "lambda %g eps %g: weights within %g relative (bound %g)",
          lambda, eps, worst, fg.trunc + rtol);
    CHECK(fabs(sum - 1) < 1e-14, "lambda %g: weights sum to 1 (%.17g)", lambda, sum);
    tr_fg_free(&fg);
}

int main(void)
{
    const double lambdas[] = { 0, 1e-9, 0.3, 1, 2.5, 24.9, 25, 100, 745.5, 1e4, 1e6 };
    const double epss[] = { 1e-3, 1e-8, 1e-13 };
    for (size_t i = 0; i < sizeof lambdas / sizeof *lambdas; i++)
        for (size_t j = 0; j < sizeof epss / sizeof *epss; j++)
            one(lambdas[i], epss[j]);
    /* the range is O(sqrt(lambda)): the measurement foxglynn.c quotes */
    tr_fg fg;
    tr_fg_compute(1e6, 1e-12, &fg);
    printf("lambda 1e6, eps 1e-12: %lld weights [%lld, %lld], bound %.3g\n",
           (long long)(fg.right - fg.left + 1), (long long)fg.left, (long long)fg.right,
           fg.trunc);
    CHECK(fg.right - fg.left + 1 < 20 * 1000, "lambda 1e6: O(sqrt(lambda)) weights");
    tr_fg_free(&fg);
    CHECK(tr_fg_compute(-1, 1e-10, &fg) < 0, "negative lambda refused");
    CHECK(tr_fg_compute(NAN, 1e-10, &fg) < 0, "NaN refused");
    CHECK(tr_fg_compute(1, 0, &fg) < 0, "eps 0 refused");
    printf("%d passed, %d failed\n", n_pass, n_fail);
    return n_fail > 0;
}
