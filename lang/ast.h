/*
 * ast.h - the syntax tree the parser builds and the semantic pass reads.
 *
 * The tree stays close to the text: names are unresolved strings with
 * their positions, domains are unevaluated, replication is not expanded.
 * All nodes are allocated from one arena owned by the ast_file, so the
 * parser never frees anything by hand and error recovery cannot leak.
 */
#ifndef SAN_AST_H
#define SAN_AST_H

#include <stddef.h>
#include <stdio.h>
#include "base/services.h"

typedef struct { int line, col; } ast_pos;

typedef struct ast_expr ast_expr;

/* A reference by name, with an optional index: P, P[3], s[K-1]. */
typedef struct {
    char *name;
    ast_expr *index;        /* NULL if absent */
    ast_pos pos;
} ast_ref;

typedef enum {
    AE_NUM, AE_NAME,        /* constant, function, or state name (+ index) */
    AE_ST, AE_RW,           /* st A, rw A */
    AE_NB, AE_SUMRW, AE_PRODRW,
    AE_NEG, AE_NOT,
    AE_BIN, AE_MIN, AE_MAX,
    AE_THR,                 /* thr(e): an event's throughput (results only) */
    AE_FN                   /* floor, ceil, mod, pow: fn names which */
} ast_expr_kind;

/* The functions of fixed arity (extension): floor(x), ceil(x) as in C;
 * mod(a, b) = a - b * floor(a / b), the sign of b, NaN for b = 0;
 * pow(a, b) as C's pow. */
typedef enum { FN_FLOOR, FN_CEIL, FN_MOD, FN_POW, FN_COUNT } ast_fn;

typedef enum {
    OP_MUL, OP_DIV, OP_ADD, OP_SUB,
    OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE,
    OP_AND, OP_XOR, OP_OR, OP_IMP, OP_EQV
} ast_binop;

struct ast_expr {
    ast_expr_kind kind;
    ast_pos pos;
    int paren;              /* written inside parentheses */
    int depth;              /* operator nesting below this node */
    double num;             /* AE_NUM */
    ast_ref ref;            /* AE_NAME, AE_ST, AE_RW; state of AE_NB/SUMRW/PRODRW */
    int has_range;          /* AE_NB, AE_SUMRW, AE_PRODRW: [lo..hi] given */
    int has_state;          /* AE_SUMRW, AE_PRODRW: state given */
    ast_ref lo, hi;
    ast_binop op;           /* AE_BIN */
    ast_expr *a, *b;        /* operands */
    ast_expr **args;        /* AE_MIN, AE_MAX, AE_FN */
    int nargs;
    ast_fn fn;              /* AE_FN */
    /* AE_THR: ref is the event, e or e[k]; thr_all: e[*], every index;
     * thr_at.name: e@A, the copy of a local event in automaton A only */
    int thr_all;
    ast_ref thr_at;
};

/* A domain: a list of ranges lo..hi (or single values), or one name;
 * with an index variable (aut C[i:N], syn e[k:N]) that names the value
 * of the replica or event inside its declaration (extension). */
typedef struct {
    ast_expr **lo, **hi;    /* hi[i] NULL for a single value */
    int n;
    ast_pos pos;
    char *var;              /* NULL: no index variable */
    ast_pos var_pos;
} ast_domain;

typedef struct {
    char *name;
    ast_pos pos;
    ast_expr *expr;         /* NULL for a domain */
    ast_domain *dom;
} ast_ident;

typedef struct {
    char *name;
    ast_pos pos;
    int sync;
    ast_domain *dom;        /* replicated event e[dom] */
    ast_expr *rate;
    ast_ref *auts;          /* informational automaton list */
    int nauts;
} ast_event;

/* DST_BY: to(+e) / to(-e), e reading the state (a move of the block's
 * position by e, sign in rel); DST_AT: to(=e), the state of index e. */
typedef enum { DST_NAME, DST_SAME, DST_REL, DST_BY, DST_AT } ast_dst_kind;

typedef struct {
    ast_ref ev;             /* event, with optional index */
    ast_expr *prob;         /* NULL: 1 */
} ast_label;

typedef struct {
    ast_dst_kind kind;
    ast_ref dst;            /* DST_NAME */
    int rel;                /* DST_REL: +k / -k; DST_BY: the sign, 1 or -1 */
    ast_expr *amount;       /* DST_BY, DST_AT: the expression */
    ast_pos pos;
    ast_label *labels;
    int nlabels;
} ast_to;

typedef struct {
    int is_from;            /* from NAME[k] block */
    char *name;
    ast_pos pos;
    ast_domain *dom;        /* stt s[dom] */
    ast_expr *from_index;   /* from s[k] */
    ast_expr *reward;
    ast_to *tos;
    int ntos;
} ast_state;

typedef struct {
    char *name;
    ast_pos pos;
    ast_domain *dom;
    ast_state *states;
    int nstates;
} ast_aut;

typedef struct {
    char *name;
    ast_pos pos;
    ast_expr *expr;
} ast_result;

typedef struct ast_arena ast_arena;

typedef struct {
    ast_arena *arena;
    struct lang_oom *oom;   /* where a failed allocation goes (oom.h) */
    base_progress *progress; /* during the load: its progress line (services.h) */
    long ticks;
    ast_ident *ids;     int nids;
    ast_event *events;  int nevents;
    ast_expr *reach;    int partial;  ast_pos reach_pos;  int has_reach;
    char *net_name;     ast_pos net_pos;  int discrete;   int has_net;
    ast_aut *auts;      int nauts;
    ast_result *results; int nresults;
    int has_events_block, has_results_block;
} ast_file;

/* Arena allocation: zeroed memory freed all at once with the file. */
void *ast_alloc(ast_file *f, size_t size);
char *ast_strdup(ast_file *f, const char *s, size_t n);
/* Append to an arena-backed array, doubling; elem_size bytes each. */
void *ast_grow(ast_file *f, void *arr, int n, size_t elem_size);
void ast_file_free(ast_file *f);
/* The bytes the arena holds (the tree kept with a model: model.c). */
double ast_file_bytes(const ast_file *f);
/* Does e mention name as a value (an index variable, say), outside the
 * names of states and automata? */
int ast_uses_name(const ast_expr *e, const char *name);
/* A function's name as written, its number of arguments, and the
 * function a name is (-1: none). */
const char *ast_fn_name(ast_fn fn);
int ast_fn_arity(ast_fn fn);
int ast_fn_find(const char *name);
/* v as the shortest text that reads back as v ("(-2.5)" when negative). */
void ast_print_num(FILE *out, double v);

/* The rate of the compiled event e of m as its declaration writes it
 * (print.c): "(lambda * (st B == s[0]))"; what the DOT export labels a
 * functional rate with.  Nothing when the declaration is not found. */
struct san_model;
void ast_print_event_rate(const struct san_model *m, int e, FILE *out);

/* Parse text into f; diagnostics go to d.  Returns the number of errors. */
#include "san.h"
int ast_parse(ast_file *f, const char *text, size_t len, san_diag *d);

#endif
