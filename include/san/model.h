/*
 * san/model.h - the compiled model: expressions over the global state,
 * automata, events, results; loading .san text (lang/).
 */
#ifndef SAN_PUBLIC_MODEL_H
#define SAN_PUBLIC_MODEL_H

#include <stdint.h>
#include <stdio.h>
#include <stddef.h>
#include "san/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Compiled expressions                                                 */
/* ------------------------------------------------------------------ */

/* An expression compiled to postfix code over a global state (the array
 * of local state indices, one per automaton).  Constants are folded at
 * compile time: a constant expression is a single instruction. */
typedef struct san_expr san_expr;

SAN_API double san_expr_eval(const san_expr *e, const int *state);
/* Derived results read the values of earlier results. */
SAN_API double san_expr_eval_ctx(const san_expr *e, const int *state, const double *results);
SAN_API int    san_expr_is_const(const san_expr *e);
SAN_API double san_expr_const(const san_expr *e);      /* valid if is_const */
/* Automata the expression reads, ascending; *n receives the count. */
SAN_API const int *san_expr_deps(const san_expr *e, int *n);

/* ------------------------------------------------------------------ */
/* The compiled model                                                   */
/* ------------------------------------------------------------------ */

/* Opaque: its layout is the library's (lang/model_int.h); a caller
 * reads it through the accessors below. */
typedef struct san_model san_model;

/* The model read through accessors (lang/model_get.c): indices 0-based and
 * unchecked, below the counts.  san_model_product_text is product_str;
 * san_model_local_state the name of local state s of automaton a;
 * san_model_event_parts the automata that fire event e (ascending, *n
 * of them); san_model_result_expr what san_transient_opts' initial and
 * until take. */
SAN_API const char *san_model_name(const san_model *m);
SAN_API const char *san_model_product_text(const san_model *m);
/* The product space's size: 1 and *n set when it fits in an int64_t, 0
 * (*n untouched) when only san_model_product_text can say it. */
SAN_API int san_model_product(const san_model *m, int64_t *n);
SAN_API int san_model_automata(const san_model *m);
SAN_API const char *san_model_automaton_name(const san_model *m, int a);
SAN_API int san_model_automaton_states(const san_model *m, int a);
SAN_API const char *san_model_local_state(const san_model *m, int a, int s);
SAN_API int64_t san_model_stride(const san_model *m, int a);
SAN_API int san_model_events(const san_model *m);
SAN_API const char *san_model_event_name(const san_model *m, int e);
SAN_API int san_model_event_sync(const san_model *m, int e);
SAN_API const int *san_model_event_parts(const san_model *m, int e, int *n);
SAN_API int san_model_results(const san_model *m);
SAN_API const char *san_model_result_name(const san_model *m, int r);
SAN_API int san_model_result_derived(const san_model *m, int r);
SAN_API const san_expr *san_model_result_expr(const san_model *m, int r);

/* Constant overrides from the command line (-D NAME=VALUE). */
typedef struct {
    const char *name;
    double value;
    int used;               /* set by the compiler */
} san_define;

typedef struct {
    size_t struct_size;     /* sizeof the struct, set by san_load_opts_default: the
                               library refuses options of another
                               layout (SAN_E_USAGE) */
    san_define *defs;
    int ndefs;
    int peps_warnings;      /* warn on left-to-right precedence ambiguity */
    int progress;           /* a progress line on stderr once the load has
                               taken a second (the caller checks that
                               stderr is a terminal) */
} san_load_opts;

/* No definition, no PEPS warnings, no progress, and struct_size: what
 * san_model_compile and san_text_with_results take (or NULL). */
SAN_API void san_load_opts_default(san_load_opts *o);
/* The same without the layout (lang/load_opts.c): san_load_opts_new
 * (the defaults), _free (only for what _new made), _set with the key
 * "peps_warnings" (0, 1), _define (adds -D name=value, the name copied;
 * SAN_E_NOMEM), _define_used (whether the compile used definition k),
 * _defines (the array and its count, for san_props_parse and
 * san_import_prism). */
SAN_API san_load_opts *san_load_opts_new(void);
SAN_API void san_load_opts_free(san_load_opts *o);
SAN_API san_status san_load_opts_set(san_load_opts *o, const char *key, const char *value,
                                     char *msg, size_t n);
SAN_API san_status san_load_opts_define(san_load_opts *o, const char *name, double value);
SAN_API int san_load_opts_define_used(const san_load_opts *o, int k);
SAN_API const san_define *san_load_opts_defines(const san_load_opts *o, int *n);

/* Parse and compile text into *out (opt NULL: the defaults): SAN_OK;
 * SAN_E_MODEL (every error reported in d with its position),
 * SAN_E_USAGE (opt not filled by san_load_opts_default: its struct_size
 * another layout's, said in d) or SAN_E_NOMEM, *out NULL. */
SAN_API san_status san_model_compile(const char *text, size_t len, const san_load_opts *opt,
                                     san_model **out, san_diag *d);
/* The same returning the model, NULL on any error. */
SAN_API san_model *san_model_load(const char *text, size_t len, san_diag *d,
                                  const san_load_opts *opt);
SAN_API void san_model_free(san_model *m);

/* Where a piece of text starts in a larger one (1-based). */
typedef struct {
    int line, col;
} san_text_pos;

/* The model text with n expressions appended as results names[i] =
 * (exprs[i]), compiled in the model's scope when the result is loaded
 * (san transient --until 'EXPR' and Python's until= are these), into
 * *out (malloc'd, NUL-terminated, *outlen bytes); at[i] (at may be NULL)
 * is where expression i starts in it, to point its diagnostics into the
 * expression.  The model's own lines keep their numbers.  SAN_OK;
 * SAN_E_MODEL when the text does not compile with a result appended
 * anywhere (compile the text alone for its diagnostics); SAN_E_USAGE
 * for opt of another layout (struct_size, as san_model_compile);
 * SAN_E_NOMEM. */
SAN_API san_status san_text_with_results(const char *text, size_t len, const san_load_opts *opt,
                                         const char *const *names, const char *const *exprs,
                                         int n, char **out, size_t *outlen, san_text_pos *at);
/* n positions for san_text_with_results' at, zeroed, and position i
 * read back, for callers that do not see the layout. */
SAN_API san_text_pos *san_text_positions_new(int n);
SAN_API void san_text_positions_free(san_text_pos *at);
SAN_API void san_text_position(const san_text_pos *at, int i, int *line, int *col);
/* Why a definition -D name=value that the compile left unused
 * (san_define.used 0) set nothing, for "-D NAME: <why>": a domain (with
 * how to make its bound a constant), an automaton, event or result, or
 * "the model has no constant named 'x'" with the closest constant. */
SAN_API void san_model_define_why(const san_model *m, const char *name, double value,
                                  char *buf, size_t n);

/* Write the model back as normalized .san text. */
SAN_API void san_model_print(const san_model *m, FILE *out);
/* The same with the comments of text (the model's source) at their place:
 * before the statement or section they precede, or at the end of its
 * line.  SAN_E_NOMEM if they cannot be listed. */
SAN_API san_status san_model_print_commented(const san_model *m, const char *text, size_t len,
                                             FILE *out);

/* Text for another tool: san (the normalized text above), or PEPS 2003 /
 * PEPS 2007 (read unchanged by PEPS and GTAexpress, with the rewrites of
 * doc/compat.md).  SAN_E_MODEL with the construct named in err when the
 * model cannot be written so; nothing is written then. */
typedef enum { SAN_DIALECT_SAN, SAN_DIALECT_PEPS2003, SAN_DIALECT_PEPS2007 } san_dialect;
SAN_API san_status san_model_print_dialect(const san_model *m, san_dialect dialect, FILE *out,
                                           char *err, size_t errn);
/* The compatibility lint: a warning in d for every construct of the model
 * that PEPS 2003 or GTAexpress read differently or reject, naming the
 * peer, the position and the rewrite; text (may be NULL) is the model's
 * source, for its comments.  Returns the number of warnings. */
SAN_API int san_model_lint_peers(const san_model *m, const char *text, size_t len, san_diag *d);
/* The same, one warning per construct (its first occurrence, with the
 * count of the others): what san warns about by default. */
SAN_API int san_model_lint_peers_brief(const san_model *m, const char *text, size_t len,
                                       san_diag *d);
/* "san", "peps2003", "peps2007": 1 and *d set; 0 for another name. */
SAN_API int san_dialect_from_name(const char *name, san_dialect *d);

/* Exact lumping of interchangeable automata (issue 28; lang/lump.c):
 * the classes of replicas that every expression, event and transition
 * treats alike, each replaced by one counter automaton over occupancy
 * vectors (how many members are in each local state).  *out NULL when
 * nothing lumps (a note in d says why when equal automata are told
 * apart); SAN_E_NOMEM.  The lumped model answers every steady-state
 * index of m exactly (strong lumpability by the symmetry), and every
 * time-dependent one from a start that treats the replicas alike
 * (solver/analysis/lumped_time.c). */
typedef struct san_lumping san_lumping;
SAN_API san_status san_model_lump(const san_model *m, san_lumping **out, san_diag *d);
SAN_API const san_model *san_lumping_model(const san_lumping *L);
/* "Slave[1..64] (64 replicas of 3 states)" */
SAN_API const char *san_lumping_summary(const san_lumping *L);
SAN_API void san_lumping_free(san_lumping *L);

/* Decode a mixed-radix index into local states, and back. */
SAN_API void    san_state_decode(const san_model *m, int64_t idx, int *state);
SAN_API int64_t san_state_encode(const san_model *m, const int *state);
/* "(P[0]:using, P[1]:sleeping)" into buf; returns buf. */
SAN_API char *san_state_name(const san_model *m, const int *state, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
