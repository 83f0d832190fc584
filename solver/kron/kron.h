/*
 * kron.h - the generator as a Kronecker descriptor (internal to libsan).
 *
 * Q = sum over terms of (R_t - D_t), D_t the diagonal correction of R_t.
 * A synchronizing event is one term: R_e is a generalized tensor product
 * of the participants' local matrices of e (routing probabilities,
 * possibly functional) scaled by the rate of e (possibly functional).
 * The local events of an automaton are one term together, the classical
 * local matrix of the tensor sum: one participant whose moves carry
 * their own event's rate (the term's rate is then 1), so that a product
 * walks the vector once per automaton, not once per local event (terms.c
 * says when an event stays apart).  The diagonal of Q (minus the exit
 * rate of each state, self-loops excluded as on the sparse path) is
 * computed once, as a vector.
 *
 * Vectors live on a set of global states organized as a level tree over
 * the automata (automaton 0 at the root, the order of the mixed-radix
 * index): a node of level a is a prefix (s_0 .. s_{a-1}) of some state
 * of the set, its children are the values s_a that extend it, and the
 * leaves (level naut) are the vector positions, in increasing
 * mixed-radix order.  Levels from F down are complete (every node has
 * every value), stored implicitly: child = node * n_a + v.  The product
 * space is the tree with F = 0 (vectors on the product space, the
 * unreachable entries staying exactly zero); the reachable set is the
 * explicit tree.  mult.c says how the choice is made.
 *
 * The files of solver/kron/, in the order of a build:
 *   tree.c          the level tree over the automata, kron_rank
 *   node_classes.c  nodes whose subtrees hold the same states
 *   tables.c        functions of the state as tables (shared, per state)
 *   terms.c         the terms: which events make one, their moves
 *   regions.c       the region level: runs per pair of classes, calls
 *   build.c         kron_build, kron_free: windows, diagonal, tunings
 *   mult.c          the product y = x Q (kron_mult): the walk, the runs;
 *                   the flows between blocks (kron_flows)
 *   solve.c         pi Q = 0 over the descriptor (kron_solve)
 *   check.c         the class check of a states_only space
 *   estimate.c      the descriptor's size before building it
 * kron_int.h holds what they share and callers do not see.
 */
#ifndef SAN_KRON_H
#define SAN_KRON_H

#include <stdint.h>
#include "san.h"

typedef struct {
    int naut;
    int F;                  /* levels >= F are complete and implicit */
    int *ns;                /* local state counts */
    int64_t *nodes;         /* nodes[a], a = 0..naut: prefixes of length a;
                               nodes[naut] = vector length */
    int64_t **first;        /* a < F: children of node k are first[a][k] ..
                               first[a][k+1] - 1, ids of level a+1 */
    int32_t **val;          /* a < F: val[a][c] = value s_a of child c */
    int64_t *bsize;         /* a >= F: leaves below one node of level a */
    double bytes;
} kron_tree;

/* The terms (kron_int.h). */
struct kron_term;

/* KRON_AUTO puts vectors on the product space when the reachable set
 * fills at least this fraction of it (mult.c says why). */
#define KRON_PRODUCT_MIN_FILL 0.85

/* Where vectors live. */
typedef enum { KRON_AUTO, KRON_PRODUCT, KRON_REACHABLE } kron_mode;

/* The build's tunings: how the product is organized (its speed, its
 * memory), never what it computes (other values change only the order
 * of the additions).  The defaults (kron_tuning_default; build.c says
 * why each) are what san runs with; the tests force the paths the
 * defaults seldom take (tests/unit/test_kron_product.c). */
typedef struct {
    int64_t table_max;      /* largest table of a function (entries);
                               bigger ones are evaluated (at most 2^31:
                               runs keep table offsets in 32 bits) */
    int64_t window_len;     /* windows of y about this many states at most */
    int64_t region_max;     /* complete levels: the region level is the
                               first whose nodes have at most this many
                               leaves (0: no complete region level) */
    double region_bytes_per_state;  /* the region runs of all terms may
                               take this many bytes a state, */
    double region_min_bytes;        /* and at least this many (both 0: no
                               runs, every term walks down to the
                               leaves) */
    int run_min;            /* explicit region levels: shorter runs are
                               kept as single updates */
    int keep_levels;        /* keep the explicit levels even when every
                               term runs from calls (build.c drops them
                               then): the flows walk from the sources on
                               them (kron_flows), which the multilevel
                               method needs at every cycle */
} kron_tuning;

extern const kron_tuning kron_tuning_default;

typedef struct {
    const san_model *m;
    kron_mode mode;         /* as built (never AUTO) */
    kron_tree tree;
    int64_t n;              /* vector length = tree.nodes[naut] */
    int nterms;
    struct kron_term *term;
    int ntab;               /* distinct tables, shared between terms */
    void **tab;             /* tables of values, or of codes (kron_fn) */
    double *diag;           /* Q[j][j] per vector position */
    double maxd;            /* max |Q[j][j]| over the reachable states */
    int64_t nwin;           /* windows: the vector cut for threads and cache */
    int64_t *win;           /* nwin + 1 window bounds */
    int split;              /* explicit level whose nodes are pruned */
    int64_t *sleaf;         /* first leaf of each node of the split level
                               (nodes[split] + 1; NULL if split >= F) */
    int rlev;               /* region level (naut: none) */
    int64_t rB;             /* leaves of a node of the region level, when
                               complete */
    int32_t *rcls;          /* explicit region level: class of each node
                               (same class, same subtree); NULL if complete */
    int64_t *rleaf;         /* explicit region level: first leaf of each
                               node, nodes[rlev] + 1 entries */
    int ncls;               /* classes of the region level (1 if complete) */
    int64_t *crep;          /* a node of each class */
    int64_t *csize;         /* leaves below a node of each class */
    int maxns;              /* largest automaton */
    int nthreads;           /* threads of the products (at most) */
    int64_t cvlen;          /* max(maxns, leaves of a region node) */
    double *cv;             /* per thread: cvlen coefficients */
    const int64_t *keys;    /* when the explicit levels were dropped after
                               the build: the sorted reachable indices
                               (position = rank among them), the space's
                               own (sp must outlive d) or a copy */
    int keys_owned;
    double bytes;           /* descriptor: tree, local matrices, tables */
    double levels_bytes;    /* the explicit levels dropped after the build
                               (0: kept); a build that keeps them takes
                               bytes + levels_bytes, less the keys' copy */
    kron_tuning tune;       /* as built */
} kron_desc;

/* Builds the descriptor of sp's model on sp's reachable states; sp
 * must outlive it.  tune NULL: kron_tuning_default.  Returns 0, or -1
 * with a message (out of memory, too big). */
int kron_build(kron_desc *d, const san_space *sp, kron_mode mode,
               const kron_tuning *tune, char *msg, size_t len);
void kron_free(kron_desc *d);

/* y = x Q over the descriptor's vectors (x and y distinct). */
void kron_mult(const kron_desc *d, const double *x, double *y);

/* The descriptor as an operator (op.h) for the kernels written against
 * it: the steady-state solvers (solve.c) and uniformization
 * (solver/transient/); w is the scratch of num_op_pass (n doubles). */
struct num_op;
void kron_op(struct num_op *op, const kron_desc *d, double *w);

/* The flows between the blocks of a partition under x, in one walk of
 * the terms from the sources (mult.c):
 *
 *     F[S][T] += sum_{i in S, j in T} x_i q_ij,  S != T,
 *
 * blk[i] the block of position i (B blocks, F B x B row-major).  A
 * transition i -> j of a term is its rate at i times its participants'
 * probabilities at i, as in the product; so F is what one product per
 * block (x restricted to S, times Q, summed by block) gives, in the
 * time of about one product whatever B.  lev (NULL: every level) marks
 * the automata whose local state the blocks depend on: the terms that
 * move none of them keep every state in its block and are not walked.
 * 0; 1 when the descriptor cannot walk from the sources (its explicit
 * levels dropped after the build, build.c); -1 out of memory. */
int kron_flows_ok(const kron_desc *d);
int kron_flows(const kron_desc *d, const uint16_t *blk, int B, const char *lev,
               const double *x, double *F);
/* The threads that walk the flows: the callers that walk them every
 * cycle (multilevel.c) hold the other threads' sums, (threads - 1)
 * times the flows, and give them as tf (the first thread's go into F):
 * allocated once, not a cycle (a cycle's allocations left the heap
 * fragmented).  kron_flows is kron_flows_into with its own tf. */
int kron_flows_threads(const kron_desc *d);
int kron_flows_into(const kron_desc *d, const uint16_t *blk, int B, const char *lev,
                    const double *x, double *F, double *tf);

/* The rates of the transitions i -> i + 1 into up[i] and i -> i - 1
 * into dn[i] (positions; summed over the terms that move a level of
 * lev), in one walk: the line smoothing of the multilevel method
 * (multilevel.c) keeps those that change only the last automaton.
 * 0; 1 when the descriptor cannot walk from the sources (as kron_flows). */
int kron_line_rates(const kron_desc *d, const char *lev, double *up, double *dn);

/* The flows of kron_flows kept sparse, for partitions of many blocks
 * (the coarse levels of the multilevel method, multilevel.c, blocks
 * of 32 bits): first
 * the pattern, the pairs S != T with a transition from S to T, as rows
 * by source block (ptr B + 1, col ascending; x only needs to be
 * positive where the chain is); then, per vector x, F[k] the flow of
 * pair k.  Both take one walk of every term; 0, 1 (cannot walk, as
 * kron_flows), -1 out of memory; the pattern 2 when there are more
 * than max_pairs pairs, found before its sets outgrow
 * KRON_PAIR_BYTES bytes a pair a thread. */
#define KRON_PAIR_BYTES 48.0
int kron_flows_pattern(const kron_desc *d, const uint32_t *blk, int64_t B, const double *x,
                       int64_t max_pairs, int64_t **ptr, int32_t **col);
int kron_flows_sparse(const kron_desc *d, const uint32_t *blk, int64_t B, const int64_t *ptr,
                      const int32_t *col, const double *x, double *F, double *tf);

/* Vector position of a mixed-radix index, -1 when not in the set. */
int64_t kron_rank(const kron_desc *d, int64_t idx);

/* check.c: the class check of a states_only space (public, see san.h:
 * san_kron_check_classes). */
san_status san_kron_check_classes(san_space *sp, const san_space_opts *o, san_diag *d);

/* Solve over the descriptor, as an_solve over the sparse generator
 * (internal to libsan since issue 30 item 4; san_analyze picks the
 * storage): the same returns, -1 with SAN_E_USAGE in sol's info for o
 * of another layout.  The descriptor's size in bytes goes to
 * *descriptor_bytes (may be NULL). */
int kron_solve(const san_space *sp, const san_solve_opts *o, san_solution *sol,
               double *descriptor_bytes);
/* kron_solve with the vectors' set forced (a kron_mode) and the
 * build's tunings (NULL: the defaults): for tests and measurements. */
int kron_solve_mode(const san_space *sp, const san_solve_opts *o,
                        san_solution *sol, double *descriptor_bytes, int mode,
                        const kron_tuning *tune);

/* Bytes the descriptor alone would take for m, its vectors nleaves long
 * (the terms and their tables; no vectors, no tree), with the default
 * tunings. */
double kron_terms_bytes(const san_model *m, double nleaves);

#endif
