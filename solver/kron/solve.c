/*
 * solve.c - pi Q = 0 over the Kronecker descriptor (kron.h): the
 * descriptor as an operator (op.h) and the driver that runs the sparse
 * path's kernels on it (power and Jacobi from stationary.c, GMRES(m)
 * and BiCGSTAB from krylov.c, with the Jacobi preconditioner), under the
 * contract of the sparse path (linsolve.c): the same convergence rule,
 * the same stopping reasons and messages, the best vector on early
 * stops, the residual recomputed on the returned normalized vector,
 * progress on stderr.
 *
 * One product x Q is a walk of the descriptor, and there is no row
 * access, hence no Gauss-Seidel, no direct method and no ILU(0).
 * Vectors are indexed by the descriptor's positions (sorted mixed-radix
 * order, or the whole product space, where the states outside the chain
 * have q_jj = 0 and stay at zero); the answer is mapped back to the
 * space's numbering at the end.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "solver/kron/kron_int.h"
#include "solver/numeric/linsolve.h"
#include "solver/space/partition_space.h"
#include "solver/space/solution.h"
#include "solver/space/space_int.h"

/* Vector loops shorter than this stay on one thread: waking the team
 * costs more than the loop, and idle OpenMP threads spinning on two
 * cores starve OpenBLAS's own threads (which the tensor path leaves
 * running: op->blas_one_thread = 0). */
#define PAR_MIN 50000

/* One solve in progress: the sparse path's context plus the operator. */
typedef struct {
    num_ls ls;              /* clock, options, info (ls.qt unused) */
    num_op op;
    const kron_desc *d;
    const san_space *sp;
    double held;            /* bytes held beside d: the first descriptor
                               while ml_resort solves on a second one */
    char skipped[320];      /* why auto did not resort to ml, or "" */
    int64_t ml_min;         /* the smallest coarse chain ml may take */
} ksolve;

/* y = x Q: one walk of the descriptor (threads over windows of y). */
static void desc_apply(const num_op *op, const double *x, double *y)
{
    kron_mult((const kron_desc *)op->ctx, x, y);
}

/* Over explicit levels a flow walk has no region runs and merges child
 * lists level by level, as the product did before the region level,
 * when it cost 18 to 35 times the walk of complete levels per state
 * (mult.c): partitions of fewer blocks than this take one product per
 * block instead. */
#define KRON_FLOWS_EXPLICIT_MIN_BLOCKS 36

/* Are the flows of a partition of B blocks one walk (kron_flows)? */
static int flows_one_walk(const kron_desc *d, int B)
{
    return kron_flows_ok(d) && (d->tree.F == 0 || B >= KRON_FLOWS_EXPLICIT_MIN_BLOCKS);
}

/* The flows between blocks in one walk (kron_flows); the terms that
 * move none of the automata aut[] are skipped. */
static int desc_flows(const num_op *op, const uint16_t *blk, int B, const int *aut,
                      int naut, const double *x, double *F)
{
    const kron_desc *d = op->ctx;
    if (!flows_one_walk(d, B))
        return 1;
    if (!x)
        return 0;
    char *lev = naut > 0 ? calloc(d->tree.naut, 1) : NULL;
    if (naut > 0 && !lev)
        return -1;
    for (int k = 0; k < naut; k++)
        lev[aut[k]] = 1;
    int rc = kron_flows(d, blk, B, lev, x, F);
    free(lev);
    return rc;
}

/* The descriptor as an operator; w is the scratch of num_op_pass. */
void kron_op(num_op *op, const kron_desc *d, double *w)
{
    *op = (num_op){ 0 };
    op->n = d->n;
    op->apply = desc_apply;
    op->diag = d->diag;
    op->maxd = d->maxd;
    op->w = w;
    op->par_min = PAR_MIN;
    op->blas_one_thread = 0;
    op->flows = desc_flows;
    op->ctx = d;
}

/* ------------------------------------------------------------------ */
/* Dispatch, final checks, the public entry points                      */
/* ------------------------------------------------------------------ */

/* Vectors each method holds besides the descriptor and pi: the product
 * scratch, the best copy, and its own. */
/* Held through every method: the descriptor's diagonal (d->bytes leaves
 * it out), the answer (sol->pi), the product's scratch and the
 * iterate.  Counting two of them, rs 18/9 -m ml --max-memory 36M
 * peaked 2.5 MB over. */
#define KRON_FIXED_VECTORS 4

static double method_vectors(san_method m, int restart)
{
    switch (m) {
    case SAN_M_POWER:
    case SAN_M_JACOBI:   return 3;
    case SAN_M_BICGSTAB: return 9;
    case SAN_M_ML:       return 8 + KRON_ML_BLOCK_BYTES / 8;
                                       /* the smoother's, x's last, the
                                          balance's, best, 4 of the
                                          recombination; the blocks (the
                                          coarse chain takes what is left:
                                          ml_room) */
    default:             return (restart > 0 ? restart : SAN_LS_DEFAULT_RESTART) + 5;
    }
}

/* auto: BiCGSTAB when its vectors fit in the memory left, else the power
 * method.  Not GMRES: with only the Jacobi preconditioner, GMRES(30)
 * stagnates on some models (a 766-state pipeline stays at 3.8e-4 for
 * 20000 iterations, on the sparse path too) where BiCGSTAB converges in
 * under 100 iterations.  Either answer is then refined (verify.c).
 *
 * Not the multilevel method (ml) either, measured against auto over the
 * descriptor (--lump off, tol 1e-10; iterations / products / time under
 * load, two cores shared): tss6 auto 91 / 791 / 3.0 s (BiCGSTAB
 * stagnates, iad answers), ml 43 / 348 / 4.1 s; tandem (c 127) auto
 * 53 / 253 / 3.0 s, ml 148 / 1188 / 1.3 s; rs 20/9 auto 67 / 209 /
 * 17.7 s, ml 34 / 327 / 52.8 s; rs 20/10 auto 81 / 238 / 20.9 s, ml
 * 36 / 343 / 56.9 s; ms async 8/40 auto 247 / 601 / 22.5 s, ml 28 /
 * 310 / 27.9 s; cluster64 auto 385 / 1627 / 10.5 s (BiCGSTAB, iad, then
 * GMRES), ml 28 / 316 / 8.5 s.  ml's cycles are 2.5-3 times slower on
 * the resource-sharing models and lose on master/slave: no class of
 * chains where it wins as the first method without losing elsewhere.
 * Where it does win (cluster64: iad stagnates at an estimate of 7.6
 * before GMRES answered) it is a resort after iad (ml_resort). */
static san_method auto_method(const ksolve *c)
{
    double room = num_ls_budget(c->ls.o) - c->d->bytes - 8.0 * c->d->n * KRON_FIXED_VECTORS -
                  (c->ls.parts ? c->ls.parts->bytes : 0);
    if (method_vectors(SAN_M_BICGSTAB, 0) * 8.0 * c->d->n <= room)
        return SAN_M_BICGSTAB;
    return SAN_M_POWER;
}

/* The descriptor and the vectors of the leanest method that can run on
 * it (the product's scratch, the iterate, its best copy, and the
 * power method's own) over the solve's memory (--max-memory): refused
 * (SAN_E_LIMIT) before any vector is allocated. */
static int over_budget(const kron_desc *d, const san_solve_opts *o, san_solve_info *info)
{
    const san_method m = o->method == SAN_M_AUTO || o->method == SAN_M_IAD ? SAN_M_POWER
                                                                            : o->method;
    const double need = d->bytes + 8.0 * (double)d->n * (KRON_FIXED_VECTORS +
                                                          method_vectors(m, o->restart));
    if (need <= num_ls_budget(o))
        return 0;
    char nb[32], lb[32];
    snprintf(info->msg, sizeof info->msg, "the tensor descriptor and the vectors of %s need "
             "%s for %lld positions, over the memory left (%s of --max-memory); "
             "raise --max-memory", san_method_name(m), san_format_bytes(need, nb, sizeof nb),
             (long long)d->n, san_format_bytes(num_ls_budget(o), lb, sizeof lb));
    info->status = SAN_E_LIMIT;
    return 1;
}

/* The memory the budget leaves to ml's coarse chain: beside the
 * descriptors, the partitions of the checks, pi, the product's scratch
 * and ml's vectors and blocks. */
static double ml_room(const ksolve *c)
{
    return num_ls_budget(c->ls.o) - c->d->bytes - c->held -
           (c->ls.parts ? c->ls.parts->bytes : 0) -
           8.0 * (double)c->d->n * (KRON_FIXED_VECTORS + method_vectors(SAN_M_ML, 0));
}

/* The multilevel method (multilevel.c) needs the descriptor and the
 * space: c->ls is the first member of the ksolve that holds them. */
static int ml_kernel(num_ls *ls, double *pi)
{
    ksolve *c = (ksolve *)ls;
    int rc = kron_ml(ls, pi, c->d, c->sp, ml_room(c), c->ml_min);
    /* auto's resort: a refusal for memory is the note's, not lost with
     * ml's verdict when the first method's is restored */
    if (rc < 0 && c->ml_min > 0 && ls->info->status == SAN_E_LIMIT)
        snprintf(c->skipped, sizeof c->skipped, "ml was not tried: %.*s",
                 (int)(sizeof c->skipped - 24), ls->info->msg);
    return rc;
}

static san_ls_kernel kernel_of(san_method m)
{
    switch (m) {
    case SAN_M_POWER:    return num_ls_power;
    case SAN_M_JACOBI:   return num_ls_jacobi;
    case SAN_M_GMRES:    return num_ls_gmres;
    case SAN_M_BICGSTAB: return num_ls_bicgstab;
    case SAN_M_ML:       return ml_kernel;
    default:             return NULL;
    }
}

/* auto's last try when its method and the aggregation stopped short:
 * GMRES (from their best vector), which converges on some chains where
 * BiCGSTAB and the aggregation stagnate (issue 34: a 2,005-state async
 * pipeline refused by auto, answered by --method gmres in 29
 * iterations).  Only when GMRES's vectors fit beside the others. */
static int krylov_resort(ksolve *c, double *pi, int st)
{
    if (st != 1 || c->ls.info->status == SAN_E_INTERRUPTED || c->ls.final)
        return st;
    double room = num_ls_budget(c->ls.o) - c->d->bytes - 8.0 * c->d->n * KRON_FIXED_VECTORS -
                  (c->ls.parts ? c->ls.parts->bytes : 0);
    if (method_vectors(SAN_M_GMRES, 0) * 8.0 * c->d->n > room)
        return st;
    c->ls.stagnation = 0;           /* the kernel's own window */
    return num_ls_resort(&c->ls, pi, st, SAN_M_GMRES, num_ls_gmres);
}

/* auto's resort after BiCGSTAB and the aggregation (iad) stopped short:
 * the multilevel method (multilevel.c) from their best vector, before
 * GMRES.  Its flows walk the descriptor's level tree, which the build
 * drops when every term runs from calls: then a second descriptor that
 * keeps it is built for the resort only, when it fits beside the first
 * one and the vectors (the cost is paid by the chains that need it).
 * Its size is known before it is built (the same build keeping the
 * levels: levels_bytes more, less the sorted keys' copy), and a resort
 * that does not fit is skipped before anything is allocated, the
 * reason in c->skipped.
 * Measured (tol 1e-10, iterations / products of the whole auto solve):
 * tss6 lumped (2,828 states) was refused (BiCGSTAB stagnated at 7.2e-2,
 * iad's refinement at an estimate of inf after 14 cycles: 574 / 3632,
 * exit 1) and is answered by this resort (110 / 6303, right to 1e-10
 * against a dense solve); cluster64.san went BiCGSTAB, iad, then GMRES
 * (385 / 1627), now BiCGSTAB, iad, ml (76 / 1089).  Chains that iad
 * answers do not get here. */
#define KRON_ML_MIN_FRACTION 16

static int ml_resort(ksolve *c, double *pi, int st)
{
    if (st != 1 || c->ls.info->status == SAN_E_INTERRUPTED || c->ls.final ||
        c->ls.floor_measured)
        return st;
    const kron_desc *was = c->d;
    const double second = kron_flows_ok(was) ? 0 : was->bytes + was->levels_bytes + 8.0 * was->n -
                                                   (was->keys_owned ? 8.0 * (double)was->n : 0);
    const int64_t min = was->n / KRON_ML_MIN_FRACTION;
    /* the room of the coarse chain, were the second descriptor held,
     * over the least the smallest coarse chain takes (a transition a
     * state) */
    const double room = ml_room(c) - second -
                        kron_ml_coarse_bytes(min, min, was->nwin > 1 ? was->nthreads : 1);
    if (room < 0) {
        char nb[32], lb[32];
        snprintf(c->skipped, sizeof c->skipped, "the multilevel method (ml) was not tried: "
                 "%sits vectors and a coarse chain of %lld states need %s more than "
                 "the solve's share of --max-memory (%s); raise --max-memory",
                 second > 0 ? "a descriptor that keeps the level tree, " : "",
                 (long long)min, san_format_bytes(-room, nb, sizeof nb),
                 san_format_bytes(num_ls_budget(c->ls.o), lb, sizeof lb));
        return st;
    }
    kron_desc lv;
    if (second > 0) {
        kron_tuning t = was->tune;
        char msg[256];
        t.keep_levels = 1;
        if (kron_build(&lv, c->sp, was->mode, &t, msg, sizeof msg) < 0)
            return st;
        if (getenv("SAN_ML_TRACE"))
            fprintf(stderr, "kron ml resort: a descriptor with the levels, %.0f bytes "
                    "predicted, %.0f built\n", second, lv.bytes);
        c->d = &lv;
        c->held = was->bytes;
    }
    c->ml_min = min;
    st = num_ls_resort(&c->ls, pi, st, SAN_M_ML, ml_kernel);
    c->ml_min = 0;
    c->d = was;
    c->held = 0;
    if (second > 0)
        kron_free(&lv);
    return st;
}

/* note += "; " + what (cut at the end when full) */
static void append_note(char *note, size_t len, const char *what)
{
    const size_t at = strlen(note);
    snprintf(note + at, len - at, "%s%s", at ? "; " : "", what);
}

static int run_method(ksolve *c, double *pi)
{
    san_solve_info *info = c->ls.info;
    const int is_auto = info->method == SAN_M_AUTO;
    int refining = is_auto || info->method == SAN_M_IAD;
    if (is_auto) {
        info->method = num_parts_coupling(c->ls.parts) < SAN_NCD_COUPLING
                     ? SAN_M_IAD : auto_method(c);
        c->ls.stagnation = SAN_AUTO_STAGNATION;
        /* what auto runs, which its refusal does not advise */
        c->ls.tried = 1u << SAN_M_BICGSTAB | 1u << SAN_M_IAD | 1u << SAN_M_GMRES |
                      1u << SAN_M_ML | 1u << info->method;
    }
    san_ls_kernel k = kernel_of(info->method);
    if (!k && info->method != SAN_M_IAD) {
        snprintf(info->msg, sizeof info->msg, "method %s needs the sparse "
                 "generator (--storage sparse); over the Kronecker descriptor "
                 "use power, jacobi, gmres, bicgstab, iad or ml",
                 san_method_name(info->method));
        info->status = SAN_E_USAGE;     /* the user's choice, not a failure */
        return -1;
    }
    int st = num_ls_checked(&c->ls, pi, k, refining);
    if (is_auto)
        st = num_ls_auto_end(&c->ls, krylov_resort(c, pi, ml_resort(c, pi, st)));
    if (c->skipped[0])
        append_note(info->note, sizeof info->note, c->skipped);
    return st;
}

/* The flows of an aggregation take one walk of the descriptor
 * (kron_flows) whatever the number of blocks; a descriptor whose
 * explicit levels were dropped after the build can only give them by
 * one product per block, and small partitions over explicit levels
 * take them so (flows_one_walk).  The partitions whose flows cost a
 * product per block are kept in their order of value (fast components,
 * automata, coupled groups, the whole chain) while their blocks add up
 * to at most this many products' worth of work a cycle, with at least
 * KRON_AGG_MIN_BLOCKS blocks whatever the size; the others are all
 * kept.  (Before the one-walk flows this cap dropped the partitions of
 * tss.san's variants, groups of a source and the queue of 303 blocks,
 * and their refinement was plain Jacobi: stagnation at an error
 * estimate of 27 to 47.) */
#define KRON_AGG_WORK 2e7           /* blocks x positions */
#define KRON_AGG_MIN_BLOCKS 96

static void kron_parts_budget(num_parts *P, int64_t n, const kron_desc *d)
{
    num_parts_prune(P, n);
    double lim = fmax(KRON_AGG_MIN_BLOCKS, KRON_AGG_WORK / (double)n), used = 0;
    int k = 0;
    for (int i = 0; i < P->n; i++) {
        if (flows_one_walk(d, P->p[i].nblk)) {
            P->p[k++] = P->p[i];
        } else if (used + P->p[i].nblk <= lim) {
            used += P->p[i].nblk;
            P->p[k++] = P->p[i];
        } else {
            free(P->p[i].blk);
            free(P->p[i].aut);
            P->bytes -= 2.0 * (double)n;
        }
    }
    P->n = k;
}

static int64_t rank_of(const void *d, int64_t idx)
{
    return kron_rank((const kron_desc *)d, idx);
}

/* The partitions over the descriptor's positions: the chain's fast
 * components (its transitions enumerated once more: the descriptor has
 * no rows), the automata and groups (from the mixed-radix index of each
 * position; on the product space, the position itself), the whole
 * chain when small. */
static int kron_parts(num_parts *P, const kron_desc *d, const san_space *sp, double budget,
                      double deadline, volatile int *interrupt)
{
    memset(P, 0, sizeof *P);
    P->deadline = deadline;
    P->interrupt = interrupt;
    if (space_parts_add_fast_space(P, sp, d->n, rank_of, d, budget) < 0) {
        num_parts_free(P);
        return -1;
    }
    if (d->mode == KRON_PRODUCT) {
        int rc = space_parts_add_model(P, sp->m, d->n, NULL, budget);
        if (rc == 0)
            rc = num_parts_add_whole(P, d->n);
        if (rc < 0)
            num_parts_free(P);
        else
            kron_parts_budget(P, d->n, d);
        return rc;
    }
    int64_t *idx = malloc(d->n * sizeof *idx);
    if (!idx)
        return -1;
    for (int64_t i = 0; i < d->n; i++)
        idx[i] = 0;
    for (int64_t i = 0; i < sp->n; i++)
        idx[kron_rank(d, sp->index[i])] = sp->index[i];
    int rc = space_parts_add_model(P, sp->m, d->n, idx, budget);
    if (rc == 0)
        rc = num_parts_add_whole(P, d->n);
    free(idx);
    if (rc < 0)
        num_parts_free(P);
    else
        kron_parts_budget(P, d->n, d);
    return rc;
}

/* The final vector, judged as the sparse path judges it (linsolve.c),
 * with the residual recomputed over the descriptor. */
static int finish(ksolve *c, double *pi, int st)
{
    num_ls_neg neg;
    if (num_ls_normalize(pi, c->d->n, c->ls.info, &neg) < 0)
        return -1;
    if (st == 1)
        num_ls_estimate_returned(&c->ls, pi);
    c->ls.info->residual = num_op_residual(&c->op, pi, NULL);
    return num_ls_verdict(st, c->ls.info, c->ls.o->tol, &neg);
}

/* Uniform over the chain's states (the closed class when known), zero
 * on the product space's extra states; or a neighbour's answer. */
static void initial_vector(const kron_desc *d, const san_space *sp, const san_warm *w,
                           double *x)
{
    memset(x, 0, d->n * sizeof *x);
    double *g = w ? malloc(sp->n * sizeof *g) : NULL;
    if (g && san_warm_map(w, sp, g) > 0) {
        for (int64_t i = 0; i < sp->n; i++)
            if (!sp->in_closed || sp->in_closed[i])
                x[kron_rank(d, sp->index[i])] = g[i];
        free(g);
        return;
    }
    free(g);
    double u = 1.0 / (double)(sp->nclosed > 0 ? sp->nclosed : sp->n);
    if (d->n == sp->n && sp->nclosed == sp->n) {
        for (int64_t i = 0; i < d->n; i++)
            x[i] = u;
        return;
    }
    for (int64_t i = 0; i < sp->n; i++)
        if (!sp->in_closed || sp->in_closed[i])
            x[kron_rank(d, sp->index[i])] = u;
}

static int solve_on(ksolve *c, const san_space *sp, double *x, san_solution *sol)
{
    int st = run_method(c, x);
    num_ls_progress_end(&c->ls);
    if (st >= 0)
        st = finish(c, x, st);
    if (st >= 0)
        for (int64_t i = 0; i < sp->n; i++)
            sol->pi[i] = x[kron_rank(c->d, sp->index[i])];
    return st;
}

int kron_solve_mode(const san_space *sp, const san_solve_opts *o,
                        san_solution *sol, double *descriptor_bytes, int mode,
                        const kron_tuning *tune)
{
    san_solve_opts dflt;
    double t0 = san_ls_now();
    memset(sol, 0, sizeof *sol);
    if (!o) {
        san_solve_opts_default(&dflt);
        o = &dflt;
    }
    san_solve_info *info = &sol->info;
    info->method = o->method;
    info->residual = HUGE_VAL;
    info->lu_correction = -1;
    sol->pi = calloc(sp->n ? sp->n : 1, sizeof *sol->pi);
    if (!sol->pi || sp->n <= 0) {
        snprintf(info->msg, sizeof info->msg, sp->n <= 0 ? "no states" : "out of memory");
        return -1;
    }
    kron_desc d;
    if (o->progress) {          /* seconds on models of 10^6 states and more */
        fprintf(stderr, "\r  building the tensor descriptor (%lld states)   ", (long long)sp->n);
        fflush(stderr);
    }
    kron_tuning tml = tune ? *tune : kron_tuning_default;
    tml.keep_levels = 1;        /* ml walks the flows at every cycle */
    int built = kron_build(&d, sp, (kron_mode)mode, o->method == SAN_M_ML ? &tml : tune,
                           info->msg, sizeof info->msg);
    if (o->progress)
        fprintf(stderr, "\r%70s\r", "");
    if (built < 0)
        return -1;
    if (descriptor_bytes)
        *descriptor_bytes = d.bytes + 8.0 * d.n;
    if (over_budget(&d, o, info)) {
        kron_free(&d);
        return -1;
    }
    if (o->time_limit > 0 && san_ls_now() - t0 >= o->time_limit) {
        /* the build took what was left: the uniform vector, stopped */
        for (int64_t i = 0; i < sp->n; i++)
            sol->pi[i] = 1.0 / (double)sp->n;
        info->status = SAN_E_INTERRUPTED;
        snprintf(info->msg, sizeof info->msg, "time limit of %g s reached while building "
                 "the tensor descriptor; raise --time-limit", o->time_limit);
        kron_free(&d);
        info->time_s = san_ls_now() - t0;
        return 1;
    }
    ksolve c = { .d = &d, .sp = sp };
    double *w = malloc(d.n * sizeof *w), *x = malloc(d.n * sizeof *x);
    int st = -1;
    kron_op(&c.op, &d, w);
    if (!w || !x) {
        snprintf(info->msg, sizeof info->msg, "out of memory for vectors of %lld states",
                 (long long)d.n);
    } else if (sp->n == 1 || sp->nclosed == 1) {
        /* one state, or one absorbing state every run ends in: no rate
         * inside the chain sets an iteration's scale (maxd is 0, and the
         * power method's step 1 / maxd was a NaN); the answer is that
         * state */
        for (int64_t i = 0; i < sp->n; i++)
            sol->pi[i] = sp->n == 1 || (sp->in_closed && sp->in_closed[i]);
        info->residual = 0;
        st = 0;
    } else {
        c.ls.op = &c.op;
        c.ls.o = o;
        c.ls.info = info;
        c.ls.maxd = d.maxd;
        c.ls.tol = o->tol * (1 - 1e-6);
        c.ls.t0 = t0;
        c.ls.last_print = t0;
        c.ls.clock_skip = 1;
        initial_vector(&d, sp, o->warm, x);
        num_parts parts;
        if (kron_parts(&parts, &d, sp, 0.25 * num_ls_budget(o),
                       o->time_limit > 0 ? t0 + o->time_limit : 0, o->interrupt) < 0) {
            snprintf(info->msg, sizeof info->msg, "out of memory for the partitions of "
                     "the aggregation check (%lld states)", (long long)d.n);
        } else {
            c.ls.parts = &parts;
            st = solve_on(&c, sp, x, sol);
            num_ls_free(&c.ls);
            num_parts_free(&parts);
        }
    }
    free(x);
    free(w);
    kron_free(&d);
    info->products = c.op.products;
    info->product_s = c.op.product_s;
    info->converged = st == 0;
    if (st == 0) {
        info->msg[0] = '\0';
        num_ls_note_answered(info->note);
    }
    info->time_s = san_ls_now() - t0;
    return st;
}

int kron_solve(const san_space *sp, const san_solve_opts *o, san_solution *sol,
               double *descriptor_bytes)
{
    san_solve_info foreign;
    if (num_solve_opts_foreign(o, &foreign) < 0) {
        memset(sol, 0, sizeof *sol);
        sol->info = foreign;
        return -1;
    }
    return kron_solve_mode(sp, o, sol, descriptor_bytes, KRON_AUTO, NULL);
}
