/*
 * prism.h - the importer of PRISM CTMC models (gen/prism.c): the syntax
 * tree its parser builds and the translation reads.
 *
 * `san import prism` writes .san text from a PRISM model the way `san gen`
 * writes it from flags: the lexer and parser (prism_lexer.l,
 * prism_parser.y) build the tree below, prism.c resolves the constants,
 * expands the formulas and the renamed modules, and writes one automaton
 * per variable, one event per command (per combination of commands for a
 * synchronized action), the labels and rewards as results.
 *
 * Every node lives in the tree's arena: the tree is freed at once.
 */
#ifndef SAN_PRISM_H
#define SAN_PRISM_H

#include <setjmp.h>
#include <stddef.h>
#include "san/base.h"

typedef enum {
    PX_NUM,         /* v; isint when written without '.' or exponent */
    PX_BOOL,        /* v = 0 or 1 */
    PX_ID,          /* name */
    PX_NEG, PX_NOT, /* a */
    PX_BIN,         /* a op b */
    PX_ITE,         /* a ? b : c */
    PX_CALL         /* name(args) */
} px_kind;

/* Binary operators. */
enum {
    PX_ADD, PX_SUB, PX_MUL, PX_DIV, PX_LT, PX_LE, PX_GT, PX_GE, PX_EQ, PX_NE,
    PX_AND, PX_OR, PX_IMP, PX_IFF
};

typedef struct px_expr {
    px_kind kind;
    int op;
    double v;
    int isint;
    const char *name;
    struct px_expr *a, *b, *c;
    struct px_expr **args;
    int nargs;
    int line, col;
} px_expr;

/* Growable arrays of pointers, in the arena. */
typedef struct {
    void **p;
    int n, cap;
} px_list;

enum { PX_T_INT, PX_T_DOUBLE, PX_T_BOOL };

typedef struct {
    const char *name;
    int type;
    px_expr *val;           /* NULL: undefined, given with -D */
    int line, col;
} px_const;

typedef struct {            /* formula NAME = e; label "NAME" = e; */
    const char *name;
    px_expr *e;
    int line, col;
} px_named;

typedef struct {
    const char *name;
    int isbool;
    px_expr *lo, *hi, *init;    /* lo, hi NULL for bool; init may be NULL */
    int line, col;
} px_var;

typedef struct {            /* x' = e */
    const char *var;
    px_expr *e;
    int line, col;
} px_assign;

typedef struct {            /* rate : assignments (none: `true`) */
    px_expr *rate;          /* NULL: 1 */
    px_list assigns;        /* px_assign* */
} px_update;

typedef struct {
    const char *action;     /* NULL: [] */
    px_expr *guard;
    px_list updates;        /* px_update* */
    int line, col;
} px_cmd;

typedef struct {
    const char *name;
    px_list vars;           /* px_var* */
    px_list cmds;           /* px_cmd* */
    const char *base;       /* module NAME = base [renames]: the copy's source */
    px_list ren;            /* const char* pairs: from, to, from, to ... */
    int line, col;
} px_module;

typedef struct {
    const char *action;     /* NULL: a state reward */
    int has_action;         /* [] or [a]: a transition reward */
    px_expr *guard, *val;
    int line, col;
} px_ritem;

typedef struct {
    const char *name;       /* NULL: unnamed */
    px_list items;          /* px_ritem* */
    int line, col;
} px_rewards;

typedef struct {
    int type_line, type_col;
    int has_type;
    px_list consts, formulas, labels, globals, modules, rewards;
    px_expr *init;          /* init ... endinit; NULL: the variables' own */
    px_list system;         /* system M1 || M2 ... endsystem: px_named*
                               (the module names, their positions) */
    int has_system;
    int init_line, init_col;
    /* the arena */
    void **blocks;
    int nblocks, capblocks;
    jmp_buf oom;            /* longjmp'd to when an allocation fails */
    san_diag *d;
} px_model;

void *px_alloc(px_model *m, size_t size);
char *px_strdup(px_model *m, const char *s, size_t n);
void px_push(px_model *m, px_list *l, void *item);
void px_model_free(px_model *m);

px_expr *px_new(px_model *m, px_kind k, int line, int col);

/* Parse text into m (zeroed, with m->d set): 0, or -1 after adding the
 * errors to m->d.  Must be called inside the setjmp of m->oom. */
int px_parse(px_model *m, const char *text, size_t len);

#endif
