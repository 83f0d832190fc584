/*
 * danalyze.c - san_analyze over MPI ranks (--engine petsc): the phases
 * of dist.h in order, every rank in each, and what they found in a
 * psc_answer (petsc_solve.h), which solver/analysis/ takes into the
 * san_analysis the report reads.
 *
 *   1. exploration (dexplore.c): each rank its own states and rows;
 *   2. the MATMPIAIJ of Q^T (dmatrix.c);
 *   3. the closed class (dclasses.c);
 *   4. KSP and the balance check (dsolve.c);
 *   5. the indices, reduced (dindices.c).
 *
 * --max-memory is per rank: each phase holds its estimate against it
 * before allocating, and dagree() makes a refusal, an error or a
 * Ctrl-C on one rank the status of every rank (each phase begins with
 * it, so no rank waits in a collective another has left).  Progress is
 * drawn by rank 0 alone (when its stderr is a terminal).
 *
 * What the report gets: ans->sp holds the counts (states over every
 * rank, transient, dropped) and, in place of every state's index, the
 * indices of the top states only (sol.top[k].state = k); sol.pi is not
 * held (no rank has the whole vector); ans->nonzeros counts Q's entries.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "base/services.h"
#include "solver/petsc/dist.h"
#include "solver/petsc/petsc_solve.h"
#include "solver/numeric/linsolve.h"
#include "solver/numeric/partition.h"          /* SAN_NCD_COUPLING: auto's threshold for aggregation */
#include "solver/space/messages.h"

static int we_initialized;

static void finalize(void)
{
    if (we_initialized)
        PetscFinalize();
}

int psc_init(void)
{
    PetscBool up = PETSC_FALSE;
    PetscInitialized(&up);
    if (up)
        return 0;
    if (PetscInitializeNoArguments() != 0)
        return -1;
    we_initialized = 1;
    atexit(finalize);
    return 0;
}

int psc_rank(int *size)
{
    PetscBool up = PETSC_FALSE;
    PetscInitialized(&up);
    int r = 0, s = 1;
    if (up) {
        MPI_Comm_rank(PETSC_COMM_WORLD, &r);
        MPI_Comm_size(PETSC_COMM_WORLD, &s);
    }
    if (size)
        *size = s;
    return r;
}

/* The KSP's vectors and preconditioner, held against the rank's limit
 * before they are made: BiCGSTAB keeps 8 vectors and the solve 6 more
 * (20 counted, for some room); ILU(0) of the diagonal block is as
 * large as the block.  (GMRES(m) through --petsc-options keeps m + 2:
 * not counted.) */
static san_status solve_budget(const dctx *c, Mat A, const dspace *s, char *msg, size_t n)
{
    MatInfo info;
    PetscInt nloc, cols;
    double need;
    if (MatGetLocalSize(A, &nloc, &cols))
        return SAN_E_NOMEM;
    if (dshell_is(A)) {     /* the states and ghosts beside the vectors; no ILU */
        double ghosts, cross, bytes = 0;
        dshell_figures(A, &ghosts, &cross, &bytes);
        need = dspace_bytes(s) + bytes + 8.0 * 22 * nloc;
    } else {
        if (MatGetInfo(A, MAT_LOCAL, &info))
            return SAN_E_NOMEM;
        const double mat = 12.0 * info.nz_used + 24.0 * nloc;
        need = mat + 12.0 * info.nz_used + 8.0 * 20 * nloc;
    }
    if (need <= c->limit)
        return SAN_OK;
    char b1[32], b2[32];
    snprintf(msg, n, "rank %d: the solve needs ~%s (the matrix's %ld rows on this rank, "
             "the solver's vectors, the preconditioner), beyond --max-memory of %s for one "
             "rank; raise it or run more ranks", c->rank, san_format_bytes(need, b1, sizeof b1),
             (long)nloc, san_format_bytes(c->limit, b2, sizeof b2));
    return SAN_E_LIMIT;
}

/* The entries of the dropped pockets' rows (2 in `in`), over every
 * rank: a pocket is closed and nothing enters it, so its rows of Q^T
 * hold its own arcs, its rows of Q the same ones. */
static int64_t dropped_nnz(Mat A, Vec in)
{
    const int shell = dshell_is(A);
    PetscInt lo, hi;
    const PetscScalar *ia;
    long long mine = 0, all = 0;
    if (VecGetOwnershipRange(in, &lo, &hi) || VecGetArrayRead(in, &ia))
        return 0;
    for (PetscInt j = lo; j < hi; j++) {
        PetscInt len;
        if (ia[j - lo] == 2 && shell)
            mine += dshell_row_entries(A, j - lo);
        else if (ia[j - lo] == 2 && MatGetRow(A, j, &len, NULL, NULL) == 0) {
            mine += len;
            MatRestoreRow(A, j, &len, NULL, NULL);
        }
    }
    VecRestoreArrayRead(in, &ia);
    MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, PETSC_COMM_WORLD);
    return all;
}

double dpeak_rss(void)
{
    struct rusage ru;
    double mine = getrusage(RUSAGE_SELF, &ru) == 0 ? 1024.0 * ru.ru_maxrss : 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD);
    return all;
}

/* The smallest and largest part of the states, over the mean. */
static void balance_of(const dctx *c, const dspace *s, double *lo, double *hi)
{
    double v[2] = { -(double)s->nloc, (double)s->nloc }, all[2];
    MPI_Allreduce(v, all, 2, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD);
    const double mean = (double)s->n / c->size;
    *lo = mean > 0 ? -all[0] / mean : 1;
    *hi = mean > 0 ? all[1] / mean : 1;
}

static san_method method_of(const char *ksp)
{
    return !strcmp(ksp, "bcgs") ? SAN_M_BICGSTAB : SAN_M_GMRES;
}

void dfill_space(const dctx *c, const dspace *s, int64_t nnz, int64_t nclosed,
                 int64_t dropped, psc_answer *ans)
{
    ans->sp.m = s->m;
    ans->sp.n = s->n - dropped;
    ans->sp.nclosed = nclosed;
    ans->sp.dropped = dropped;
    ans->sp.declared = s->declared;
    ans->sp.reached_undeclared = s->undeclared;
    ans->sp.t_explore = s->t_explore;
    ans->sp.bytes = 17.0 * (double)ans->sp.n + 12.0 * (double)nnz;     /* as serial counts it */
    ans->nonzeros = nnz;
    ans->ranks = c->size;
}

/* What the report reads, from the phases' figures. */
static void fill(const dctx *c, const dspace *s, const dsolve_stats *ss, int64_t nnz,
                 int64_t nclosed, int64_t dropped, psc_answer *ans)
{
    dfill_space(c, s, nnz, nclosed, dropped, ans);
    san_solve_info *in = &ans->sol.info;
    in->method = method_of(ss->ksp);
    in->iterations = ss->iterations;
    in->residual = ss->residual;
    in->balance = ss->balance;
    in->agg_error = ss->agg_parts ? ss->agg_error : NAN;    /* NaN: not tested */
    /* composed as serial's (verify.c): balance, aggregation, change */
    in->error_est = fmax(fmax(ss->balance, ss->change), ss->agg_parts ? ss->agg_error : 0);
    in->time_s = ss->seconds;
    in->products = ss->products;
}

/* Why an answer of status st (not SAN_OK) is no answer, in the serial
 * solve's words (num_verdict_*), with the advice of this engine. */
static void verdict(const dsolve_stats *ss, san_status st, const san_analysis_opts *o,
                    san_solve_info *in)
{
    const char *ksp = "try another KSP (--petsc-options '-ksp_type gmres -pc_type asm') "
                      "or solve without --engine petsc";
    char who[64], hint[256];
    if (st == SAN_E_INTERRUPTED) {
        num_verdict_stop(in, ss->timed_out ? SAN_LS_TIME : SAN_LS_INTR, o->time_limit,
                         ss->iterations, "balance residual", ss->balance, NULL);
    } else if (st == SAN_E_NOTCONV && ss->balance <= o->solve.tol &&
               ss->change <= o->solve.tol) {
        snprintf(who, sizeof who, "KSP %s", ss->ksp);
        num_verdict_aggregation(in, who, ss->agg_cycles, ss->agg_what, ss->agg_error,
                                o->solve.tol, ksp);
    } else if (st == SAN_E_NOTCONV) {
        snprintf(hint, sizeof hint, "above --tol %.1e after %d KSP solve%s; %s", o->solve.tol,
                 ss->rounds, ss->rounds == 1 ? "" : "s", ksp);
        num_verdict_stop(in, SAN_LS_MAXIT, o->time_limit, ss->iterations,
                         ss->balance <= o->solve.tol ? "change of a sweep" : "balance residual",
                         ss->balance <= o->solve.tol ? ss->change : ss->balance, hint);
    }
}

/* The smallest transition rate relative to its state's exit rate over
 * the states of the closed class (in = 1), on every rank: below the
 * serial NCD coupling the chain may hold slowly coupled blocks, which
 * the balance test alone cannot verify.  Transient states do not count
 * (a fast transient start is no decomposability).  Collective. */
static double closed_min_rel(const dspace *s, Vec in)
{
    const PetscScalar *a;
    double mine = 1, all = 1;
    if (VecGetArrayRead(in, &a) == 0) {
        for (int64_t k = 0; k < s->nloc; k++)
            if (a[k] == 1 && s->rel[k] < mine)
                mine = s->rel[k];
        VecRestoreArrayRead(in, &a);
    }
    MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MIN, PETSC_COMM_WORLD);
    return all;
}

/* Bytes a rank needs at the peak of each way of holding the generator,
 * from the first pass's arcs (spread as the states are: evenly, with
 * 10% for the unevenness of arcs a state):
 *   assembled: the arcs (20 B) beside their rows (12 B an entry), or
 *     the rows beside PETSc's copy (12 + 12 B), then the solve's matrix
 *     and ILU (24 B an entry) with 20 vectors;
 *   shell: the map kept (~36 B a state), the class check's local graph
 *     (8 B an arc), the ghosts (at most one per arc that crosses,
 *     ~36 B: a quarter of the arcs counted), and 27 vectors. */
static void matrix_needs(const dctx *c, const dspace *s, double *aij, double *shell)
{
    const double nloc = (double)s->nloc, arcs = 1.1 * s->arcs_seen / c->size, nz = arcs + nloc;
    const double base = dspace_bytes(s);
    const double build = base + fmax(32.0 * arcs + 20.0 * nloc, 24.0 * nz + 32.0 * nloc);
    const double solve = base + 24.0 * nz + 24.0 * nloc + 8.0 * 22 * nloc;
    *aij = fmax(build, solve);
    *shell = base + 8.0 * arcs + 8.0 * nloc + 36.0 * 0.25 * arcs + 8.0 * 27 * nloc;
}

/* Assembled or shell (1): the same on every rank (the largest needs). */
static int choose_matrix(const dctx *c, const dspace *s, san_engine_matrix want, san_diag *d)
{
    if (want != SAN_EMATRIX_AUTO)
        return want == SAN_EMATRIX_SHELL;
    double mine[2], most[2];
    matrix_needs(c, s, &mine[0], &mine[1]);
    MPI_Allreduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD);
    if (most[0] <= c->limit || most[1] > c->limit)
        return 0;       /* fits, or neither does: the assembled path says why */
    char b1[32], b2[32], b3[32];
    san_diag_add(d, SAN_NOTE, 0, 0, "the assembled generator needs ~%s on a rank, beyond "
                 "--max-memory of %s: the product lists the transitions again instead "
                 "(--petsc-matrix shell: ~%s, a product ~100 times slower)",
                 san_format_bytes(most[0], b1, sizeof b1),
                 san_format_bytes(c->limit, b2, sizeof b2),
                 san_format_bytes(most[1], b3, sizeof b3));
    return 1;
}

/* The arcs listed to their owners and Q^T assembled from them.  Past
 * --max-memory on a rank with --petsc-matrix auto, the arcs are
 * dropped and b->shell set instead of the refusal (an estimate that
 * fitted may still miss: the arrays grow by doubling). */
static san_status assembled(const dctx *c, const san_analysis_opts *o, dbuilt *b, san_diag *d)
{
    dspace *s = &b->s;
    san_diag tmp;
    san_diag_init(&tmp, d->file, NULL, 0);
    san_status st = dexplore_arcs(c, &o->space, s, &tmp);
    idmap_free(&s->map);    /* every arc is numbered: the map is done */
    if (st == SAN_OK) {
        base_progress pg;
        base_progress_init(&pg, c->progress, 0);
        base_progress_draw(&pg, 1, "  assembling Q^T over %d ranks", c->size);
        st = dmatrix(c, s, &b->A, &b->nnz, &tmp);
        base_progress_end(&pg, 1);
    }
    if (st == SAN_E_LIMIT && o->engine_matrix == SAN_EMATRIX_AUTO) {
        dspace_drop_arcs(s);
        char b1[32];
        san_diag_add(d, SAN_NOTE, 0, 0, "the assembled generator does not fit --max-memory of "
                     "%s on a rank (%s): the product lists the transitions again instead "
                     "(--petsc-matrix shell: a product ~100 times slower)",
                     san_format_bytes(c->limit, b1, sizeof b1),
                     tmp.n ? tmp.items[tmp.n - 1].msg : "");
        b->shell = 1;
        st = dagree(c, dspace_remap(c, s) < 0 ? SAN_E_NOMEM : SAN_OK,
                    "out of memory for the map of the states", d);
    } else {
        for (int i = 0; i < tmp.n; i++)
            san_diag_add(d, tmp.items[i].sev, tmp.items[i].line, tmp.items[i].col, "%s",
                         tmp.items[i].msg);
    }
    san_diag_clear(&tmp);
    return st;
}

void dbuilt_free(dbuilt *b)
{
    if (b->x)
        VecDestroy(&b->x);
    if (b->in)
        VecDestroy(&b->in);
    if (b->A)
        MatDestroy(&b->A);
    dspace_free(&b->s);
}

san_status dbuild(const san_model *m, const san_analysis_opts *o, double t0, dbuilt *b,
                  psc_answer *ans, san_diag *d)
{
    memset(b, 0, sizeof *b);
    if (psc_init() < 0) {
        san_diag_add(d, SAN_ERROR, 0, 0, "--engine petsc: PETSc did not start");
        return SAN_E_USAGE;
    }
    dctx *c = &b->c;
    MPI_Comm_rank(PETSC_COMM_WORLD, &c->rank);
    MPI_Comm_size(PETSC_COMM_WORLD, &c->size);
    c->interrupt = o->space.interrupt;
    c->limit = base_budget(o->space.max_memory);
    c->progress = o->space.progress && c->rank == 0;
    c->time_limit = o->time_limit;
    c->deadline = o->time_limit > 0 ? t0 + o->time_limit : 0;
    b->s.m = m;
    dspace *s = &b->s;
    san_status st = dexplore(c, &o->space, s, d);
    if (st == SAN_OK && s->n == 0) {
        space_say_no_state(d);
        st = SAN_E_MODEL;
    }
    if (st == SAN_OK && s->n > INT32_MAX - 1) {
        san_diag_add(d, SAN_ERROR, 0, 0, "--engine petsc: %lld states need a PETSc built with "
                     "64-bit indices", (long long)s->n);
        st = SAN_E_LIMIT;
    }
    if (st == SAN_OK && s->undeclared)
        space_say_undeclared(d, s->undeclared);
    if (st == SAN_OK)
        b->shell = choose_matrix(c, s, o->engine_matrix, d);
    if (st == SAN_OK && !b->shell)
        st = assembled(c, o, b, d);
    if (st == SAN_OK && b->shell)
        st = dshell(c, s, &b->A, &b->nnz, d);
    if (st == SAN_OK && (MatCreateVecs(b->A, &b->in, &b->x) != 0)) {
        san_diag_add(d, SAN_ERROR, 0, 0, "--engine petsc: out of memory for the vectors");
        st = SAN_E_NOMEM;
    }
    const double tc = san_now();
    if (st == SAN_OK)
        st = dclasses(c, s, b->A, b->in, &b->nclosed, &b->dropped, d);
    ans->sp.t_check = san_now() - tc;
    if (st == SAN_OK && b->dropped)     /* the pockets' rows leave the count */
        b->nnz -= dropped_nnz(b->A, b->in);
    ans->t_space = san_now() - t0;
    return st;
}

san_status psc_analyze(const san_model *m, const san_analysis_opts *o, psc_answer *ans,
                       san_diag *d)
{
    const double t0 = san_now();
    memset(ans, 0, sizeof *ans);
    if (o->kind != SAN_ANALYSIS_STEADY || o->storage == SAN_STORAGE_KRON || o->space_only) {
        san_diag_add(d, SAN_ERROR, 0, 0, "--engine petsc solves the steady state over the "
                     "sparse generator only (not --storage kron)");
        return SAN_E_USAGE;
    }
    dbuilt b;
    san_status st = dbuild(m, o, t0, &b, ans, d);
    dctx c = b.c;
    dspace *sp = &b.s;
    char msg[512] = "";
    if (st == SAN_OK)
        st = dagree(&c, solve_budget(&c, b.A, sp, msg, sizeof msg), msg, d);
    ans->t_space = san_now() - t0;
    dsolve_stats ss;
    memset(&ss, 0, sizeof ss);
    san_status sst = SAN_OK;
    /* the weakest transition of the closed class relative to its
     * source's exit rate: below the NCD coupling, slow modes may hide
     * from the balance test, and the aggregation check must have seen
     * the components of the fast transitions (below) */
    const double min_rel = st == SAN_OK ? closed_min_rel(sp, b.in) : 1;
    if (st == SAN_OK) {
        san_solve_opts so = o->solve;
        if (o->time_limit > 0)
            so.time_limit = fmax(o->time_limit - (san_now() - t0), 1e-6);
        const double ts = san_now();
        sst = dsolve(&c, sp, b.A, b.in, b.x, &so, o->engine_options, &ss, d);
        ans->t_solve = san_now() - ts;
        if (sst != SAN_OK && sst != SAN_E_NOTCONV && sst != SAN_E_INTERRUPTED)
            st = sst;
    }
    int64_t *top_index = NULL;
    if (st == SAN_OK) {
        top_index = calloc(o->ntop + 1, sizeof *top_index);
        st = top_index ? dindices(&c, sp, b.x, o->ntop, &ans->sol, top_index, d) : SAN_E_NOMEM;
        if (st != SAN_OK)       /* what dindices made of the solution */
            space_solution_clear(m, &ans->sol);
    }
    if (st == SAN_OK) {
        double lo, hi;
        balance_of(&c, sp, &lo, &hi);
        fill(&c, sp, &ss, b.nnz, b.nclosed, b.dropped, ans);
        ans->sp.index = top_index;
        top_index = NULL;
        ans->rank_bytes = dpeak_rss();
        /* The balance test alone cannot see blocks of the wrong mass in
         * a nearly decomposable chain (serial's aggregation test does);
         * without a transition below the serial NCD coupling (relative to
         * its source's exit rate) there is no such block at that scale.
         * With one, the answer is reported unverified (exit 1), not as
         * converged: a refusal rather than a possibly wrong promise. */
        if ((sst == SAN_OK || sst == SAN_E_NOTCONV) && min_rel < SAN_NCD_COUPLING &&
            ss.agg_missed > 0) {
            /* the slow modes of a nearly decomposable chain hide from the
             * balance test; the aggregation check sees them through the
             * components of the fast transitions, which were too many at
             * one threshold to be a partition */
            snprintf(ans->sol.info.msg, sizeof ans->sol.info.msg, "not verified: possibly "
                     "nearly decomposable (a transition at %.0e of its exit rate), with over "
                     "%d components above %.0e, beyond the distributed aggregation check; "
                     "solve without --engine petsc", min_rel, SAN_PART_MAX_BLOCKS,
                     ss.agg_missed);
            sst = SAN_E_NOTCONV;
        }
        ans->sol.info.converged = sst == SAN_OK;
        ans->sol.info.status = sst;
        if (!ans->sol.info.msg[0])
            verdict(&ss, sst, o, &ans->sol.info);
        char note[512], sweeps[64] = "";    /* cut to the report's note below */
        if (ss.sweeps || ss.agg_cycles)
            snprintf(sweeps, sizeof sweeps, " + %d Jacobi sweep%s, %d aggregation%s",
                     ss.sweeps, ss.sweeps == 1 ? "" : "s", ss.agg_cycles,
                     ss.agg_cycles == 1 ? "" : "s");
        snprintf(note, sizeof note, "engine petsc: %d ranks (parts "
                 "%.2f-%.2f of the mean), %sKSP %s/%s, %ld its in %d solve%s (%s)%s, %.2f s; "
                 "product %.3g s, %.3g MB across (%.1f%% of entries); "
                 "%d partitions checked", c.size, lo, hi, b.shell ? "matrix-free, " : "", ss.ksp,
                 ss.pc, ss.iterations, ss.rounds,
                 ss.rounds == 1 ? "" : "s", ss.reason, sweeps, ss.seconds, ss.product_s,
                 ss.product_comm / 1e6, 100 * ss.cross, ss.agg_parts);
        snprintf(ans->sol.info.note, sizeof ans->sol.info.note, "%.*s",
                 (int)sizeof ans->sol.info.note - 1, note);
        ans->have_space = ans->have_sol = ans->have_indices = 1;
        if (sst == SAN_OK && o->engine_keep_vector)    /* a verified answer only */
            sst = dvector_keep(&c, sp, b.x, b.in, &ans->kept, d);
        st = sst;
    }
    free(top_index);
    dbuilt_free(&b);
    return st;
}
