/*
 * estimate.h - memory estimates without building the state space
 * (internal to libsan; used by `san check`).
 *
 * Two ways of storing the generator are compared: the sparse path
 * (solver/space/: every nonzero of Q and of its transpose) and the
 * tensor descriptor (solver/kron/).  Both depend on how many states are
 * reachable and the sparse one on the nonzeros per row, neither of which
 * is known before the exploration; they are estimated cheaply from the
 * reachability function and a sample of states.
 */
#ifndef SAN_ESTIMATE_H
#define SAN_ESTIMATE_H

#include <stdint.h>
#include "san.h"

/* Peak bytes of the sparse path for n states and nnz nonzeros of Q. */
double est_sparse_bytes(const san_model *m, double n, double nnz);

/* The same for the n states of a space built without Q (index: their
 * product indices): the nonzeros per state counted on up to 4096 of
 * them, evenly spaced.  0 when not estimated. */
double est_sparse_bytes_of(const san_model *m, const int64_t *index, int64_t n);

/* Q's nonzeros (the diagonal included) over those n states, from the
 * same sample; 0 when not estimated. */
double est_nonzeros_of(const san_model *m, const int64_t *index, int64_t n);

#endif
