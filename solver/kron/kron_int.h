/*
 * kron_int.h - what the files of the Kronecker descriptor share and its
 * callers (who include kron.h) do not see: the terms, the node classes,
 * the tables' cache, the runs and calls of the region level, the tree
 * lookups the walk inlines, and the functions that one file of
 * solver/kron/ calls in another.
 */
#ifndef SAN_KRON_INT_H
#define SAN_KRON_INT_H

#include <math.h>
#include <stdint.h>
#include "solver/kron/kron.h"

/* A rate or a routing probability as the descriptor holds it: a value
 * that is not finite becomes 0.  The exploration refuses the model
 * where such a value matters (an event enabled in a reachable state:
 * solver/space/succ.c); anywhere else it belongs to an event of rate 0
 * there (p = 1 / (st B) where B disables the event), which the sparse
 * path skips and which the descriptor's rate x probability turned into
 * 0 x inf = NaN ("best residual inf", a wrong number printed). */
static inline double kron_finite(double v)
{
    return isfinite(v) ? v : 0;
}

/* ------------------------------------------------------------------ */
/* Terms (terms.c) and functions as the kernels read them (tables.c)   */
/* ------------------------------------------------------------------ */

/* One transition of a participant, seen from its anchor local state. */
typedef struct {
    int32_t other;          /* the local state at the other end */
    int32_t fp;             /* functional probability: index into the
                               term's fprob[]; -1: constant */
    int32_t fr;             /* functional rate of the move's event (merged
                               local events): index into fprob[]; -1:
                               constant, or the term's rate */
    double p;               /* constant factor: probability (1 if
                               functional), times the event's constant
                               rate in a merged term */
} kron_move;

/* A participant's transitions in a term, grouped by anchor local state. */
typedef struct {
    int32_t *ptr;           /* n_a + 1 */
    kron_move *mv;
} kron_part;

/* A function of the state (rate or routing probability) as the kernels
 * see it: a constant, a table over the term's dependencies, a table over
 * the vector's states (when the first would be too big and the function
 * is read at the leaves), or the expression, evaluated at every use.
 * A table over the states holds one byte a state, a code into the
 * function's values, when it takes at most KRON_CODES of them (rs.san's
 * lambda * (nb using < R): two), else the values. */
#define KRON_CODES 256

/* Explicit region levels: a level is chosen by REGION_BYTES_PER_LEAF
 * bytes of runs per leaf of its classes and term (the runs of all terms
 * may take the tuning's region_bytes_per_state bytes a state, at least
 * region_min_bytes: kron_region_room, regions.c; estimate.c counts the
 * same bound). */
#define REGION_BYTES_PER_LEAF 24
typedef struct {
    double c;
    const double *tab;
    const double *pst;      /* per state: values */
    const uint8_t *pcode;   /* per state: codes into pval */
    const double *pval;
    const san_expr *e;
} kron_fn;

typedef struct kron_term {
    int ev;                 /* the term's (first) event */
    int nev;                /* events of the term: more than one for the */
    int *evs;               /* merged local events of one automaton */
    int np;                 /* participants */
    int L;                  /* last level that is a participant or a
                               dependency; below it nothing varies */
    int *kind;              /* per level: participant number, or
                               KRON_FREE / KRON_DEP */
    int64_t *dstride;       /* per level: weight in the table index */
    kron_part *in;          /* by destination: moves u -> w, anchor w */
    kron_part *out;         /* by source: moves u -> w, anchor u */
    kron_fn rate;           /* the event's rate; 1 for merged terms */
    int nfp;
    kron_fn *fprob;         /* functional probabilities and, in merged
                               terms, functional rates of the moves */
    struct kron_rmap *rg;   /* the term inside the nodes of the region
                               level (regions.c), or NULL */
} kron_term;

#define KRON_FREE (-1)
#define KRON_DEP  (-2)

/* Tables are shared by terms whose function and dependencies match
 * (replicated automata share their rate expressions). */
typedef struct {
    const san_expr *e;
    const int64_t *dstride;     /* NULL: a table per state */
    double bytes;
    void *mem;                  /* what the table owns (d->tab) */
    kron_fn f;                  /* the table as the kernels read it */
} tab_key;

typedef struct {
    tab_key *v;
    int n, cap;
    const int64_t *keys;        /* leaf -> mixed-radix index (NULL: same) */
    int64_t nleaves;
    int64_t table_max;          /* kron_tuning's */
} tab_cache;

/* tables.c: a constant, a shared table, or (too big) the expression
 * itself.  0, or -1 (memory). */
int kron_fn_make(kron_fn *f, const san_expr *e, const kron_term *t,
                 int64_t size, tab_cache *tc, const san_model *m);

/* terms.c */
int64_t kron_term_levels(kron_term *t, const san_model *m, int64_t table_max);
int kron_term_build(kron_term *t, const san_model *m, const int *evs, int nev,
                    tab_cache *tc);
void kron_term_free(kron_term *t);
int kron_plan_terms(const san_model *m, int64_t nleaves, int64_t table_max,
                    int *tev, int *tstart);
double kron_term_bytes(const kron_term *t, const san_model *m);

/* ------------------------------------------------------------------ */
/* The level tree (tree.c)                                             */
/* ------------------------------------------------------------------ */

/* The product space: every level complete. */
int kron_tree_product(kron_tree *t, const san_model *m);
/* The reachable set of sp; *keys (when not NULL) receives the sorted
 * indices: leaf -> state. */
int kron_tree_reachable(kron_tree *t, const san_space *sp, int64_t **keys);
void kron_tree_free(kron_tree *t);
/* First leaf below node k of level a (k may be nodes[a]: the end). */
int64_t kron_tree_leaf(const kron_tree *t, int a, int64_t k);
/* First leaves of the nodes of level a (nodes[a] + 1 of them), or NULL. */
int64_t *kron_first_leaves(const kron_tree *t, int a);

/* Child of node k of level a with value v, or -1. */
static inline int64_t tree_child(const kron_tree *t, int a, int64_t k, int v)
{
    if (a >= t->F)
        return k * t->ns[a] + v;
    const int64_t lo = t->first[a][k], hi = t->first[a][k + 1];
    if (lo >= hi)
        return -1;
    const int32_t *val = t->val[a];
    const int v0 = val[lo];
    if (val[hi - 1] - v0 == hi - 1 - lo)
        return v >= v0 && v - v0 < hi - lo ? lo + (v - v0) : -1;
    int64_t l = lo, h = hi - 1;
    while (l <= h) {
        int64_t mid = l + (h - l) / 2;
        if (val[mid] == v)
            return mid;
        if (val[mid] < v)
            l = mid + 1;
        else
            h = mid - 1;
    }
    return -1;
}

/* Children of node an of level a: ids [*c0, *c1); their values are
 * id - *c0 on a complete level, val[a][id] on an explicit one. */
static inline void children(const kron_tree *t, int a, int64_t an,
                            int64_t *c0, int64_t *c1)
{
    if (a >= t->F) {
        *c0 = an * t->ns[a];
        *c1 = *c0 + t->ns[a];
    } else {
        *c0 = t->first[a][an];
        *c1 = t->first[a][an + 1];
    }
}

/* ------------------------------------------------------------------ */
/* Classes of nodes (node_classes.c)                                   */
/* ------------------------------------------------------------------ */

typedef struct {
    int32_t *cls;           /* per node of the level */
    int ncls;
    int64_t *rep;           /* a node of each class */
    int64_t *size;          /* leaves below a node of each class */
    int64_t leaves;         /* sum of size[]: the regions' leaves */
} node_classes;

/* The classes of explicit level a from those of level a + 1 (below
 * NULL: level a + 1 is complete, one class of bsize[a + 1] leaves).
 * 0, or -1 (memory). */
int kron_level_classes(const kron_tree *t, int a, const node_classes *below,
                       node_classes *c);
void kron_classes_free(node_classes *c);

/* ------------------------------------------------------------------ */
/* The region level (regions.c says what it is; mult.c runs it)        */
/* ------------------------------------------------------------------ */

typedef struct {
    int32_t r, s, len, rs;
    int64_t o, os;
    double p;
} kron_run;

typedef struct {
    int nrun;
    kron_run *run;          /* runs of two updates or more */
    int n1;                 /* single updates: y[r1] += p f(di + o1) x[s1], */
    int32_t *r1, *s1, *o1;
    int nseg;               /* in segments of one constant factor p: */
    int32_t *seg;           /* updates seg[k] .. seg[k+1] - 1 have */
    double *segp;           /* p = segp[k] */
} kron_runs;

typedef struct {
    int moving;             /* some participant of the region moves */
    int nfn;
    int32_t *fn;            /* the moves' functions: indices into fprob */
    kron_runs ro;           /* with the functions' table offsets */
    kron_runs r0;           /* the same updates, offsets ignored (when a
                               call has no function: longer runs) */
    int r0_is_ro;           /* r0 would be ro, or is never used: not kept */
} kron_rgroup;

/* The term inside an anchor node of one class, from a source node of
 * one class. */
struct kron_region {
    int ng;
    kron_rgroup *g;
    int any_moving;
    double bytes;
};

/* One node of an explicit region level as a term's walk reaches it:
 * anchor and source leaves, the table index and constant factor of the
 * path above, its functions (read inside the node), whether a
 * participant above moved.  At build time ab and sb hold the nodes. */
typedef struct {
    int64_t ab, sb, di;
    double g;
    const struct kron_region *R;
    int32_t fn;             /* functions: the map's cfn[fn .. fn + nfn) */
    int16_t nfn;
    int16_t moved;
} kron_call;

/* A term's regions, by pair of classes. */
struct kron_rmap {
    char *above;            /* per participant: its level is above the
                               region level (its move comes from the walk) */
    int npair;
    int64_t *key;           /* sorted keys anchor class * ncls + source class */
    struct kron_region **r; /* NULL: no update in that pair */
    int64_t ncall;          /* explicit region level: the walk above it, */
    kron_call *call;        /* listed once, by anchor leaf */
    const kron_fn **cfn;
    double bytes;
};

/* The calls met at the region level (build time, see kron_term_regions). */
struct callset {
    kron_call *v;
    int64_t n, cap;
    const kron_fn **fn;
    int64_t nfn, capfn;
    const char *above;      /* per participant: above the region level */
    int below;              /* the term has a participant below it */
    int tab_const;          /* its tables read no level below: their
                               values are constant in a call */
    int err;
};

/* The region of map M for anchor node an and source node on of the
 * region level (NULL: nothing to apply). */
static inline const struct kron_region *region_of(const struct kron_rmap *M,
                                                  const kron_desc *d,
                                                  int64_t an, int64_t on)
{
    if (!d->rcls)
        return M->r[0];
    const int64_t key = (int64_t)d->rcls[an] * d->ncls + d->rcls[on];
    int l = 0, h = M->npair - 1;
    while (l <= h) {
        const int mid = l + (h - l) / 2;
        if (M->key[mid] == key)
            return M->r[mid];
        if (M->key[mid] < key)
            l = mid + 1;
        else
            h = mid - 1;
    }
    return NULL;
}

/* regions.c */
void kron_rmap_free(struct kron_rmap *M);
/* What the regions' runs may take in all (the tuning's budget). */
double kron_region_room(const kron_desc *d);
/* The region level: d->rlev, rB, the classes.  0, or -1 (memory). */
int kron_choose_region(kron_desc *d, int nterms);
/* The regions of term t, within *room bytes.  0, or -1 (memory). */
int kron_term_regions(kron_term *t, const kron_desc *d, double *room);

/* ------------------------------------------------------------------ */
/* The walk (mult.c) at build time                                     */
/* ------------------------------------------------------------------ */

/* y = the exit rates of the states (every term walked with the source
 * as the anchor; no region runs). */
void kron_exit_rates(const kron_desc *d, double *y);
/* The walk of term t down to the explicit region level, each node it
 * reaches listed in cs (cs->above and cs->tab_const set by the caller);
 * cs->err set when out of memory. */
void kron_walk_calls(const kron_desc *d, const kron_term *t, struct callset *cs);

/* ------------------------------------------------------------------ */
/* The multilevel method (multilevel.c), a kernel of solve.c            */
/* ------------------------------------------------------------------ */

/* Cycles of multilevel aggregation over the automata from pi (the
 * descriptor d of sp's chain is c->op), its coarse chain within room
 * bytes (what the budget leaves beside the descriptor, the vectors and
 * the blocks) and of min states at least: returns as the kernels of
 * numeric/linsolve.h; when no such coarse chain fits, -1 with
 * SAN_E_LIMIT and the reason in c->info->msg, before any cycle. */
#include "solver/numeric/linsolve.h"
int kron_ml(num_ls *c, double *pi, const kron_desc *d, const san_space *sp, double room,
            int64_t min);

/* The bytes of a coarse chain of B states and nnz transitions while ml
 * solves it with nt threads (its pattern's search included). */
double kron_ml_coarse_bytes(int64_t B, int64_t nnz, int nt);

/* The bytes of kron_ml's blocks and tail states, a position each (the
 * coarse chain is kept within the room it is given). */
#define KRON_ML_BLOCK_BYTES 6.0

#endif
