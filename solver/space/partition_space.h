/*
 * partition_space.h - the partitions that come from a model and its
 * state space (internal to libsan; numeric/partition.h has the type).
 */
#ifndef SAN_PARTITION_SPACE_H
#define SAN_PARTITION_SPACE_H

#include "solver/numeric/partition.h"

/* Partitions from the model (none past P's deadline): one per automaton with 2 to
 * SAN_PART_MAX_BLOCKS local states, one per distinct group of automata
 * coupled by an event (participants and the automata its rate and
 * probabilities read) whose joint states in use are few enough.  The
 * vector has n positions; idx[p] is the mixed-radix index of position
 * p (idx NULL: p itself).  Partitions are added while the memory they
 * hold stays within budget bytes.  0, or -1 when out of memory. */
int space_parts_add_model(num_parts *P, const san_model *m, int64_t n,
                        const int64_t *idx, double budget);

/* The same components without a stored generator (the tensor path):
 * the transitions of every reachable state of sp enumerated again,
 * rank(ctx, idx) giving the vector position of a mixed-radix index
 * (npos positions).  Past P's deadline the partition is given up, not
 * added.  0 or -1. */
int space_parts_add_fast_space(num_parts *P, const san_space *sp, int64_t npos,
                             int64_t (*rank)(const void *ctx, int64_t idx),
                             const void *ctx, double budget);

#endif
