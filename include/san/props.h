/*
 * san/props.h - CSL properties of PRISM's property language for CTMCs
 * (solver/props/): read from a .props/.csl file or a string, and checked
 * on a model's reachable chain.
 *
 * The fragment: S=? [phi], P=? [F phi], P=? [F<=t phi], P=? [F[a,b] phi],
 * P=? [phi U psi], P=? [phi U<=t psi], P=? [G phi], P=? [G<=t phi],
 * R{"r"}=? [S], R=? [C<=t], R=? [I=t], R=? [F phi]; state formulas over
 * labels ("name": a result or function of the model), the model's
 * variables (automata: a PRISM variable's value, a .san automaton's local
 * state index) and constants, with ! & | => <=> and comparisons.  The
 * answer is the one from the initial distribution (uniform over the
 * initial states), with PRISM's semantics for CTMCs (doc/props.md).
 */
#ifndef SAN_PUBLIC_PROPS_H
#define SAN_PUBLIC_PROPS_H

#include <stdint.h>
#include <stddef.h>
#include "san/base.h"
#include "san/model.h"
#include "san/space.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A list of parsed properties. */
typedef struct san_props san_props;

/* Parse text (a property file, or one --property string; name for the
 * messages) into *out, appending to it when *out is not NULL (several
 * --property and --props).  Constants declared in it (const int T = 5;
 * const double T;) take their value from defs when given there (an
 * undefined one must be).  SAN_OK; SAN_E_MODEL with every error at its
 * line and column in d (made by the caller with san_diag_init on text);
 * SAN_E_NOMEM. */
SAN_API san_status san_props_parse(const char *text, size_t len, const san_define *defs,
                                   int ndefs, san_props **out, san_diag *d);
SAN_API void san_props_free(san_props *p);
SAN_API int san_props_count(const san_props *p);
/* Does a property text declare constant name (the -D that set it are
 * not the model's)? */
SAN_API int san_props_has_const(const san_props *p, const char *name);
/* The property's name ("name": ...), NULL when unnamed. */
SAN_API const char *san_props_name(const san_props *p, int i);
/* The property as written (blanks normalized). */
SAN_API const char *san_props_text(const san_props *p, int i);

/* How the properties are checked. */
typedef struct {
    size_t struct_size;     /* sizeof the struct, set by san_props_opts_default: the
                               library refuses options of another
                               layout (SAN_E_USAGE) */
    san_space_opts space;   /* memory and state limits, interrupt */
    san_solve_opts solve;   /* the steady-state solves (S, R[S]) */
    double eps;             /* truncated Poisson mass of uniformization
                               (default 1e-13) */
    double max_steps;       /* products of uniformization at most
                               (default 1e8) */
} san_props_opts;

SAN_API void san_props_opts_default(san_props_opts *o);
/* The same without the layout (solver/props/props_opts.c):
 * san_props_opts_new (the defaults), _free, _set with the keys "tol",
 * "eps", "max_steps", "max_memory", "max_states" (as
 * san_analysis_opts_set), _set_interrupt. */
SAN_API san_props_opts *san_props_opts_new(void);
SAN_API void san_props_opts_free(san_props_opts *o);
SAN_API san_status san_props_opts_set(san_props_opts *o, const char *key, const char *value,
                                      char *msg, size_t n);
SAN_API void san_props_opts_set_interrupt(san_props_opts *o, volatile int *flag);

/* The chain the properties are checked on: the reachable states (every
 * closed class accepted) and the sparse generator, built once. */
typedef struct san_checker san_checker;

SAN_API san_status san_checker_new(const san_model *m, const san_props_opts *o,
                                   san_checker **out, san_diag *d);
SAN_API void san_checker_free(san_checker *c);
SAN_API const san_space *san_checker_space(const san_checker *c);
/* States of the initial distribution. */
SAN_API int64_t san_checker_initial(const san_checker *c);

/* One property's answer. */
typedef struct {
    double value;           /* HUGE_VAL: an infinite expected reward */
    const char *kind;       /* "probability", "steady-state probability",
                               "expected reward", ... (static text) */
    const char *method;     /* "steady state", "uniformization",
                               "linear solve", "graph" (static text) */
    double error_bound;     /* a bound on the error of value (the
                               truncated Poisson mass for uniformization,
                               scaled by the largest reward; the steady-
                               state solve's error estimate, relative);
                               0 when exact up to roundoff; NaN unknown */
    int64_t target;         /* states satisfying the target formula (-1:
                               none applies) */
    long steps;             /* products of uniformization */
    int64_t classes;        /* closed classes weighted (S, R[S]) */
} san_prop_answer;
/* n answers for san_checker_eval and san_report_props, zeroed, for
 * callers that do not see the layout: san_prop_answers_at is the i-th. */
SAN_API san_prop_answer *san_prop_answers_new(int n);
SAN_API void san_prop_answers_free(san_prop_answer *a);
SAN_API san_prop_answer *san_prop_answers_at(san_prop_answer *a, int i);

/* The names of property i (labels, variables, constants, the reward
 * structure) against the model, before anything is computed: SAN_OK,
 * or SAN_E_MODEL with each error at its position in d. */
SAN_API san_status san_checker_validate(san_checker *c, const san_props *p, int i,
                                        san_diag *d);
/* Check property i.  SAN_OK; SAN_E_MODEL (a name the model does not
 * have, at its position in the property's text, in d, which the caller
 * made with san_diag_init on that text); SAN_E_USAGE (an operator
 * outside the fragment); SAN_E_NOTCONV, SAN_E_NUMERIC, SAN_E_LIMIT,
 * SAN_E_NOMEM, SAN_E_INTERRUPTED, the reason in d. */
SAN_API san_status san_checker_eval(san_checker *c, const san_props *p, int i,
                                    san_prop_answer *a, san_diag *d);
/* The text property i was read from (for the diagnostics of
 * san_checker_eval) and its name ("--property 2", a file name). */
SAN_API const char *san_props_source(const san_props *p, int i, size_t *len,
                                     const char **file);

#ifdef __cplusplus
}
#endif
#endif
