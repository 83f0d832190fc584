/*
 * kernels.c - the sparse path's kernels against the memory floor: time,
 * bytes moved and GB/s of the product y = x Q, of the ILU(0)
 * triangular solves (in row order and by level schedule) and of a
 * Gauss-Seidel sweep, beside the machine's STREAM-triad bandwidth.
 *
 *   bench/kernels MODEL.san [ROUNDS]
 *
 * Every kernel here is memory-bound: its floor is the bytes it must
 * read and write once per call over the bandwidth the machine gives a
 * plain triad.  The bytes counted are the compulsory ones: the matrix
 * (8 bytes a value, 4 a column, 8 a row pointer), the vectors read and
 * written once; a gathered x is counted once though it is read once per
 * nonzero (the cache serves the rest, or not: that is what GB/s shows).
 * Best of ROUNDS (default 5) calls each, after one warm-up call.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "san.h"
#include "solver/numeric/linsolve.h"
#include "solver/numeric/precond.h"
#include "solver/space/space_int.h"

static double now(void)
{
    return san_now();
}

/* Seconds of the best of rounds calls of a triad over n doubles a
 * vector (24 bytes an element): the machine's bandwidth. */
static double triad_gbs(int64_t n, int rounds)
{
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    if (!a || !b || !c) {
        free(a), free(b), free(c);
        return NAN;
    }
    SAN_OMP(omp parallel for schedule(static))
    for (int64_t i = 0; i < n; i++) {
        a[i] = 0;
        b[i] = 1;
        c[i] = 2;
    }
    double best = HUGE_VAL;
    for (int r = 0; r <= rounds; r++) {
        double t = now();
        SAN_OMP(omp parallel for schedule(static))
        for (int64_t i = 0; i < n; i++)
            a[i] = b[i] + 0.5 * c[i];
        t = now() - t;
        if (r > 0 && t < best)
            best = t;
    }
    double check = a[n / 2];
    free(a), free(b), free(c);
    return check == 2 ? 24.0 * (double)n / best / 1e9 : NAN;
}

/* Q^T over the closed class, renumbered in order: the chain the solver
 * solves (solver/analysis/solve.c does the same; generated models such
 * as ms async 8/40 have transient states). */
static int closed_transpose(const san_space *sp, san_csr *qt)
{
    if (sp->nclosed == sp->n)
        return san_csr_transpose(&sp->q, qt);
    const san_csr *q = &sp->q;
    int32_t *sub = malloc(sp->n * sizeof *sub);
    int64_t k = 0, nnz = 0;
    if (!sub)
        return -1;
    for (int64_t i = 0; i < sp->n; i++) {
        sub[i] = sp->in_closed[i] ? (int32_t)k++ : -1;
        nnz += sub[i] >= 0 ? q->rowptr[i + 1] - q->rowptr[i] : 0;
    }
    san_csr r = { k, malloc((k + 1) * sizeof(int64_t)), malloc((nnz + 1) * sizeof(int32_t)),
                  malloc((nnz + 1) * sizeof(double)) };
    int rc = -1;
    if (r.rowptr && r.col && r.val) {
        int64_t p = 0;
        r.rowptr[0] = 0;
        for (int64_t i = 0; i < sp->n; i++) {
            if (sub[i] < 0)
                continue;
            for (int64_t t = q->rowptr[i]; t < q->rowptr[i + 1]; t++) {
                r.col[p] = sub[q->col[t]];      /* closed: no edge leaves */
                r.val[p++] = q->val[t];
            }
            r.rowptr[sub[i] + 1] = p;
        }
        rc = san_csr_transpose(&r, qt);
    }
    san_csr_free(&r);
    free(sub);
    return rc;
}

typedef void (*kernel)(void *ctx, double *x, double *y);

static double best_of(kernel k, void *ctx, double *x, double *y, int rounds)
{
    double best = HUGE_VAL;
    for (int r = 0; r <= rounds; r++) {
        double t = now();
        k(ctx, x, y);
        t = now() - t;
        if (r > 0 && t < best)
            best = t;
    }
    return best;
}

static void k_product(void *ctx, double *x, double *y)
{
    num_op_apply(ctx, x, y);
}

static void k_ilu(void *ctx, double *x, double *y)
{
    (void)y;
    num_pc_apply(ctx, x);
}

static void k_gs(void *ctx, double *x, double *y)
{
    (void)y;
    num_ls_gs_sweeps(ctx, x, 1);
}

static void row(const char *name, double s, double bytes, double stream)
{
    double gbs = bytes / s / 1e9;
    printf("  %-24s %10.3f ms %10.1f MB %8.2f GB/s %6.0f%%\n", name, 1e3 * s, bytes / 1e6,
           gbs, 100 * gbs / stream);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: kernels MODEL.san [ROUNDS]\n");
        return 2;
    }
    const int rounds = argc > 2 ? atoi(argv[2]) : 5;
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    static char text[1 << 20];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    san_diag d;
    san_diag_init(&d, argv[1], text, len);
    san_model *m = san_model_load(text, len, &d, NULL);
    if (!m) {
        fprintf(stderr, "%s: does not compile\n", argv[1]);
        return 2;
    }
    san_space_opts so;
    san_space_opts_default(&so);
    san_space sp;
    if (san_space_build(m, &so, &sp, &d) != SAN_OK) {
        fprintf(stderr, "%s: no chain with one closed class to time\n", argv[1]);
        return 1;
    }
    san_csr qt;
    if (closed_transpose(&sp, &qt) != 0)
        return 1;
    const int64_t n = qt.n, nnz = qt.rowptr[n];
    const double mat = 12.0 * (double)nnz + 8.0 * (double)n;    /* val, col, rowptr */
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    if (!x || !y)
        return 1;
    for (int64_t i = 0; i < n; i++)
        x[i] = 1.0 / (double)n;
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    const double stream = triad_gbs(1 << 25, rounds);
    printf("kernels: %s, %lld states (closed class of %lld), %lld nonzeros, %d threads; "
           "STREAM triad %.2f GB/s\n", argv[1], (long long)n, (long long)sp.n, (long long)nnz,
           threads, stream);
    printf("  %-24s %13s %13s %13s %7s\n", "kernel", "time", "bytes", "rate", "floor");

    num_op op;
    double maxd = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t p = qt.rowptr[j]; p < qt.rowptr[j + 1]; p++)
            if (qt.col[p] == j)
                maxd = fmax(maxd, fabs(qt.val[p]));
    num_op_csr(&op, &qt, maxd);
    row("product y = x Q", best_of(k_product, &op, x, y, rounds), mat + 16.0 * (double)n, stream);

    num_pc pc;
    char msg[256];
    setenv("SAN_ILU_LEVELS", "1", 1);  /* the schedule is opt-in (precond.c) */
    if (num_pc_build(&pc, &op, &qt, SAN_PC_ILU0, 0, INFINITY, msg, sizeof msg) == 0 &&
        pc.kind == SAN_PC_ILU0) {
        /* the two solves read the factors (as big as Q) and x twice */
        const double lub = 12.0 * (double)nnz + 8.0 * (double)n + 32.0 * (double)n;
        int32_t *lrow = pc.lrow;
        if (lrow) {
            char name[64];
            snprintf(name, sizeof name, "ILU(0) solves, %lld+%lld levels", (long long)pc.nlev_l,
                     (long long)pc.nlev_u);
            row(name, best_of(k_ilu, &pc, x, y, rounds), lub, stream);
        }
        pc.lrow = NULL;         /* the same factors, in row order */
        row("ILU(0) solves, row order", best_of(k_ilu, &pc, x, y, rounds), lub, stream);
        pc.lrow = lrow;
        num_pc_free(&pc);
    }
    for (int64_t i = 0; i < n; i++)
        x[i] = 1.0 / (double)n;
    row("Gauss-Seidel sweep", best_of(k_gs, &qt, x, y, rounds), mat + 16.0 * (double)n, stream);
    free(x);
    free(y);
    san_csr_free(&qt);
    space_clear(&sp);
    san_model_free(m);
    san_diag_clear(&d);
    return 0;
}
