/*
 * model_int.h - the compiled model's layout, for the library only (issue
 * 30 item 4): include/san/model.h declares san_model opaque and callers
 * outside libsan (cli/, tool/, Python) read it through the accessors of
 * lang/model_get.c, so the layout can change without breaking them.
 */
#ifndef LANG_MODEL_INT_H
#define LANG_MODEL_INT_H

#include <stdint.h>
#include "san.h"

typedef struct {
    int event;              /* index into san_model.ev */
    int to;                 /* destination local state */
    san_expr *prob;         /* routing probability; NULL means 1 */
} lang_trans;

typedef struct {
    char *name;             /* expanded: "P[3]" for a replica */
    int nstates;
    char **states;          /* expanded names: "s[3]" inside a block */
    double *reward;         /* per state; default: the state index */
    /* Transitions leaving local state s are tr[first[s] .. first[s+1]),
     * sorted by event, then by destination. */
    int *first;
    lang_trans *tr;
    int ntr;
} lang_automaton;

typedef struct {
    char *name;             /* "Acq" or, for a copy in a replica, "Acq@P[3]" */
    int sync;               /* 0: local, 1: synchronizing */
    san_expr *rate;
    int nparts;             /* automata that fire it, ascending */
    int *parts;
    int line, col;          /* declaration */
} lang_event;

typedef struct {
    char *name;
    san_expr *expr;
    int derived;            /* computed from earlier results (extension),
                               not an expectation over the states */
} lang_result;

typedef struct {
    char *name;
    int is_function;        /* reads the state */
    int is_domain;
    int overridden;         /* value set by -D */
    double value;           /* constants */
    san_expr *expr;         /* functions (NULL otherwise) */
} lang_ident;

struct san_model {
    char *name;             /* network name */
    char *file;
    int naut;
    lang_automaton *aut;
    int nev;
    lang_event *ev;
    int nres;
    lang_result *res;
    int nid;
    lang_ident *id;
    san_expr *reach;        /* reachability function */
    int partial;            /* 1: partial reachability */
    /* Product space: mixed radix, automaton 0 most significant. */
    int64_t *stride;        /* stride[a] = prod_{b>a} nstates[b] */
    int product_fits;       /* product fits in int64_t */
    int64_t product;        /* valid if product_fits */
    char *product_str;      /* decimal, exact up to 40 digits; beyond, six
                               digits in scientific notation: "1.07151e+301029" */
    double product_log10;
    /* Ownership: every expression the model uses is in this pool. */
    san_expr **pool;
    int npool, cappool;
    void *syntax;           /* the parsed text, kept for san_model_print */
};

/* The heap bytes m holds (model.c): what a budget (--max-memory) has
 * spent before the chain is built; the analysis reads it. */
double lang_model_bytes(const san_model *m);

#endif
