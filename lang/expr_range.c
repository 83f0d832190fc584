/*
 * expr_range.c - bounds of an expression over a box of states.
 *
 * The state space scan (solver/space/reach_walk.c) fixes the automata one by one,
 * most significant first, and asks whether the reachability function
 * can still be true somewhere below: `nb using <= R` is false for every
 * extension of a prefix that already has more than R users, so a whole
 * subtree is skipped at once.  Each automaton a ranges over
 * [lo[a], hi[a]] (lo = hi once fixed), and the expression is run on
 * intervals instead of values.
 *
 * The bounds are sound for the floating-point evaluation itself, not
 * only for the real numbers: +, -, *, / rounded to nearest are monotone
 * in each operand, so the same operations on the interval's ends bound
 * every value the interpreter can produce; floor and ceil are exact,
 * mod is bounded by its divisor, pow is known only at a point.  Known
 * intervals are finite: an end that overflows to an infinity makes the
 * interval unknown, for a NaN may hide inside it (x, y in [0, inf]:
 * x - y is NaN at x = y = inf, though the ends give [-inf, inf]; 0 * inf
 * likewise).  So does a
 * division by an interval holding 0, and a derived result.  An unknown
 * interval never prunes anything.
 */
#include <math.h>
#include <stdlib.h>
#include "lang/expr.h"

typedef struct {
    double lo, hi;
    int known;              /* 0: any value, NaN included */
} rng;

static const rng UNKNOWN = { -INFINITY, INFINITY, 0 };

static rng point(double v)
{
    return isfinite(v) ? (rng){ v, v, 1 } : UNKNOWN;
}

/* The interval of four candidate ends (a product or a quotient). */
static rng hull4(double a, double b, double c, double d)
{
    if (!isfinite(a) || !isfinite(b) || !isfinite(c) || !isfinite(d))
        return UNKNOWN;
    return (rng){ fmin(fmin(a, b), fmin(c, d)), fmax(fmax(a, b), fmax(c, d)), 1 };
}

static rng hull2(double a, double b)
{
    if (!isfinite(a) || !isfinite(b))
        return UNKNOWN;
    return (rng){ a, b, 1 };
}

/* Truth of an interval: 1 surely nonzero, 0 surely zero, -1 either. */
static int truth(rng x)
{
    if (!x.known)
        return -1;
    if (x.lo > 0 || x.hi < 0)
        return 1;
    return x.lo == 0 && x.hi == 0 ? 0 : -1;
}

static rng of_truth(int t)
{
    return t < 0 ? (rng){ 0, 1, 1 } : point(t);
}

/* Comparisons: decided when the intervals do not overlap (or, for ==,
 * are one and the same point). */
static rng compare(int op, rng x, rng y)
{
    if (!x.known || !y.known)
        return of_truth(-1);
    int t = -1;
    switch (op) {
    case X_LT: t = x.hi < y.lo ? 1 : x.lo >= y.hi ? 0 : -1; break;
    case X_LE: t = x.hi <= y.lo ? 1 : x.lo > y.hi ? 0 : -1; break;
    case X_GT: t = x.lo > y.hi ? 1 : x.hi <= y.lo ? 0 : -1; break;
    case X_GE: t = x.lo >= y.hi ? 1 : x.hi < y.lo ? 0 : -1; break;
    case X_EQ: case X_NE:
        if (x.lo == x.hi && y.lo == y.hi && x.lo == y.lo)
            t = 1;
        else if (x.hi < y.lo || y.hi < x.lo)
            t = 0;
        if (op == X_NE && t >= 0)
            t = !t;
        break;
    }
    return of_truth(t);
}

static rng logic(int op, rng x, rng y)
{
    int a = truth(x), b = truth(y), t = -1;
    switch (op) {
    case X_AND: t = a == 0 || b == 0 ? 0 : a == 1 && b == 1 ? 1 : -1; break;
    case X_OR:  t = a == 1 || b == 1 ? 1 : a == 0 && b == 0 ? 0 : -1; break;
    case X_IMP: t = a == 0 || b == 1 ? 1 : a == 1 && b == 0 ? 0 : -1; break;
    case X_XOR: t = a < 0 || b < 0 ? -1 : a != b; break;
    case X_EQV: t = a < 0 || b < 0 ? -1 : a == b; break;
    }
    return of_truth(t);
}

static rng arith(int op, rng x, rng y)
{
    if (!x.known || !y.known)
        return UNKNOWN;
    switch (op) {
    case X_ADD: return hull2(x.lo + y.lo, x.hi + y.hi);
    case X_SUB: return hull2(x.lo - y.hi, x.hi - y.lo);
    case X_MUL: return hull4(x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi);
    case X_DIV:
        if (y.lo <= 0 && y.hi >= 0)
            return UNKNOWN;
        return hull4(x.lo / y.lo, x.lo / y.hi, x.hi / y.lo, x.hi / y.hi);
    }
    return UNKNOWN;
}

/* mod(x, y) for y of one sign: x itself where 0 <= x < y (fmod is
 * exact), else between 0 and y, both included (r + y may round to y);
 * a divisor interval holding 0 may give NaN. */
static rng mod_range(rng x, rng y)
{
    if (!x.known || !y.known || (y.lo <= 0 && y.hi >= 0))
        return UNKNOWN;
    if (x.lo == x.hi && y.lo == y.hi)
        return point(lang_mod(x.lo, y.lo));
    if (y.lo > 0 && x.lo >= 0 && x.hi < y.lo)
        return x;
    return y.lo > 0 ? (rng){ 0, y.hi, 1 } : (rng){ y.lo, 0, 1 };
}

/* The values table t (indexed by state) takes over states [lo, hi]. */
static rng table_range(const double *t, int lo, int hi)
{
    rng r = point(t[lo]);
    for (int x = lo + 1; x <= hi && r.known; x++) {
        rng v = point(t[x]);
        r = v.known ? (rng){ fmin(r.lo, v.lo), fmax(r.hi, v.hi), 1 } : v;
    }
    return r;
}

/* nb: the count is certain for the automata whose whole range lies in
 * [t1, t2], possible for those whose range meets it. */
static rng count_range(const int32_t *t, int n, const int *lo, const int *hi)
{
    int sure = 0, may = 0;
    for (int k = 0; k < n; k++, t += 3) {
        int a = t[0];
        sure += lo[a] >= t[1] && hi[a] <= t[2];
        may += hi[a] >= t[1] && lo[a] <= t[2];
    }
    return (rng){ sure, may, 1 };
}

/* sum_rw / prod_rw: per automaton, its rewards over the part of its
 * range inside [t1, t2], and the identity if the range leaves it. */
static rng reward_range(const san_expr *e, const xins *i, const int *lo, const int *hi)
{
    const int sum = i->op == X_SUMRW;
    const int32_t *t = e->itab + i->a;
    rng acc = point(sum ? 0 : 1);
    for (int k = 0; k < i->n && acc.known; k++, t += 4) {
        int a = t[0], l = lo[a] > t[1] ? lo[a] : t[1], h = hi[a] < t[2] ? hi[a] : t[2];
        if (l > h)
            continue;           /* never in range: the identity */
        rng r = table_range(e->rtab + t[3], l, h);
        if (lo[a] < t[1] || hi[a] > t[2]) {     /* or out of range */
            double id = sum ? 0 : 1;
            r = (rng){ fmin(r.lo, id), fmax(r.hi, id), r.known };
        }
        acc = arith(sum ? X_ADD : X_MUL, acc, r);
    }
    return acc;
}

static rng eval_range(const san_expr *e, const int *lo, const int *hi, rng *st)
{
    int sp = 0;
    for (const xins *i = e->code, *end = e->code + e->ncode; i < end; i++) {
        switch (i->op) {
        case X_CONST:
            st[sp++] = point(i->v);
            break;
        case X_ST:
            st[sp++] = (rng){ lo[i->a], hi[i->a], 1 };
            break;
        case X_RW:
            st[sp++] = table_range(e->rtab + i->n, lo[i->a], hi[i->a]);
            break;
        case X_NB:
            st[sp++] = count_range(e->itab + i->a, i->n, lo, hi);
            break;
        case X_SUMRW: case X_PRODRW:
            st[sp++] = reward_range(e, i, lo, hi);
            break;
        case X_CALL: {
            double b[2];
            st[sp++] = lang_expr_range(e->calls[i->a], lo, hi, b)
                           ? (rng){ b[0], b[1], 1 } : UNKNOWN;
            break;
        }
        case X_NEG:
            st[sp - 1] = st[sp - 1].known ? (rng){ -st[sp - 1].hi, -st[sp - 1].lo, 1 }
                                          : UNKNOWN;
            break;
        case X_NOT: {
            int t = truth(st[sp - 1]);
            st[sp - 1] = of_truth(t < 0 ? -1 : !t);
            break;
        }
        case X_FLOOR: case X_CEIL:     /* exact and monotone */
            if (st[sp - 1].known)
                st[sp - 1] = i->op == X_FLOOR ? hull2(floor(st[sp - 1].lo), floor(st[sp - 1].hi))
                                              : hull2(ceil(st[sp - 1].lo), ceil(st[sp - 1].hi));
            break;
        case X_MOD:
            sp--;
            st[sp - 1] = mod_range(st[sp - 1], st[sp]);
            break;
        case X_POW:             /* C's pow need not be monotone once rounded */
            sp--;
            st[sp - 1] = st[sp - 1].known && st[sp].known && st[sp - 1].lo == st[sp - 1].hi &&
                         st[sp].lo == st[sp].hi ? point(pow(st[sp - 1].lo, st[sp].lo)) : UNKNOWN;
            break;
        case X_MIN: case X_MAX: {
            sp -= i->n;
            rng r = st[sp];
            for (int k = 1; k < i->n && r.known; k++) {
                rng v = st[sp + k];
                if (!v.known)
                    r = UNKNOWN;
                else if (i->op == X_MIN)
                    r = (rng){ fmin(r.lo, v.lo), fmin(r.hi, v.hi), 1 };
                else
                    r = (rng){ fmax(r.lo, v.lo), fmax(r.hi, v.hi), 1 };
            }
            st[sp++] = r;
            break;
        }
        case X_ADD: case X_SUB: case X_MUL: case X_DIV:
            sp--;
            st[sp - 1] = arith(i->op, st[sp - 1], st[sp]);
            break;
        case X_LT: case X_LE: case X_GT: case X_GE: case X_EQ: case X_NE:
            sp--;
            st[sp - 1] = compare(i->op, st[sp - 1], st[sp]);
            break;
        case X_AND: case X_OR: case X_IMP: case X_XOR: case X_EQV:
            sp--;
            st[sp - 1] = logic(i->op, st[sp - 1], st[sp]);
            break;
        default:                /* X_RESULT, X_THR: not functions of the state */
            st[sp++] = UNKNOWN;
        }
    }
    return st[0];
}

int lang_expr_range(const san_expr *e, const int *lo, const int *hi, double bounds[2])
{
    if (e->is_const) {
        bounds[0] = bounds[1] = e->value;
        return isfinite(e->value);
    }
    rng local[32], *st = e->depth <= 32 ? local : malloc((size_t)e->depth * sizeof *st);
    if (!st)
        return 0;
    rng r = eval_range(e, lo, hi, st);
    if (st != local)
        free(st);
    bounds[0] = r.lo;
    bounds[1] = r.hi;
    return r.known;
}
