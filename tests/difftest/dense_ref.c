/*
 * dense_ref.c - the stationary distribution of a small CTMC by GTH
 * (Grassmann-Taksar-Heyman) elimination, in long double: the reference
 * of tests/difftest/difftest.py.  It shares no code with libsan on purpose.
 *
 * Input (stdin):  n
 *                 i j rate        (one off-diagonal rate a line; 0-based,
 *                 ...              i != j; duplicates add up)
 * Output (stdout): pi_0 .. pi_{n-1}, one per line (%.21Lg).
 *
 * GTH is Gaussian elimination on the generator in which every pivot is
 * computed as the sum of the off-diagonal rates of its row instead of
 * from the diagonal: no subtraction ever happens, so each probability is
 * computed to a relative accuracy of a modest multiple of n * epsilon,
 * however stiff the chain (rates 1e-8 .. 1e8 are fine).
 *
 * The chain must be irreducible: checked first (every state reaches
 * state 0 and is reached from it), and then again through the pivots
 * (a zero pivot sum means a state that reaches no lower one).  Either
 * failure is reported on stderr with exit status 1.
 *
 * Dense: n^2 long doubles and O(n^3) operations, meant for n up to a
 * few thousand.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define A(i, j) a[(size_t)(i) * (size_t)n + (size_t)(j)]

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "dense_ref: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

/* Marks in seen[] the states reachable from state 0, following the
 * rates a(i,j) > 0 forward (backward = 0) or backward (backward = 1). */
static long reach_from_0(const long double *a, long n, int backward, char *seen, long *stack)
{
    long top = 0, count = 1;
    memset(seen, 0, (size_t)n);
    seen[0] = 1;
    stack[top++] = 0;
    while (top > 0) {
        long u = stack[--top];
        for (long v = 0; v < n; v++) {
            long double r = backward ? A(v, u) : A(u, v);
            if (v != u && r > 0 && !seen[v]) {
                seen[v] = 1;
                stack[top++] = v;
                count++;
            }
        }
    }
    return count;
}

int main(void)
{
    long n;
    if (scanf("%ld", &n) != 1 || n < 1 || n > 20000)
        die("expected the number of states (1..20000) on the first line");
    long double *a = calloc((size_t)n * (size_t)n, sizeof *a);
    long double *pi = calloc((size_t)n, sizeof *pi);
    char *seen = malloc((size_t)n);
    long *stack = malloc((size_t)n * sizeof *stack);
    if (!a || !pi || !seen || !stack)
        die("out of memory for %ld states", n);

    /* the off-diagonal rates; duplicates add up */
    long i, j, line = 1;
    long double r;
    int got;
    while ((got = scanf("%ld %ld %Lg", &i, &j, &r)) == 3) {
        line++;
        if (i < 0 || i >= n || j < 0 || j >= n || i == j)
            die("line %ld: bad state numbers (0..n-1, i != j)", line);
        if (!(r >= 0))
            die("line %ld: negative or NaN rate", line);
        A(i, j) += r;
    }
    if (got != EOF)
        die("line %ld: expected 'i j rate'", line + 1);

    if (reach_from_0(a, n, 0, seen, stack) != n || reach_from_0(a, n, 1, seen, stack) != n)
        die("the chain is not irreducible");

    /* Elimination, last state first.  Removing state k leaves the chain
     * censored on 0..k-1: rate(i,j) += rate(i,k) * rate(k,j) / s, where
     * s is k's total rate towards the states left.  The column of k is
     * kept, divided by s, for the back substitution. */
    for (long k = n - 1; k > 0; k--) {
        long double s = 0;
        for (long jj = 0; jj < k; jj++)
            s += A(k, jj);
        if (!(s > 0))
            die("zero pivot sum at state %ld: the chain is not irreducible", k);
        for (long ii = 0; ii < k; ii++)
            A(ii, k) /= s;
        for (long ii = 0; ii < k; ii++) {
            long double f = A(ii, k);
            if (f == 0)
                continue;
            for (long jj = 0; jj < k; jj++)
                if (jj != ii)
                    A(ii, jj) += f * A(k, jj);
        }
    }

    /* Back substitution: in the chain censored on 0..k, state k's
     * balance reads pi_k * s_k = sum_{i<k} pi_i rate(i,k). */
    long double total = pi[0] = 1;
    for (long k = 1; k < n; k++) {
        long double x = 0;
        for (long ii = 0; ii < k; ii++)
            x += pi[ii] * A(ii, k);
        pi[k] = x;
        total += x;
    }
    for (long k = 0; k < n; k++)
        printf("%.21Lg\n", pi[k] / total);

    free(a);
    free(pi);
    free(seen);
    free(stack);
    return 0;
}
