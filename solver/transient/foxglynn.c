/*
 * foxglynn.c - Poisson weights with truncation bounds, in the manner of
 * Fox and Glynn, "Computing Poisson probabilities", CACM 31(4) 1988:
 * start at the mode m = floor(lambda) with an arbitrary weight, go
 * outwards by the ratios of consecutive probabilities, stop each side
 * where a rigorous bound of its tail's mass is small enough, and
 * normalize by the sum of what was kept.  Written from that description.
 *
 * The bounds used here are geometric, not the paper's normal-tail
 * corollaries (which need lambda >= 25 and a separate treatment below):
 *   left:  for k <= L-1 < lambda, p(k-1)/p(k) = k/lambda <= (L-1)/lambda,
 *          so the mass below L is at most p(L-1) / (1 - (L-1)/lambda);
 *   right: for k >= R+1 > lambda - 1, p(k+1)/p(k) = lambda/(k+1) <=
 *          lambda/(R+2), so the mass above R is at most
 *          p(R+1) / (1 - lambda/(R+2)).
 * Both hold for every lambda and are within a small factor of the true
 * tails where it matters (past one standard deviation the ratio is
 * already below 1 - 1/sqrt(lambda)), so the kept range is O(sqrt(lambda
 * log(1/eps))) as in the paper: lambda = 1e6, eps = 1e-12 keeps 14,267
 * weights, mode -7,125 to +7,141 (measured, tests/unit/test_foxglynn.c),
 * where a normal approximation puts 1e-12 of the mass outside +-7.13
 * standard deviations (+-7,130): the bounds cost almost nothing.
 *
 * The mode gets weight 1: the other weights are smaller, and the
 * smallest kept is above eps / (R - L + 1) of the largest (else its side
 * would have stopped earlier), so neither overflow nor underflow can
 * occur for eps >= 1e-290, which is the paper's concern with scaling.
 * The sum is taken from the ends inwards (smallest terms first).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "solver/transient/transient.h"

typedef struct {
    double *v;
    int64_t n, cap;
} dvec;

static int dvec_push(dvec *a, double x)
{
    if (a->n == a->cap) {
        int64_t cap = a->cap ? 2 * a->cap : 64;
        double *p = realloc(a->v, cap * sizeof *p);
        if (!p)
            return -1;
        a->v = p;
        a->cap = cap;
    }
    a->v[a->n++] = x;
    return 0;
}

/* Bound of the mass below left (weights relative to the mode's 1):
 * wl is the weight of `left`. */
static double left_tail(double lambda, int64_t left, double wl)
{
    if (left <= 0)
        return 0;
    double below = wl * (double)left / lambda;     /* weight of left - 1 */
    double r = (double)(left - 1) / lambda;
    return below / (1 - r);
}

/* Bound of the mass above right: wr is the weight of `right`. */
static double right_tail(double lambda, int64_t right, double wr)
{
    double above = wr * lambda / (double)(right + 1);   /* weight of right + 1 */
    double s = lambda / (double)(right + 2);
    return above / (1 - s);
}

/* The walk outwards: weights of mode-1, mode-2, ... in *lw, of mode,
 * mode+1, ... in *rw, until the tails' bound is at most eps of the kept
 * sum (a running sum: the exact one is taken after, smallest first). */
static int walk(double lambda, double eps, dvec *lw, dvec *rw, double *trunc)
{
    const int64_t mode = (int64_t)floor(lambda);
    double kept = 1, wl = 1, wr = 1;
    int64_t left = mode, right = mode;
    if (dvec_push(rw, 1) < 0)
        return -1;
    for (;;) {
        double tl = left_tail(lambda, left, wl), tr = right_tail(lambda, right, wr);
        if (tl + tr <= eps * kept) {
            *trunc = (tl + tr) / kept;
            return 0;
        }
        if (tl >= tr) {         /* extend the side with the larger tail */
            wl *= (double)left / lambda;
            left--;
            kept += wl;
            if (dvec_push(lw, wl) < 0)
                return -1;
        } else {
            wr *= lambda / (double)(right + 1);
            right++;
            kept += wr;
            if (dvec_push(rw, wr) < 0)
                return -1;
        }
    }
}

static int valid(double lambda, double eps)
{
    return isfinite(lambda) && lambda >= 0 && eps > 0 && eps < 0.5 && lambda < 1e15;
}

int tr_fg_compute(double lambda, double eps, tr_fg *fg)
{
    memset(fg, 0, sizeof *fg);
    fg->lambda = lambda;
    if (!valid(lambda, eps))
        return -1;
    if (lambda == 0) {          /* no time: the point mass at 0 */
        fg->w = malloc(sizeof *fg->w);
        if (!fg->w)
            return -1;
        fg->w[0] = 1;
        return 0;
    }
    dvec lw = { 0 }, rw = { 0 };
    double trunc = 0;
    if (walk(lambda, eps, &lw, &rw, &trunc) < 0) {
        free(lw.v);
        free(rw.v);
        return -1;
    }
    const int64_t mode = (int64_t)floor(lambda), n = lw.n + rw.n;
    fg->left = mode - lw.n;
    fg->right = mode + rw.n - 1;
    fg->trunc = trunc;
    fg->w = malloc(n * sizeof *fg->w);
    if (!fg->w) {
        free(lw.v);
        free(rw.v);
        return -1;
    }
    for (int64_t i = 0; i < lw.n; i++)     /* lw runs from the mode down */
        fg->w[lw.n - 1 - i] = lw.v[i];
    memcpy(fg->w + lw.n, rw.v, rw.n * sizeof *rw.v);
    double s = 0;
    for (int64_t i = 0; i < lw.n; i++)     /* smallest first on each side */
        s += fg->w[i];
    double sr = 0;
    for (int64_t i = n - 1; i >= lw.n; i--)
        sr += fg->w[i];
    s += sr;
    for (int64_t i = 0; i < n; i++)
        fg->w[i] /= s;
    free(lw.v);
    free(rw.v);
    return 0;
}

int64_t tr_fg_right(double lambda, double eps, double *trunc)
{
    tr_fg fg;
    if (tr_fg_compute(lambda, eps, &fg) < 0)
        return -1;
    if (trunc)
        *trunc = fg.trunc;
    int64_t r = fg.right;
    tr_fg_free(&fg);
    return r;
}

void tr_fg_free(tr_fg *fg)
{
    free(fg->w);
    memset(fg, 0, sizeof *fg);
}
