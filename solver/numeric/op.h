/*
 * op.h - the generator as the iterative kernels see it (internal to
 * libsan): an operator y = x Q over vectors of n doubles, whatever
 * stores Q.
 *
 * The kernels of power, Jacobi, GMRES(m) and BiCGSTAB (stationary.c,
 * krylov.c) are written once against this interface.  Two storages
 * provide it:
 *
 *   sparse  the transposed generator in compressed rows (op.c): a row
 *           of qt is a column of Q, so (x Q)_j is one sparse dot; rows
 *           are there for Gauss-Seidel, ILU(0) and the direct methods.
 *   kron    the Kronecker descriptor (solver/kron/solve.c): products only, the
 *           diagonal as a vector, no rows.
 *
 * Every product goes through num_op_apply or num_op_pass, which count
 * them and the time they take (san_solve_info.products, product_s).
 */
#ifndef SAN_OP_H
#define SAN_OP_H

#include <stdint.h>
#include "san.h"

/* What a fused pass (num_op_pass) measures besides max |(x Q)_j|. */
typedef struct {
    double xsum, xmax;          /* sum and largest entry of x */
    double ysum;                /* sum of y (when y is written) */
} num_op_stats;

typedef struct num_op num_op;
struct num_op {
    int64_t n;                  /* vector length */
    /* y = x Q (x and y distinct). */
    void (*apply)(const num_op *op, const double *x, double *y);
    /* Optional: one product fused with the sweep over its result that
     * num_op_pass describes, in a single pass over the rows (no scratch
     * vector).  NULL: apply into w, then the sweep. */
    double (*pass)(const num_op *op, const double *x, double *y, int jacobi,
                   double a, double c, num_op_stats *st);
    const double *diag;         /* q_jj by position; NULL when rows give
                                   it (num_op_qjj reads either) */
    const san_csr *rows;        /* the transposed generator when it is
                                   stored (row access: Gauss-Seidel,
                                   ILU(0), direct), else NULL */
    double maxd;                /* max_j |q_jj|: the scale of residuals */
    double *w;                  /* n doubles of scratch for passes
                                   without a fused version */
    int64_t par_min;            /* vector loops over fewer entries than
                                   this stay on one thread (the storage
                                   knows what its products do with the
                                   threads: see the two definitions) */
    int blas_one_thread;        /* the Krylov solvers run BLAS on one
                                   thread (krylov.c says why) */
    /* Optional: F[S][T] += sum_{i in S, j in T, S != T} x_i q_ij over
     * the partition blk into B blocks (the automata aut[0..naut) its
     * blocks are the joint local state of; naut 0: unknown), B x B
     * row-major, in about one product (aggregate.c).  0; 1 when it
     * cannot (the caller then does one product per block); -1 out of
     * memory.  x NULL: only whether it can. */
    int (*flows)(const num_op *op, const uint16_t *blk, int B, const int *aut, int naut,
                 const double *x, double *F);
    const void *ctx;            /* the storage's own data */
    /* Counted by num_op_apply and num_op_pass: */
    long products;
    double product_s;
};

/* The sparse operator over the transposed generator qt; maxd as
 * validated by the caller. */
void num_op_csr(num_op *op, const san_csr *qt, double maxd);

/* y = x Q, counted and timed. */
void num_op_apply(num_op *op, const double *x, double *y);

/* One product and a sweep over t = x Q, counted and timed as one
 * product.  Returns max_j |t_j|; st gets the sum and the largest entry
 * of x.  When y is not NULL it is also written, and st->ysum is its sum:
 *     y_j = c (x_j + a t_j)              jacobi = 0 (power step)
 *     y_j = c (x_j - a t_j / q_jj)       jacobi = 1 (no step where
 *                                        q_jj = 0: states outside the
 *                                        chain on the product space) */
double num_op_pass(num_op *op, const double *x, double *y, int jacobi,
                   double a, double c, num_op_stats *st);

/* The residual of a vector x from m = max_j |(x Q)_j| and the stats of
 * x: THE definition, for every method and both storages,
 *
 *     max_j |(x Q)_j| / (max_j |q_jj| * max_j x_j)
 *
 * relative to the largest rate and to the largest probability.  It does
 * not depend on the scale of x (x need not be normalized), and it does
 * not shrink with the number of states: a vector far from the answer has
 * a residual of order 1 on any chain, where ||x Q||_inf / max|q_jj| with
 * sum x = 1 gave the uniform vector of 10^8 states a residual of ~1e-8.
 * NaN when m is NaN; HUGE_VAL when max_j x_j <= 0 (no distribution).
 * num_resid_scale is the divisor, for the Krylov methods' stand-in
 * targets. */
double num_resid_scale(double maxd, const num_op_stats *st);
double num_resid_value(double m, double maxd, const num_op_stats *st);
/* The residual of x: one counted product.  st (may be NULL) gets the sum
 * and largest entry of x. */
double num_op_residual(num_op *op, const double *x, num_op_stats *st);

/* q_jj of position j. */
double num_op_qjj(const num_op *op, int64_t j);

/* Vector helpers with 64-bit lengths: OpenMP loops above op->par_min,
 * CBLAS in chunks (cblas takes int lengths). */
/* The compensated sum of x (vec.c says why), on several threads from
 * par_min entries on: num_op_sum and num_ls_sum. */
double num_sum_par(const double *x, int64_t n, int64_t par_min);
double num_op_sum(const num_op *op, const double *x);
void num_op_scale(const num_op *op, double *x, double a);
double num_vdot(int64_t n, const double *x, const double *y);
void num_vaxpy(int64_t n, double a, const double *x, double *y);
double num_vnrm2(int64_t n, const double *x);

#endif
