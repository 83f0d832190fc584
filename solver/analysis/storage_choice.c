/*
 * storage_choice.c - --storage auto by predicted time and memory (issue
 * 27 item 4): a cost model of each storage from the chain's sizes, and
 * the rule that picks one; see storage_choice.h.
 *
 * The cost model.  Both storages run their own default method: sparse,
 * BiCGSTAB with ILU(0) (then the aggregation's checks); kron, BiCGSTAB
 * with Jacobi, then the aggregation when it stagnates.  A solve is
 * counted in products y = x Q of its storage, the preconditioner, the
 * vectors and the aggregation cycles folded into a number of
 * "product-equivalents" per storage (solve seconds over the seconds of
 * one product), measured on the models of bench/ (table 14):
 *
 *   sparse: a product reads Q by rows, 12 bytes a nonzero, and the
 *     vectors, 24 bytes a state, at the CSR product's bandwidth;
 *   kron: a product walks the descriptor and makes every transition
 *     again (a cost a nonzero of Q: rates, positions), with no matrix
 *     to read;
 *   build: the sparse path explores again and assembles Q (its cost
 *     goes with the nonzeros), the tensor path checks the classes on
 *     the states it explored (the successors again: also with the
 *     nonzeros); the exploration both share is done when this runs.
 *
 * The memory: the sparse path's peak is est_sparse_bytes' (exploring:
 * the rows and the map; solving: Q, its transpose, the vector) plus
 * auto's method (ILU(0): 8 bytes a nonzero and 16 a state; BiCGSTAB's
 * 9 vectors; the aggregation's partitions, ~4 bytes a state); the
 * tensor path's is the space (index, exit rates, class flags: 17 bytes
 * a state) plus san_kron_estimate_bytes (the descriptor with its
 * vectors) plus the partitions.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "solver/analysis/storage_choice.h"

/* ---- the constants (2-core machine; bench/ table 14 shows the error) ----
 *
 * Absolute figures from the 1,987,983-state TSS variant (tss9, --lump
 * off) near idle: sparse build 1.63 s (0.94 explore+build, 0.69 check)
 * for 23.8 M nonzeros, a CSR product at 12 GB/s (27.8 ms), solve 10.6 s
 * = 380 products; kron: check 0.75 s, a product 24.6 ms (1.03 ns a
 * nonzero), solve 17.0 s = 690 products.  The ratio of the two
 * storages' product counts, from 9 models under load (cluster64, ms8,
 * ncd17, rs20_9, rs20_10, rs22_11, tandem, tss6, tss9): medians 1,280
 * kron and 681 sparse, 1.9x; tss9 near idle 1.8x.  The structure the
 * sizes do not see (convergence, functional rates, fill) moves each
 * model's measured ratio from 0.67 to 2.14 around the 1.3 median: the
 * rule's slack below absorbs part of it.  These figures predate the
 * sparse path's speed-ups: the product counts were refit on 2026-11-30
 * (KRON_PRODUCTS says how). */

/* The CSR product's bandwidth, bytes a second. */
#define SPARSE_BW 12e9
/* A sparse solve by auto's method, in products (ILU(0), vectors and
 * the aggregation's checks folded in): refit 2026-11-30 after the
 * sparse path's speed-ups (was 400), see KRON_PRODUCTS. */
#define SPARSE_PRODUCTS 240.0
/* The sparse build (exploration, assembly, class check), seconds a
 * nonzero. */
#define SPARSE_BUILD_NNZ 68e-9
/* The descriptor's product, seconds a nonzero of Q it generates. */
#define KRON_NNZ_S 1.05e-9
/* A kron solve by auto's method, in products (was 650).  Refit
 * 2026-11-30 on rs20_9 (431,910 states, 7.2 M nonzeros, tol 1e-12),
 * the one model with end-to-end figures at a light load: sparse 2.7 s,
 * kron 4.34 s wall, less the exploration both share (~0.25 s): 240 and
 * 510 products (the build constants kept).  The other models' ratios
 * from CPU seconds (user+sys), interleaved runs at load 10-12 where
 * wall times are 4-8x idle and their ratio flattens to 0.9-1.2 (the
 * sparse path uses the 2 cores better: CPU over idle wall 1.96 against
 * kron's 1.42 on rs20_9), min of 2, --lump off, tol 1e-12:
 *
 *   model     states   CPU s sparse/kron  ratio  x1.38  predicted (old)
 *   rs20_9   431,910     5.28 / 6.15      1.16   1.60   1.68 (1.38)
 *   rs20_10  616,666     6.84 / 8.19      1.20   1.66   1.69 (1.39)
 *   ms8/40   498,820     5.66 / 7.31      1.29   1.78   1.61 (1.31)
 *   tss7     220,887     2.31 / 3.85      1.67   2.30   1.59 (1.30)
 *   pipe7    499,121     3.89 / 9.13      2.35   3.24   1.50 (1.22)
 *
 * (x1.38: the CPU ratio over rs20_9's parallel efficiencies, an
 * estimate of the idle wall ratio.)  Sparse was the faster on all five
 * (by CPU; by idle wall on rs20_9); the sizes see none of the
 * structure behind 1.16-2.35, and the refit predictions stay at or
 * below the measured ratios. */
#define KRON_PRODUCTS 510.0
/* The tensor path's class check, seconds a nonzero. */
#define KRON_CHECK_NNZ 31e-9

/* The aggregation's partitions, bytes a state. */
#define PARTS_BYTES 4.0

void storage_predict(san_storage_choice *c)
{
    const double n = c->states, nnz = c->nonzeros;
    const double exploring = 16 * n + 12 * nnz + c->map_bytes;
    const double solving = 33 * n + 24 * nnz            /* Q, its transpose, pi */
                         + 8 * nnz + 16 * n              /* ILU(0) */
                         + 9 * 8 * n + PARTS_BYTES * n;  /* BiCGSTAB, partitions */
    c->m_sparse = fmax(exploring, solving);
    c->m_kron = 17 * n + c->kron_bytes + PARTS_BYTES * n;
    const double t_prod_sparse = (12 * nnz + 24 * n) / SPARSE_BW;
    const double t_prod_kron = KRON_NNZ_S * nnz;
    c->t_sparse = SPARSE_BUILD_NNZ * nnz + SPARSE_PRODUCTS * t_prod_sparse;
    c->t_kron = KRON_CHECK_NNZ * nnz + KRON_PRODUCTS * t_prod_kron;
}

/* Why 1.75 and 4.5 (were 1.5 and 3).  Measured 2026-11-30 as above:
 * where the descriptor is 2-4.3x smaller (rs20_9 3.8x, rs20_10 4.2x,
 * tss7 3.4x, ms8/40 2.8x, pipe7 2.3x by the predictions; peaks 288/77,
 * 431/105, 101/36, 246/82, 172/85 MiB measured) sparse was the faster,
 * 1.16-2.35x by CPU, 1.6x by idle wall on rs20_9, and the old rule took
 * kron on rs20_9, rs20_10 and tss7 (predicted 1.30-1.39x, within 1.5)
 * for a saving of 100-300 MiB.  Only a saving of 4.5x or more now buys
 * the descriptor, at a predicted cost of at most 1.75x (the refit's
 * ratio is 1.5-1.7 on the chains above): tss.san, the PEPS
 * distribution's model (17.9 M states), was 9.98 GB on sparse against
 * 1.85 GB on the descriptor (5.4x; the descriptor also the faster, 155
 * against 497 s, a week before), the target 2.5 GB.  The
 * earlier table (a week before the sparse speed-ups, wall s / peak MiB,
 * load beside):
 *
 *   model      states     sparse       kron       kron/sparse   load
 *   tss9       1,987,983  25.8 / 966   33.4 / 251  1.30 / 0.26    3
 *   rs20_9       431,910   5.2 / 288    3.9 / 77   0.74 / 0.27    3
 *   rs20_10      616,666   7.9 / 431   13.7 / 105  1.72 / 0.24    3
 *   rs22_11    2,449,868  93.4 / 1830 122.8 / 386  1.31 / 0.21    5
 *   ms8 async    498,820  25.8 / 245   32.1 / 81   1.25 / 0.33   11
 *   ncd17        524,288  21.6 / 302   14.5 / 82   0.67 / 0.27   11
 *   cluster64    151,060   3.7 / 54     7.8 / 31   2.14 / 0.57   11
 *   tss6          73,629   0.9 / 37     1.5 / 18   1.68 / 0.49    3
 *
 * 0.8 of the budget: the predicted peaks were within 0.78-1.21 of the
 * measured (bench/ table 14), and the sparse build stops at the budget
 * anyway (rule "fell-back").
 *
 * The rule, in this order:
 *   1. fits = predicted peak <= STORAGE_MEM_SHARE x budget.  Neither
 *      fits: the smaller ("neither"; it may still be refused); one
 *      fits: that one ("fits").
 *   2. both fit: the faster ("faster"), unless the other is within
 *      STORAGE_TIME_SLACK of its time and at least STORAGE_MEM_GAIN
 *      times smaller ("smaller").
 * Ties go to sparse (its methods are the richer: ILU(0), Gauss-Seidel,
 * direct). */
void storage_rule(san_storage_choice *c)
{
    const double room = STORAGE_MEM_SHARE * c->budget;
    const int fs = c->m_sparse <= room, fk = c->m_kron <= room;
    if (!fs && !fk) {
        c->rule = SAN_PICK_NEITHER;
        c->pick = c->m_kron < c->m_sparse ? SAN_STORAGE_KRON : SAN_STORAGE_SPARSE;
    } else if (fs != fk) {
        c->rule = SAN_PICK_FITS;
        c->pick = fs ? SAN_STORAGE_SPARSE : SAN_STORAGE_KRON;
    } else {
        const int sparse_faster = c->t_sparse <= c->t_kron;
        const double t_fast = sparse_faster ? c->t_sparse : c->t_kron;
        const double t_slow = sparse_faster ? c->t_kron : c->t_sparse;
        const double m_fast = sparse_faster ? c->m_sparse : c->m_kron;
        const double m_slow = sparse_faster ? c->m_kron : c->m_sparse;
        const int smaller = t_slow <= STORAGE_TIME_SLACK * t_fast &&
                            m_slow * STORAGE_MEM_GAIN <= m_fast;
        c->rule = smaller ? SAN_PICK_SMALLER : SAN_PICK_FASTER;
        c->pick = sparse_faster != smaller ? SAN_STORAGE_SPARSE : SAN_STORAGE_KRON;
    }
}

const char *san_storage_rule_name(san_storage_rule r)
{
    switch (r) {
    case SAN_PICK_SMALL:     return "small";
    case SAN_PICK_FASTER:    return "faster";
    case SAN_PICK_SMALLER:   return "smaller";
    case SAN_PICK_FITS:      return "fits";
    case SAN_PICK_NEITHER:   return "neither";
    case SAN_PICK_FELL_BACK: return "fell-back";
    case SAN_PICK_RETRIED:   return "retried";
    default:                 return NULL;
    }
}

/* "1.2 s" / "35 ms" */
static const char *secs(double t, char *b, size_t size)
{
    if (t < 1)
        snprintf(b, size, "%.0f ms", 1e3 * t);
    else
        snprintf(b, size, "%.3g s", t);
    return b;
}

char *san_storage_choice_text(const san_storage_choice *c, char *out, size_t size)
{
    char t1[32], t2[32], m1[32], m2[32], bud[32];
    const int sparse = c->pick == SAN_STORAGE_SPARSE;
    out[0] = '\0';
    if (c->rule == SAN_PICK_NONE)
        return out;
    if (c->rule == SAN_PICK_FELL_BACK && !(c->states > 0)) {
        snprintf(out, size, "kron, the sparse build was over --max-memory (not predicted: "
                 "at most %d product states)", STORAGE_SMALL_PRODUCT);
        return out;
    }
    if (c->rule == SAN_PICK_SMALL) {
        snprintf(out, size, "small chain (at most %d product states): sparse, not predicted",
                 STORAGE_SMALL_PRODUCT);
        return out;
    }
    const char *why;
    switch (c->rule) {
    case SAN_PICK_FASTER:    why = "the faster"; break;
    case SAN_PICK_SMALLER:   why = "the smaller, nearly as fast"; break;
    case SAN_PICK_FITS:      why = "the only one that fits"; break;
    case SAN_PICK_NEITHER:   why = "neither fits: the smaller"; break;
    case SAN_PICK_RETRIED:   why = "kron's methods did not converge"; break;
    default:                 why = "the sparse build was over --max-memory"; break;
    }
    snprintf(out, size, "%s, %s: predicted %s and %s, %s %s and %s (room %s)",
             sparse ? "sparse" : "kron", why,
             secs(sparse ? c->t_sparse : c->t_kron, t1, sizeof t1),
             san_format_bytes(sparse ? c->m_sparse : c->m_kron, m1, sizeof m1),
             sparse ? "kron" : "sparse",
             secs(sparse ? c->t_kron : c->t_sparse, t2, sizeof t2),
             san_format_bytes(sparse ? c->m_kron : c->m_sparse, m2, sizeof m2),
             san_format_bytes(STORAGE_MEM_SHARE * c->budget, bud, sizeof bud));
    return out;
}
