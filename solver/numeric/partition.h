/*
 * partition.h - partitions of a chain's states into blocks (internal to
 * libsan), for the aggregation of aggregate.c.
 *
 * What a residual test cannot see is the error along the slow modes of
 * a chain: a vector whose blocks of strongly connected states are each
 * in balance, but which puts the wrong mass on each block.  Aggregating
 * over a partition whose blocks hold those slow modes measures that
 * error exactly and removes it.  In a SAN the slow modes are, nearly
 * always, functions of
 *   - one automaton's local state (a slow automaton gating fast ones),
 *   - the joint state of the automata one event couples (its
 *     participants and the automata its rate and probabilities read),
 *   - the components that the fast transitions connect (sparse path:
 *     found from the generator by thresholds on the rates).
 * A chain small enough for a dense solve is also one partition, into
 * single states: its coarse chain is the chain itself, solved by GTH.
 */
#ifndef SAN_PARTITION_H
#define SAN_PARTITION_H

#include <stdint.h>
#include "san.h"

/* Coarse chains are solved densely (GTH, O(B^3)): at most this many
 * blocks in one partition. */
#define SAN_PART_MAX_BLOCKS 512
/* The whole chain is a partition (into single states) up to this many
 * states: its check is then an independent dense solve, ~3 ms. */
#define SAN_PART_WHOLE_MAX 256

/* Room for a partition's name in messages: an automaton's, or a group's
 * ("automata A, B (event sync1)", "... in runs of 6"), whole (a name cut
 * at 60 characters left "over automaton Aaaa its error"). */
#define SAN_PART_WHAT 512

typedef struct {
    int nblk;               /* blocks, numbered 0 .. nblk-1 */
    uint16_t *blk;          /* per vector position: its block (any value
                               where the vector is zero for good:
                               positions outside the chain) */
    char what[SAN_PART_WHAT]; /* for messages: "automaton Buffer",
                               "automata A, B (event sync1)", ... */
    double coupling;        /* fast components: the largest rate
                               between two of them, over its source's
                               exit rate (the epsilon of a nearly
                               decomposable chain); else 0 */
    int naut;               /* the automata whose joint state it is */
    int *aut;               /*   (none: fast components, whole chain) */
} num_part;

typedef struct {
    int n, cap;
    num_part *p;
    double bytes;           /* memory held */
    double deadline;        /* a point on san_now()'s clock past which no
                               partition is added (0: none): they only
                               strengthen the check of an answer that
                               the time limit is about to stop anyway */
    volatile int *interrupt;/* the solve's Ctrl-C flag (NULL: none): no
                               partition is added once it is set */
} num_parts;

/* Is P's deadline past, or the solve interrupted? */
int num_parts_late(const num_parts *P);

/* Sparse path: the components connected by the transitions that carry
 * at least a fraction theta of their source's exit rate, for a few
 * thresholds theta, from the transposed generator (rows = columns of
 * Q, the diagonal stored).  0 or -1. */
int num_parts_add_fast(num_parts *P, const san_csr *qt, double budget);

/* The partition into single states, when n <= SAN_PART_WHOLE_MAX. */
int num_parts_add_whole(num_parts *P, int64_t n);

/* Drops the partitions that add nothing: a copy of an earlier one (the
 * fast components are often one automaton's states), and one
 * automaton's when a group holding it is kept (a finer partition
 * corrects what the coarser one would, and its check sees what the
 * coarser one would see).  Each partition costs an aggregation pass. */
void num_parts_prune(num_parts *P, int64_t n);

/* The weakest coupling of the fast components found (1 when none): a
 * chain under 1e-4 is nearly decomposable, and the aggregation method
 * is the one that converges on it. */
double num_parts_coupling(const num_parts *P);

void num_parts_free(num_parts *P);

/* Adds a partition (takes blk, malloc'd, n entries).  0, or -1 when
 * out of memory (blk freed). */
int num_parts_push(num_parts *P, int nblk, uint16_t *blk, int64_t n, const char *what);

/* ---- fast components: union-find forests, one per threshold ---- */

/* The fractions of its source's exit rate below which a transition is
 * "slow": one partition per threshold that gives a new one.  Three
 * decades apart, so that chains with several time scales (rates at
 * 1e-4, 1e-2, 1, 1e2, 1e4) get one per gap. */
#define SAN_NTHETA 3
extern const double num_fast_theta[SAN_NTHETA];

typedef struct {
    int64_t n;
    int32_t *parent[SAN_NTHETA];
    double coupling[SAN_NTHETA];    /* see num_part.coupling */
} num_forests;

int num_forests_init(num_forests *F, int64_t n);
void num_forests_free(num_forests *F);
/* First pass: the transition i -> j at rate q out of exit rate d joins
 * i and j in the forest of every threshold it passes. */
void num_forests_arc(num_forests *F, int64_t i, int64_t j, double q, double d);
/* Second pass, once the forests are complete: the largest rate between
 * two components, relative to its source's exit rate. */
void num_forests_cross(num_forests *F, int64_t i, int64_t j, double q, double d);
/* A partition per threshold that gives a new one. */
int num_forests_parts(num_parts *P, num_forests *F, double budget);

#endif
