/*
 * props_int.h - the parsed properties (internal to libsan): the tree
 * parse.c builds and check.c evaluates.
 */
#ifndef SAN_PROPS_INT_H
#define SAN_PROPS_INT_H

#include <stdint.h>
#include "san.h"
#include "san/props.h"

/* State formulas and expressions. */
typedef enum {
    PN_NUM,         /* v */
    PN_ID,          /* name: a constant or a variable of the model */
    PN_LABEL,       /* "name" */
    PN_NOT, PN_NEG, /* a */
    PN_BIN,         /* a op b */
    PN_ITE          /* a ? b : c */
} pn_kind;

enum {
    PN_ADD, PN_SUB, PN_MUL, PN_DIV, PN_LT, PN_LE, PN_GT, PN_GE, PN_EQ, PN_NE,
    PN_AND, PN_OR, PN_IMP, PN_IFF
};

typedef struct pnode {
    pn_kind kind;
    int op;
    double v;
    char *name;
    struct pnode *a, *b, *c;
    int line, col;
} pnode;

/* The operators of the fragment. */
typedef enum {
    PQ_S,           /* S=? [a] */
    PQ_P_F,         /* P=? [F b], bounded by [lo, hi] (hi HUGE_VAL: none) */
    PQ_P_U,         /* P=? [a U b], bounded the same way */
    PQ_P_G,         /* P=? [G a]: 1 - P[F !a], bounded alike */
    PQ_R_S,         /* R=? [S] */
    PQ_R_C,         /* R=? [C<=t] */
    PQ_R_I,         /* R=? [I=t] */
    PQ_R_F          /* R=? [F b] */
} pq_kind;

typedef struct {
    pq_kind kind;
    pnode *a, *b;           /* the state formulas */
    pnode *lo, *hi;         /* time bounds (NULL: 0, none) */
    char *reward;           /* R{"name"}; NULL: the first structure */
    pnode *reward_index;    /* R{2}: by number */
    char *name;             /* "name": ...; NULL */
    char *text;             /* as written */
    int src;                /* which source text */
    int line, col;
} pquery;

typedef struct {
    char *name;
    double v;
    int defined;
    int line, col;
} pconst;

/* label "name" = formula; of a property file: used by the properties
 * after it (a copy of the formula each time), before the model's. */
typedef struct {
    char *name;
    pnode *e;
    int line, col;
} plabel;

typedef struct {
    char *file, *text;
    size_t len;
} psource;

struct san_props {
    pquery *q;
    int nq, capq;
    pconst *k;
    int nk, capk;
    plabel *lab;
    int nlab, caplab;
    psource *src;
    int nsrc;
    /* every node, freed at once */
    void **blocks;
    int nblocks, capblocks;
};

void *props_alloc(san_props *p, size_t n);
char *props_strdup(san_props *p, const char *s, size_t n);

/* A constant of the property files by name (NULL: none). */
const pconst *props_const(const san_props *p, const char *name);

#endif
