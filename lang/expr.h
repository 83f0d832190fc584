/*
 * expr.h - compiled expressions: postfix code for a small stack machine.
 *
 * The solvers evaluate rates and probabilities hundreds of millions of
 * times, so the code is a flat array of instructions with side tables
 * (no pointers to chase, no allocation during evaluation), constants are
 * folded, and a constant expression is flagged so callers skip the
 * machine altogether.
 */
#ifndef SAN_EXPR_H
#define SAN_EXPR_H

#include <stdint.h>
#include "san.h"

typedef enum {
    X_CONST,        /* push v */
    X_ST,           /* push state[a] */
    X_RW,           /* push rtab[n + state[a]]                        */
    X_NB,           /* count k = 0..n-1 of itab triples (aut, lo, hi)
                       with lo <= state[aut] <= hi                       */
    X_SUMRW,        /* sum over itab quads (aut, lo, hi, roff) in range
                       of rtab[roff + state[aut]]                        */
    X_PRODRW,       /* the same, product                                  */
    X_RESULT,       /* push results[a] (derived results only)             */
    X_THR,          /* push the sum of throughput[itab[a + k]], k < n: the
                       events of thr() (derived results only)             */
    X_CALL,         /* push the value of function calls[a] (compiled once,
                       shared: chains of functions stay linear in size)   */
    X_NEG, X_NOT,
    X_ADD, X_SUB, X_MUL, X_DIV,
    X_LT, X_LE, X_GT, X_GE, X_EQ, X_NE,
    X_AND, X_XOR, X_OR, X_IMP, X_EQV,
    X_MIN, X_MAX,   /* pop n, push min / max */
    X_FLOOR, X_CEIL,    /* unary */
    X_MOD, X_POW        /* binary: a - b floor(a / b) (NaN for b = 0), pow */
} xop;

typedef struct {
    uint8_t op;
    int32_t a;      /* automaton, table offset, or result index */
    int32_t n;      /* count of table entries or of arguments */
    double v;
} xins;

struct san_expr {
    xins *code;
    int ncode;
    int depth;      /* stack slots needed */
    int is_const;
    double value;   /* if is_const */
    int32_t *itab;  /* integer side table */
    int nitab;
    double *rtab;   /* reward side table */
    int nrtab;
    const san_expr **calls; /* functions this one calls */
    int ncalls, capcalls;
    int *deps;      /* automata read, ascending */
    int ndeps;
    int reads_results;  /* reads values of the solution (results or
                           throughputs), not the state: a derived result */
    int reads_thr;      /* of which throughputs (X_THR) */
    /* A function of few automata is tabulated: tab[sum_k s[deps[k]] *
     * tabstride[k]] replaces the interpreter (see lang_expr_tabulate). */
    double *tab;
    int64_t *tabstride;
};

/* A growing expression under construction. */
typedef struct {
    san_expr *e;
    int capcode, capitab, caprtab;
    int sp, maxsp;  /* stack height tracking */
    struct lang_oom *oom;   /* where a failed allocation goes (oom.h) */
} xbuild;

void xb_init(xbuild *b, struct lang_oom *oom);
int  xb_emit(xbuild *b, xop op, int32_t a, int32_t n, double v);   /* returns index */
int  xb_itab(xbuild *b, int32_t v);     /* append, returns offset */
int  xb_rtab(xbuild *b, const double *v, int n);
int  xb_call(xbuild *b, const san_expr *fn);      /* returns its index */
/* Fold the last instruction if its operands are constants. */
void xb_fold(xbuild *b, int *div_by_zero);
san_expr *xb_finish(xbuild *b);

/* Evaluate with derived-result values available (may be NULL). */
double san_expr_eval_ctx(const san_expr *e, const int *state, const double *results);
/* The same with the events' throughputs too (for thr(); may be NULL:
 * thr() is then NaN).  A derived result is evaluated so, by the layer
 * that has the solution (solver/analysis/indices.c). */
double lang_expr_eval_sol(const san_expr *e, const int *state, const double *results,
                         const double *throughput);
/* Once every expectation and throughput of a solution is summed: the
 * derived results, in order (each names earlier ones only; thr(e) is
 * the sum the report prints for e), and a warning in d for each result
 * that is not a finite number.  The serial and the distributed indices
 * both end so. */
void lang_results_derive(const san_model *m, double *results, const double *throughput,
                        san_diag *d);
san_expr *lang_expr_constant(double v);
/* The same inside a load (allocation failures go to oom). */
san_expr *xb_constant(struct lang_oom *oom, double v);
void lang_expr_free(san_expr *e);
/* A heap block of n bytes as malloc holds it: n rounded up with its
 * header (glibc: 16-byte chunks, 8 bytes of header; 0 for none). */
#define LANG_BLOCK_BYTES(n) ((n) > 0 ? 16.0 * (double)(((size_t)(n) + 23) / 16) : 0.0)
/* The heap bytes e holds, its table included (lang_expr_tabulate); m
 * gives the automata's sizes. */
double lang_expr_bytes(const san_expr *e, const san_model *m);
/* Tabulate e over the automata it reads when that takes at most
 * max_entries values; a no-op for constants and derived results.
 * state: m->naut zeros, scratch, left zeros. */
void lang_expr_tabulate(san_expr *e, const san_model *m, int64_t max_entries, int *state);
/* Bounds of e over the states with lo[a] <= state[a] <= hi[a] for every
 * automaton a (expr_range.c): 1 and bounds[0] <= e <= bounds[1] for
 * each of them, or 0 when some value may be NaN or is not bounded. */
int lang_expr_range(const san_expr *e, const int *lo, const int *hi, double bounds[2]);
/* mod(a, b) = a - b floor(a / b): the sign of b, NaN for b = 0. */
double lang_mod(double a, double b);
/* Number of operands an instruction pops. */
int xop_arity(const xins *i);

#endif
