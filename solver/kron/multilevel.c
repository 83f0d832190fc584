/*
 * multilevel.c - multilevel aggregation over the Kronecker descriptor
 * (method "ml" with --storage kron).
 *
 * The levels follow the automata, as in the multilevel methods of
 * Buchholz and Dayar for Kronecker representations: a coarse state is
 * a prefix of a global state (the local states of automata 0 .. l-1,
 * the order of the descriptor's level tree), extended by the local
 * state of automaton l cut into G runs of consecutive values; the
 * automata after l are aggregated with the weights of the iterate.  l
 * and G are the largest that keep the coarse chain at most
 * KML_FRACTION times smaller than the chain, with at most KML_PAIRS
 * transitions a position, in the memory the budget leaves (kml_setup).
 * Its generator is built explicitly, from the
 * flows between blocks under x in one walk of the descriptor
 * (kron_flows_sparse), and it is solved by the sparse multilevel method
 * (numeric/ml.c: aggregation AMG, W(2,2) cycles, its own levels below
 * this one, GTH on the coarsest), KML_COARSE_CYCLES cycles from the
 * current block masses a visit (a W-cycle: the coarse iterate is not
 * solved exactly, it is carried on).  Smoothing is weighted Jacobi
 * with the descriptor's product, KML_PRE sweeps before the correction
 * and KML_POST after: it must remove the error inside the runs and
 * the aggregated automata; when the runs cut the last automaton, line
 * sweeps instead (smooth_line: each line of that automaton solved
 * exactly).  (Tried: a correction over the local states
 * of each aggregated automaton after the coarse one, as iad does:
 * tandem.san 145 -> 26 cycles, but tss6.san oscillated without end,
 * the queue's aggregated chain under a wrong x putting all its mass at
 * one end; and coarse levels of n/8, n/4, n/3, n/2 states: tss6.san
 * 86, 42, 35, 26 cycles, the coarse solve taking most of the time from
 * n/3 on.)
 *
 * One cycle: pre-smoothing, the coarse correction, the tail's (the
 * marginal of the automata the coarse chain aggregates: kml_tail_setup
 * says why), post-smoothing, then the balance of x (one product) and
 * the recombination of the last iterates (numeric/recombine.c).  The
 * kernel stops on the same signals as the sparse ml (balance, residual,
 * change), and then asks the checks (kml_probe); the verdict is not its
 * own: the answer goes through the checks of every method
 * (numeric/verify.c).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "solver/kron/kron_int.h"
#include "solver/numeric/linsolve.h"
#include "solver/numeric/recombine.h"
#include "solver/space/space_int.h"

#define KML_FRACTION 4
/* A coarse chain of more than KML_PAIRS transitions a position costs
 * more than it saves: a visit runs two W-cycles of the sparse ml over
 * it (each some 8 passes over its transitions, its aggregates rebuilt)
 * against the fine level's 7 products.  rs 20 processes (1,048,576
 * states) --lump off, -m ml over kron: n/4 (262,144 coarse states,
 * 4,718,592 transitions) 38 cycles, 367 s, 457 MB; 32,768 (491,520
 * transitions) 39 cycles, 160 s, 178 MB (load 8.5-10); under this cap
 * 65,536 (1,048,576 transitions) 39 cycles, 95 s, 313 MB (load 8).
 * Two keeps the repairable cluster's levels (its coarse chains of n/4
 * states have 0.99 n transitions at N = 64, 96, 128). */
#define KML_PAIRS 2.0
/* The coarse chain's columns are 32-bit.  Not 65535 any more (the
 * blocks were 16 bits): on QVBS's cluster.prism N = 128 (597,012
 * states) that cap kept only the two clusters (automata 0-3, 49,665
 * blocks) and aggregated the repairman with the switches and the
 * backbone; the Jacobi smoothing cannot restore the repairman's
 * coupling and the cycles stalled at residual 1e-8, balance 0.999
 * (120 cycles, then every retry).  N = 64 under a cap of 15,000 blocks
 * did the same (117 cycles), under 20,000 (5 automata kept, the
 * repairman among them) it converged in 28, as with no cap. */
#define KML_MAX_BLOCKS INT32_MAX
#define KML_PRE 3
#define KML_POST 3
#define KML_OMEGA 0.9
/* line sweeps (smooth_line) instead of the Jacobi ones, when there are
 * lines */
#define KML_LINE_PRE 3
#define KML_LINE_POST 3
#define KML_COARSE_CYCLES 2
/* as numeric/ml.c: the change must fall below tol, or below
 * KML_CHANGE_TOL tol once it stopped halving for KML_CHANGE_STALL
 * cycles (the roundoff floor) */
#define KML_CHANGE_TOL 1e3
#define KML_CHANGE_STALL 5
/* Cycles without halving the residual that mean the method stagnates:
 * it stops with its best vector, which the checks judge (named) or the
 * next method takes (auto).  The longest such stretch of a run that
 * converges: tandem.san 19 cycles (of 145), tss6.san 2, rs20_9.san 1;
 * a span4 difftest model (405 states, rates 1e-4 .. 7e3) sat at
 * residual 1.78e-7 for 10,000 cycles (1.4 s, 60 s under ASan) before
 * this stop. */
#define KML_STAGNATION 100

typedef struct {
    int B;                  /* coarse states */
    int keep, G;            /* automata kept whole; runs of automaton keep */
    uint32_t *blk;          /* position -> coarse state */
    int64_t *fptr;          /* flows pattern by source block */
    int32_t *fcol;
    double *F;              /* flows of the pattern under x */
    int64_t *tpos;          /* pattern entry -> position in qt */
    int64_t *dpos;          /* row -> its diagonal in qt */
    san_csr qt;             /* the coarse chain, transposed */
    double *X, *y;          /* block masses; the coarse iterate */
    double need;            /* kml_bytes of the last level that did */
    int64_t over;           /* not fit, and its states */
    /* the tail: the local states of the aggregated automata */
    int T;                  /* its states (0: none) */
    uint16_t *tblk;         /* position -> tail state */
    char *tlev;             /* the tail's automata */
    double *TF, *TA, *TX, *Tz;  /* T x T flows, rates; masses; solution */
    /* kept from cycle to cycle: the other threads' flows (F's, TF's)
     * and the coarse solve's levels and vectors */
    double *Fs, *TFs;
    num_ml *ml;
    /* the line smoothing (kml_line_setup): per position, the coupling
     * of its right-hand side to the one eliminated before it, 1 /
     * pivot (0: pinned), and the back-substitution factor */
    double *lup, *lip, *lcd;
    char *lside;            /* below, at or above the line's twist */
    int lhi;                /* positions above a twist */
} kml;

static void kml_free(kml *k)
{
    free(k->blk);
    free(k->fptr);
    free(k->fcol);
    free(k->F);
    free(k->tpos);
    free(k->dpos);
    free(k->qt.rowptr);
    free(k->qt.col);
    free(k->qt.val);
    free(k->X);
    free(k->y);
    free(k->tblk);
    free(k->tlev);
    free(k->TF);
    free(k->TA);
    free(k->TX);
    free(k->Tz);
    free(k->Fs);
    free(k->TFs);
    num_ml_free(k->ml);
    free(k->lup);
    free(k->lip);
    free(k->lcd);
    free(k->lside);
}

/* The mixed-radix index of each position. */
static int64_t *position_index(const kron_desc *d, const san_space *sp)
{
    int64_t *idx = malloc((size_t)d->n * sizeof *idx);
    if (!idx)
        return NULL;
    if (d->mode == KRON_PRODUCT) {
        for (int64_t i = 0; i < d->n; i++)
            idx[i] = i;
        return idx;
    }
    for (int64_t i = 0; i < d->n; i++)
        idx[i] = 0;
    for (int64_t i = 0; i < sp->n; i++)
        idx[kron_rank(d, sp->index[i])] = sp->index[i];
    return idx;
}

/* Coarse states of the positions where x > 0 (the chain's closed
 * class; elsewhere x stays 0 and the block does not matter) when the
 * first l automata are kept and automaton l is cut into G runs:
 * positions are in increasing index order, and so are the keys. */
static int64_t count_keys(const int64_t *idx, const double *x, int64_t n, const int *ns,
                          int naut, int l, int G, uint32_t *blk)
{
    int64_t below = 1;              /* product of n_a, a > l */
    for (int a = l + 1; a < naut; a++)
        below *= ns[a];
    int64_t cnt = 0, last = -1;
    for (int64_t i = 0; i < n; i++) {
        if (!(x[i] > 0)) {
            if (blk)
                blk[i] = 0;
            continue;
        }
        int64_t key;
        if (l >= naut) {
            key = idx[i];
        } else {
            int64_t q = idx[i] / below;     /* prefix through automaton l */
            key = (q / ns[l]) * G + (q % ns[l]) * G / ns[l];
        }
        if (key != last) {
            cnt++;
            last = key;
        }
        if (blk)
            blk[i] = (uint32_t)(cnt - 1);
    }
    return cnt;
}

/* The bytes a coarse chain of B states and nnz transitions holds while
 * it is solved with nt threads: its flows, pattern and transposed
 * generator here (52 bytes a state, 32 a transition), the other
 * threads' flows for kron_flows_sparse (8 a transition, counted for
 * every thread), the sparse ml's levels and vectors over it
 * (numeric/ml.c: about 120 a state and 12 a transition, the coarser
 * levels included), all allocated once and kept from cycle to cycle
 * (num_ml: allocated every cycle, glibc kept the fragments; with the
 * pattern's sets in the threads' arenas, rs 18/9 --lump off under
 * --max-memory 60M peaked at 66.0 MiB, now 59.1; under 50M 64.3 ->
 * 54.7).  The estimate of this run: 22.6 MiB for a chain of 14,913
 * states and 198,772 transitions, 13.7 MiB measured (heap in use, the
 * pattern's sets and the cycles alike).  Measured peaks of -m ml
 * on cluster.prism N = 64 over kron, two threads: 47.4 MB with a
 * coarse chain of 37,765 states and 149,764 transitions, 37.0 MB with
 * 5,934 and 20,460 (--max-memory 19M): 10.5 MB apart, 13.2 predicted.
 * Before the chain, while its pattern is found: each thread's set of
 * the pairs it walked, KRON_PAIR_BYTES a pair (mult.c), and nothing of
 * the chain yet; the larger of the two counts.  (It was not counted:
 * rs 18 processes, --lump off, --max-memory 60M, peaked at 108 MB, the
 * sets of a level of 65,536 states then found to have too many pairs
 * taking 54 MB.)  Beside it the tail's dense chain (KML_TAIL_MAX
 * states: its flows and rates, and each thread's flows in kron_flows). */
#define KML_STATE_BYTES 172.0
#define KML_TAIL_MAX 256
static double kml_tail_bytes(int nt)
{
    return 8.0 * KML_TAIL_MAX * KML_TAIL_MAX * (2 + (nt > 1 ? nt : 0));
}

static double kml_pair_bytes(int nt)
{
    return fmax(KRON_PAIR_BYTES * nt, 44.0 + 8.0 * (nt > 1 ? nt : 0));
}

double kron_ml_coarse_bytes(int64_t B, int64_t nnz, int nt)
{
    return KML_STATE_BYTES * (double)B + kml_pair_bytes(nt) * (double)nnz +
           kml_tail_bytes(nt);
}
#define kml_bytes kron_ml_coarse_bytes

/* The coarse level of at most cap states: the first l automata kept,
 * automaton l in G runs (*lp, *Gp); returns its number of states. */
static int64_t choose_level(const int64_t *idx, const kron_desc *d, const double *x,
                            int64_t cap, int *lp, int *Gp)
{
    const int naut = d->tree.naut;
    const int64_t n = d->n;
    int l = naut, G = 1;
    int64_t cnt = count_keys(idx, x, n, d->tree.ns, naut, naut, 1, NULL);
    while (cnt > cap && l > 0) {
        l--;
        int64_t pre = count_keys(idx, x, n, d->tree.ns, naut, l, 1, NULL);
        if (pre > cap)
            continue;
        G = (int)(cap / pre);
        G = G > d->tree.ns[l] ? d->tree.ns[l] : G < 1 ? 1 : G;
        cnt = count_keys(idx, x, n, d->tree.ns, naut, l, G, NULL);
    }
    *lp = l;
    *Gp = G;
    return cnt;
}

static int kml_tail_setup(kml *k, const kron_desc *d, const int64_t *idx, const double *x);
static int kml_line_setup(kml *k, const kron_desc *d, const int64_t *idx, const double *x,
                          double room);

/* Chooses the coarse level, the largest of at most n / KML_FRACTION
 * states and KML_PAIRS n transitions whose chain fits in room bytes
 * (kml_bytes; its transitions are known once its pattern is), and
 * builds its blocks and pattern.  0; 1 when the descriptor cannot walk
 * the flows; 2 when no coarse chain fits, or only one that the room
 * cut below min states (k->need, k->over: the bytes and states of the
 * last one that did not fit); -1 out of memory. */
static int kml_setup(kml *k, const kron_desc *d, const san_space *sp, const double *x,
                     double room, int64_t min)
{
    const int64_t n = d->n;
    const int nt = kron_flows_threads(d);
    int64_t cap = n / KML_FRACTION;
    cap = cap > KML_MAX_BLOCKS ? KML_MAX_BLOCKS : cap < 2 ? 2 : cap;
    int64_t *idx = position_index(d, sp);
    k->blk = malloc((size_t)n * sizeof *k->blk);
    if (!idx || !k->blk) {
        free(idx);
        return -1;
    }
    int by_room = 0;                /* a level cut for memory */
    for (;;) {
        int l, G;
        const int64_t cnt = choose_level(idx, d, x, cap, &l, &G);
        if (by_room && cnt < min) {
            free(idx);
            return 2;
        }
        double need = kml_bytes(cnt, 0, nt), scale = 1;
        if (need <= room) {
            k->keep = l;
            k->G = G;
            k->B = (int)cnt;
            count_keys(idx, x, n, d->tree.ns, d->tree.naut, l, G, k->blk);
            /* the pattern's sets stop at the pairs the work and the
             * room allow */
            const double pairs = KML_PAIRS * (double)n;
            const double by_mem = (room - need) / (KRON_PAIR_BYTES * nt);
            const int64_t lim = (int64_t)fmin(pairs, by_mem);
            int rc = kron_flows_pattern(d, k->blk, k->B, x, lim, &k->fptr, &k->fcol);
            if (rc == 2) {          /* more pairs than lim: how many, unknown */
                if (by_mem < pairs)
                    need = kml_bytes(cnt, lim + 1, nt);
                scale = 0.5;
                goto smaller;
            }
            if (rc != 0) {
                free(idx);
                return rc;
            }
            const double nnz = (double)k->fptr[cnt];
            need = kml_bytes(cnt, k->fptr[cnt], nt);
            if (need <= room && nnz <= pairs) {
                if (kml_tail_setup(k, d, idx, x) < 0 ||
                    kml_line_setup(k, d, idx, x, room - need) < 0) {
                    free(idx);
                    return -1;
                }
                break;
            }
            free(k->fptr);
            free(k->fcol);
            k->fptr = NULL;
            k->fcol = NULL;
            scale = pairs / nnz;            /* too much work */
        }
smaller:
        if (need > room) {
            scale = room / need;
            by_room = 1;
            k->need = need;
            k->over = cnt;
            if (cnt <= 2) {
                free(idx);
                return 2;
            }
        }
        /* the largest level the room and the work allow, strictly smaller */
        int64_t fit = (int64_t)(0.9 * (double)cnt * scale);
        cap = fit < cnt - 1 ? fit : cnt - 1;
        cap = cap < 2 ? 2 : cap;
    }
    free(idx);
    const int B = k->B;
    const int64_t nnz = k->fptr[B];
    k->F = malloc((size_t)(nnz ? nnz : 1) * sizeof *k->F);
    k->tpos = malloc((size_t)(nnz ? nnz : 1) * sizeof *k->tpos);
    k->dpos = malloc((size_t)B * sizeof *k->dpos);
    k->qt.n = B;
    k->qt.rowptr = calloc((size_t)B + 1, sizeof *k->qt.rowptr);
    k->qt.col = malloc((size_t)(nnz + B) * sizeof *k->qt.col);
    k->qt.val = calloc((size_t)(nnz + B), sizeof *k->qt.val);
    k->X = malloc((size_t)B * sizeof *k->X);
    k->y = malloc((size_t)B * sizeof *k->y);
    if (nt > 1) {
        k->Fs = malloc((size_t)(nt - 1) * (size_t)(nnz ? nnz : 1) * sizeof *k->Fs);
        if (k->T && !(k->TFs = malloc((size_t)(nt - 1) * k->T * k->T * sizeof *k->TFs)))
            return -1;
    }
    k->ml = num_ml_new();
    int64_t *fill = calloc((size_t)B, sizeof *fill);
    if (!k->F || !k->tpos || !k->dpos || !k->qt.rowptr || !k->qt.col || !k->qt.val ||
        !k->X || !k->y || (nt > 1 && !k->Fs) || !k->ml || !fill) {
        free(fill);
        return -1;
    }
    /* row T of qt: the sources S of the pairs (S, T) in increasing
     * order, the diagonal at its place */
    for (int64_t e = 0; e < nnz; e++)
        k->qt.rowptr[k->fcol[e] + 1]++;
    for (int T = 0; T < B; T++)
        k->qt.rowptr[T + 1] += k->qt.rowptr[T] + 1;
    for (int T = 0; T < B; T++)
        k->dpos[T] = -1;
    for (int S = 0; S < B; S++) {
        for (int64_t e = k->fptr[S]; e < k->fptr[S + 1]; e++) {
            const int T = k->fcol[e];
            if (k->dpos[T] < 0 && S > T) {
                k->dpos[T] = k->qt.rowptr[T] + fill[T]++;
                k->qt.col[k->dpos[T]] = T;
            }
            k->tpos[e] = k->qt.rowptr[T] + fill[T]++;
            k->qt.col[k->tpos[e]] = S;
        }
    }
    for (int T = 0; T < B; T++)
        if (k->dpos[T] < 0) {
            k->dpos[T] = k->qt.rowptr[T] + fill[T]++;
            k->qt.col[k->dpos[T]] = T;
        }
    free(fill);
    return 0;
}

/* The coarse correction of x (summing to 1): 0 applied, 1 skipped (the
 * coarse chain has a block without mass, or its solve broke down), -1
 * out of memory. */
static int kml_correct(kml *k, num_ls *c, const kron_desc *d, double *x)
{
    const int B = k->B;
    const int64_t n = d->n;
    int rc = kron_flows_sparse(d, k->blk, B, k->fptr, k->fcol, x, k->F, k->Fs);
    if (rc != 0)
        return rc < 0 ? -1 : 1;
    c->op->products++;          /* one walk: about one product */
    memset(k->X, 0, (size_t)B * sizeof *k->X);
    for (int64_t i = 0; i < n; i++)
        k->X[k->blk[i]] += x[i];
    double maxd = 0;
    for (int S = 0; S < B; S++) {
        if (!(k->X[S] > 0))
            return 1;
        double out = 0;
        for (int64_t e = k->fptr[S]; e < k->fptr[S + 1]; e++) {
            k->qt.val[k->tpos[e]] = k->F[e] / k->X[S];
            out += k->F[e];
        }
        k->qt.val[k->dpos[S]] = -out / k->X[S];
        maxd = fmax(maxd, out / k->X[S]);
    }
    if (B == 1)
        return 1;
    for (int S = 0; S < B; S++)
        k->y[S] = k->X[S];
    num_op sop;
    num_op_csr(&sop, &k->qt, maxd);
    san_solve_opts so = *c->o;
    so.max_iter = KML_COARSE_CYCLES;
    so.progress = 0;
    so.time_limit = 0;
    san_solve_info si;
    memset(&si, 0, sizeof si);
    num_ls sc;
    memset(&sc, 0, sizeof sc);
    sc.op = &sop;
    sc.qt = &k->qt;
    sc.maxd = maxd;
    sc.o = &so;
    sc.info = &si;
    sc.tol = 0.1 * c->tol;
    sc.t0 = san_ls_now();
    sc.last_print = sc.t0;
    sc.clock_skip = 1;
    rc = num_ls_ml_kept(&sc, k->y, k->ml);
    num_ls_free(&sc);
    if (rc < 0)
        return si.status == SAN_E_NOMEM ? -1 : 1;
    double s = 0;
    for (int S = 0; S < B; S++) {
        if (!(k->y[S] >= 0) || !isfinite(k->y[S]))
            return 1;
        s += k->y[S];
    }
    if (!(s > 0))
        return 1;
    for (int S = 0; S < B; S++)
        k->y[S] /= s * k->X[S];     /* the factor of block S */
    SAN_OMP(omp parallel for if(n >= c->op->par_min) schedule(static))
    for (int64_t i = 0; i < n; i++)
        x[i] *= k->y[k->blk[i]];
    return 0;
}


/* (KML_TAIL_MAX: see kml_tail_bytes) The tail: the automata the coarse chain aggregates wholly (from
 * keep on, or keep + 1 when automaton keep is cut into runs), their
 * joint local state a tail state, the last of them only when they have
 * more than KML_TAIL_MAX.  Its chain under x (the flows of the terms
 * that move a tail automaton: one walk of those terms, kron_flows)
 * solved by GTH corrects the tail's marginal after the coarse
 * correction, which cannot: it scales whole blocks.  Why: the cycles
 * grew with the size on the resource-sharing models (rs N processes,
 * R = N, --lump off, tol 1e-10, cycles: N = 14, 16, 18, 20: 27, 31,
 * 35, 39) at a steady contraction of 0.45 a cycle on N = 16, the
 * Jacobi contraction of an aggregated automaton's own mode (1 - 0.9 *
 * 9 / 64 a sweep, six sweeps: its rates 3 + 6 against a mean exit rate
 * of 64), which the smoothing alone must remove and which worsens with
 * every automaton added.  With the tail: 13, 15, 17 (N = 14 .. 18).
 * Not when automaton keep is cut into runs: tss6.san's queue (101
 * states, 25 runs kept) as the tail oscillated without converging (310
 * cycles, residual 4e-3 .. 1e-2), the failure the comment at the top
 * names.  The other models (same tol, recombination on, tail off ->
 * on): fms n = 3 19 -> 25 cycles, kanban t = 3 24 -> 22, cluster64 14
 * -> 14, rs 18 15 -> 11. */
static int kml_tail_setup(kml *k, const kron_desc *d, const int64_t *idx, const double *x)
{
    const int naut = d->tree.naut;
    int a0 = k->G > 1 ? k->keep + 1 : k->keep;
    if (a0 >= naut)
        return 0;
    int64_t T = 1;
    for (int a = a0; a < naut; a++)
        T *= d->tree.ns[a];
    while (T > KML_TAIL_MAX && a0 < naut - 1)
        T /= d->tree.ns[a0++];
    if (T > KML_TAIL_MAX || T < 2)
        return 0;
    int *map = malloc((size_t)T * sizeof *map);
    k->tblk = malloc((size_t)d->n * sizeof *k->tblk);
    k->tlev = calloc((size_t)naut, 1);
    if (!map || !k->tblk || !k->tlev) {
        free(map);
        return -1;
    }
    for (int a = a0; a < naut; a++)
        k->tlev[a] = 1;
    for (int64_t t = 0; t < T; t++)
        map[t] = -1;
    int m = 0;
    for (int64_t i = 0; i < d->n; i++) {
        if (!(x[i] > 0)) {
            k->tblk[i] = 0;
            continue;
        }
        int64_t t = idx[i] % T;
        if (map[t] < 0)
            map[t] = m++;
        k->tblk[i] = (uint16_t)map[t];
    }
    free(map);
    if (m < 2)
        return 0;
    k->T = m;
    k->TF = malloc((size_t)m * m * sizeof *k->TF);
    k->TA = malloc((size_t)m * m * sizeof *k->TA);
    k->TX = malloc((size_t)m * sizeof *k->TX);
    k->Tz = malloc((size_t)m * sizeof *k->Tz);
    if (!k->TF || !k->TA || !k->TX || !k->Tz)
        return -1;
    return 0;
}

/* The correction of the tail's marginal: the chain of the tail states
 * under x solved by GTH, x scaled in each tail state.  0 applied, 1
 * skipped, -1 out of memory. */
static int kml_tail_correct(kml *k, num_ls *c, const kron_desc *d, double *x)
{
    const int T = k->T;
    const int64_t n = d->n;
    if (T < 2)
        return 1;
    memset(k->TF, 0, (size_t)T * T * sizeof *k->TF);
    int rc = kron_flows_into(d, k->tblk, T, k->tlev, x, k->TF, k->TFs);
    if (rc != 0)
        return rc < 0 ? -1 : 1;
    c->op->products++;
    memset(k->TX, 0, (size_t)T * sizeof *k->TX);
    for (int64_t i = 0; i < n; i++)
        k->TX[k->tblk[i]] += x[i];
    for (int S = 0; S < T; S++) {
        if (!(k->TX[S] > 0))
            return 1;
        for (int D = 0; D < T; D++)
            k->TA[(size_t)S * T + D] = k->TF[(size_t)S * T + D] / k->TX[S];
    }
    if (num_gth_dense(k->TA, T, k->Tz) != 0)
        return 1;
    double s = 0;
    for (int S = 0; S < T; S++)
        s += k->Tz[S];
    if (!(s > 0) || !isfinite(s))
        return 1;
    for (int S = 0; S < T; S++)
        k->Tz[S] /= s * k->TX[S];
    SAN_OMP(omp parallel for if(n >= c->op->par_min) schedule(static))
    for (int64_t i = 0; i < n; i++)
        x[i] *= k->Tz[k->tblk[i]];
    return 0;
}

/* Line smoothing: block Jacobi whose blocks are the lines of the last
 * automaton (the positions that differ only in its local state), each
 * solved exactly for the transitions between neighbouring local
 * states (i -> i +- 1: a birth-death line, a queue), the others
 * explicit (a splitting: its fixed point is x Q = 0 whatever it holds
 * explicit).  Set up when the coarse chain cuts the last automaton into
 * runs: the tail cannot correct it then (kml_tail_setup), and the
 * Jacobi sweeps corrected the inside of the runs at about 0.6 a cycle.
 * It replaces the Jacobi sweeps, as many line sweeps (one product
 * each, and two or three passes over four vectors); KML_LINE_BYTES a position,
 * taken only when the room left beside the coarse chain holds them.
 * Measured (tol 1e-12, -m ml over kron, cycles / iterations with the
 * checks' cycles / user s, load 13-20 on the 2 cores; Jacobi 3/3 ->
 * lines 3/3): tss7 --lump off (220,887 states) 40 / 41 / 4.3 -> 23 /
 * 24; tss9 --lump off (1,987,983) 44 / 50 / 52 s / 512 MB -> 25 /
 * 26 / 36 s / 546 MB; tss9 lumped 39 / 40 -> 22 / 25; pipe7 95 / 96 / 15.2
 * -> 47 / 48 / 10.5; ms async 8/40 (lumped: its buffer cut into runs)
 * 27 / 28 -> 19 / 20.  Tried (tss7, then tss9 --lump off): a line
 * sweep and then 2 Jacobi ones, pre and post, 30 / 31, 36 / 37; 1 and
 * 1 27 / 28; 2 lines 0 Jacobi 28 / 29, 31 / 37 (pipe7 74 / 78, ms
 * 28 / 29); 2 and 1 25 / 28; 4 lines 0 Jacobi 23 / 24 (pipe7 43 / 44:
 * 10 products a cycle against 8, more in all).  Without the lines nothing changes: rs
 * and ms --lump off keep every automaton whole or aggregate the tail.
 * Each line is factored by GTH-like elimination from both of its ends
 * toward a twist m (kml_line_factor): below m, e_j (the part of pivot
 * j that is not the rate up) is the rate leaving the line plus dn_j
 * e_{j-1} / p_{j-1}; above m, mirrored; the pivot of m joins both.  No
 * subtraction but the rate leaving the line, -q_jj - up_j - dn_j, and
 * that is cut to 0 below KML_LINE_ROUND -q_jj.  Why, measured on a
 * line that is the whole chain (one automaton: M/M/1/300, lambda
 * 4.7571834747553039, mu 4.6543874925312636, rho 1.0221, boundtest
 * seed 89): -q_jj = lambda + mu rounds to 9.4115709672865684, and
 * -q_jj - up - dn left 8.9e-16 at every inner state, an exit that is
 * not there; summed by the elimination (e_j = 8.9e-16 + e_{j-1} / rho)
 * to 4.0e-14 at the last state, whose pivot must be 0 (a closed line:
 * its system is singular, delta known up to a multiple of pi).  So
 * delta_K = g_K / 4.0e-14, g_K = -1.3e-15 the roundoff of sum t
 * (exactly 0): -3.3e-2 against x_K = 3.3e-3, x + delta = c pi with c
 * < 0, 201 of the 301 states clipped to 0 by the first sweep, the sum
 * 0.0196, and after 4 cycles nothing left ("the iterate does not sum
 * to a positive number"; M/M/1/600 at rho 1.079 the same after 50).
 * With the exit cut the pivot is 0, delta is pinned to 0 there (x + delta
 * = x_m pi / pi_m: the line's shape, exact) and the case takes 3 cycles
 * against 37 with the Jacobi sweeps.  The pin is at the twist: the
 * state of the most mass of the line's birth-death chain alone
 * (kml_line_twist), not an end: pinned at the last state, M/M/1/K at
 * rho 0.3 - 0.9 (the last state holds rho^K of the first) scaled the
 * line by x_K / pi_K, overflowed, and broke down after 1 cycle (K =
 * 300 - 2000), or stagnated (K = 2000, rho 0.9: 3 x 101 cycles).  A
 * pivot at or below KML_LINE_PIN -q_jj is taken as 0 (a line nearly
 * closed: its delta there would be roundoff over the pivot); a real
 * exit below KML_LINE_ROUND (the roundoff of sums of up to 64 rates)
 * is held explicit instead, as the moves off the line are: a
 * splitting still.  The clipping of x + omega delta at 0 was not the
 * cause (it only finished what the wrong c began), and it stays: x
 * must stay a distribution.  So a line may be the whole chain (one
 * automaton; the Jacobi sweeps kept that case before): M/M/1/K, mu
 * 4.654, kernel cycles at tol 1e-12, Jacobi -> lines, K = 300 / 600 /
 * 1000 / 2000: rho 0.3 31 / 31 / 41 / 49 -> 4 / 4 / 5 / 5, 0.5 37 / 38
 * / 38 / 81 -> 5 / 4 / 5 / 5, 0.9 36 / 40 / 38 / 145 -> 3 / 3 / 4 /
 * 5, 0.98 33 / 32 / 34 / 117 -> 3 / 3 / 3 / 5, 1.022 37 / 32 / 33 /
 * 117 -> 3 / 3 / 3 / 5, 1.1 40 / 36 / 35 / 135 -> 3 / 3 / 3 / 5, 2 37
 * / 39 / 40 / 66 -> 5 / 4 / 4 / 5, 5 23 / 22 / 28 / 34 -> 3 / 3 / 3 /
 * 5 (every state within 4e-16 relative of the product form where it
 * holds 1e-14 or more).  tss7 and pipe7 --lump off as before the twist
 * (23, 47 cycles). */
#define KML_LINE_BYTES 25.0
#define KML_LINE_ROUND (64 * DBL_EPSILON)
#define KML_LINE_PIN 1e-10

/* where a position of a line is eliminated from (kml_line_factor) */
enum { KML_LINE_LO, KML_LINE_TWIST, KML_LINE_HI };

/* The rate of leaving the line from a state of diagonal -dj; 0 when it
 * is the roundoff of dj - up - dn. */
static double kml_line_exit(double dj, double up, double dn)
{
    const double off = dj - up - dn;
    return off > KML_LINE_ROUND * dj ? off : 0;
}

/* The twist of the line [s, t]: the state of the most mass of its
 * birth-death chain (pi_{j+1} / pi_j = up_j / dn_{j+1}, in logs). */
static int64_t kml_line_twist(const double *up, const double *dn, int64_t s, int64_t t)
{
    double L = 0, best = 0;
    int64_t m = s;
    for (int64_t j = s; j < t; j++) {
        L += log(fmax(up[j], DBL_MIN)) - log(fmax(dn[j + 1], DBL_MIN));
        if (L > best) {
            best = L;
            m = j + 1;
        }
    }
    return m;
}

static double kml_line_inv(double p, double dj)
{
    return p > KML_LINE_PIN * dj ? 1.0 / p : 0;
}

/* The pivots (ip: their inverses, 0 where pinned) and sides of the
 * line [s, t]; returns whether it has positions above its twist. */
static int kml_line_factor(const double *diag, const double *up, const double *dn, int64_t s,
                           int64_t t, double *ip, char *side)
{
    const int64_t m = kml_line_twist(up, dn, s, t);
    double e = 0, p = 0;
    for (int64_t j = s; j < m; j++) {
        const double dj = -diag[j];
        e = kml_line_exit(dj, up[j], dn[j]) +
            (j > s && up[j - 1] > 0 ? dn[j] * (e / p) : dn[j]);
        p = e + up[j];
        ip[j] = kml_line_inv(p, dj);
        side[j] = KML_LINE_LO;
    }
    const double from_lo = m > s && up[m - 1] > 0 ? dn[m] * (e / p) : dn[m];
    e = p = 0;
    for (int64_t j = t; j > m; j--) {
        const double dj = -diag[j];
        e = kml_line_exit(dj, up[j], dn[j]) +
            (j < t && dn[j + 1] > 0 ? up[j] * (e / p) : up[j]);
        p = e + dn[j];
        ip[j] = kml_line_inv(p, dj);
        side[j] = KML_LINE_HI;
    }
    const double from_hi = m < t && dn[m + 1] > 0 ? up[m] * (e / p) : up[m];
    const double dm = -diag[m];
    ip[m] = kml_line_inv(kml_line_exit(dm, up[m], dn[m]) + from_lo + from_hi, dm);
    side[m] = KML_LINE_TWIST;
    return m < t;
}

/* Factors every line: up becomes the coupling of each position's
 * right-hand side to the one eliminated before it (up_{j-1} below the
 * twist and at it, dn_{j+1} above), dn the back-substitution factor
 * (dn_{j+1} / p_j below, up_{j-1} / p_j above, dn_{j+1} at the twist).
 * Lines end where no rate joins j and j + 1 (up and dn are 0 across
 * the ends: kml_line_setup). */
static int kml_line_factor_all(const double *diag, double *up, double *dn, double *ip,
                               char *side, int64_t n)
{
    int hi = 0;
    for (int64_t s = 0, t; s < n; s = t + 1) {
        for (t = s; t + 1 < n && (up[t] > 0 || dn[t + 1] > 0); t++)
            ;
        hi |= kml_line_factor(diag, up, dn, s, t, ip, side);
    }
    for (int64_t j = n - 1; j >= 0; j--)        /* up_{j-1} */
        up[j] = j > 0 ? up[j - 1] : 0;
    for (int64_t j = 0; j < n; j++)             /* dn_{j+1} */
        dn[j] = j + 1 < n ? dn[j + 1] : 0;
    for (int64_t j = 0; j < n; j++) {
        const double a = up[j], b = dn[j];
        up[j] = side[j] == KML_LINE_HI ? b : a;
        dn[j] = side[j] == KML_LINE_LO ? b * ip[j] : side[j] == KML_LINE_HI ? a * ip[j] : b;
    }
    return hi;
}

static int kml_line_setup(kml *k, const kron_desc *d, const int64_t *idx, const double *x,
                          double room)
{
    const int naut = d->tree.naut;
    const int64_t n = d->n;
    if (!(k->G > 1 && k->keep == naut - 1) || KML_LINE_BYTES * (double)n > room)
        return 0;
    const int nl = d->tree.ns[naut - 1];
    char *lev = calloc((size_t)naut, 1);
    double *up = malloc((size_t)n * sizeof *up), *dn = malloc((size_t)n * sizeof *dn);
    double *ip = malloc((size_t)n * sizeof *ip);
    char *side = malloc((size_t)n);
    if (!lev || !up || !dn || !ip || !side) {
        free(lev);
        free(up);
        free(dn);
        free(ip);
        free(side);
        return -1;
    }
    lev[naut - 1] = 1;
    int rc = kron_line_rates(d, lev, up, dn);
    free(lev);
    if (rc != 0) {
        free(up);
        free(dn);
        free(ip);
        free(side);
        return rc < 0 ? -1 : 0;
    }
    /* keep the pairs of one line inside the chain */
    for (int64_t i = 0; i < n; i++) {
        const int in = x[i] > 0 && d->diag[i] != 0;
        const int u = in && i + 1 < n && idx[i + 1] == idx[i] + 1 && idx[i] % nl != nl - 1 &&
                      x[i + 1] > 0 && d->diag[i + 1] != 0;
        const int w = in && i > 0 && idx[i - 1] == idx[i] - 1 && idx[i] % nl != 0 &&
                      x[i - 1] > 0 && d->diag[i - 1] != 0;
        if (!u)
            up[i] = 0;
        if (!w)
            dn[i] = 0;
    }
    k->lhi = kml_line_factor_all(d->diag, up, dn, ip, side, n);
    k->lup = up;
    k->lip = ip;
    k->lcd = dn;
    k->lside = side;
    return 0;
}

/* Line sweeps: t = x Q, the correction delta of every line solved
 * from d_j delta_j - up_{j-1} delta_{j-1} - dn_{j+1} delta_{j+1} = t_j
 * (the balance of the line's states with the flows from outside it
 * held), x += omega delta: the right-hand sides up to the twists, then
 * down from the lines' ends, delta below and at the twists, then
 * above them (a third pass, when a line has positions above its
 * twist). */
static void smooth_line(num_ls *c, const kml *k, double *x, double *t, int sweeps)
{
    const int64_t n = c->op->n;
    const double *a = k->lup, *ip = k->lip, *cd = k->lcd;
    const char *side = k->lside;
    for (int s = 0; s < sweeps; s++) {
        num_op_apply(c->op, x, t);
        double h = 0;
        for (int64_t j = 0; j < n; j++) {
            if (side[j] == KML_LINE_HI)
                continue;
            const double g = t[j] + a[j] * h;
            h = g * ip[j];
            t[j] = side[j] == KML_LINE_TWIST ? g : h;
        }
        double hb = 0, dl = 0;
        for (int64_t j = n - 1; j >= 0; j--) {
            if (side[j] == KML_LINE_HI) {
                hb = (t[j] + a[j] * hb) * ip[j];
                t[j] = hb;
                continue;
            }
            if (side[j] == KML_LINE_TWIST)
                dl = (t[j] + cd[j] * hb) * ip[j];
            else
                dl = ip[j] != 0 ? t[j] + cd[j] * dl : 0;
            t[j] = dl;
            const double v = x[j] + KML_OMEGA * dl;
            x[j] = v > 0 ? v : 0;
        }
        if (!k->lhi)
            continue;
        for (int64_t j = 0; j < n; j++) {
            if (side[j] == KML_LINE_TWIST) {
                dl = t[j];
            } else if (side[j] == KML_LINE_HI) {
                dl = ip[j] != 0 ? t[j] + cd[j] * dl : 0;
                const double v = x[j] + KML_OMEGA * dl;
                x[j] = v > 0 ? v : 0;
            }
        }
    }
}

/* Weighted Jacobi sweeps over the descriptor, x and t swapped; the
 * iterate ends in x. */
static void smooth(num_ls *c, double *x, double *t, int sweeps)
{
    num_op_stats st;
    for (int s = 0; s < sweeps; s++) {
        num_op_pass(c->op, x, t, 1, KML_OMEGA, 1.0, &st);
        memcpy(x, t, (size_t)c->op->n * sizeof *x);
    }
}


/* Iterant recombination over the cycles' iterates (numeric/recombine.c,
 * the sparse ml's too: De Sterck, Miller, Sanders, Winlaw, SISC 2010):
 * the combination x + sum_j b_j (x_j - x) of the current iterate and
 * the last NUM_REC_WINDOW - 1 ones of least squares balance, known from the
 * balance products already made (linearity), taken when it is a
 * distribution of better balance.  What the tail leaves is the
 * coupling of kept and aggregated automata (their joint modes: 1 - 0.9
 * * 18 / 72 a sweep on rs 18, the 0.78 measured), which neither
 * correction reaches.  Measured (rs N = N processes, --lump off, tol
 * 1e-10, cycles / products, tail on; without -> with): rs 16 16 / 162
 * -> 11 / 117, rs 18 18 / 183 -> 11 / 120; without the tail, with
 * recombination: 14, 15; tss6 45 -> 32.  Tried instead, on rs 18 with
 * the tail (cycles / products): sweeps before/after 1/1 44 / 268, 2/2
 * 25 / 219, 0/3 30 / 226, 3/0 33 / 244, 3/3 18 / 183, 5/5 12 / 173
 * (more sweeps: fewer cycles, as many products); 1, 2, 4, 8 cycles of
 * the coarse solve: 19, 18, 17, 17 (its accuracy does not limit).  It
 * holds 2 (NUM_REC_WINDOW - 1) vectors more (solve.c counts them).
 * Both, tol 1e-10, --lump off, iterations / products before -> after
 * (load 6-13, two cores shared): rs 20 (R = 20) 40 / 345 -> 13 / 141,
 * rs 22 (4,194,304 states) 42 -> 13 / 144 (337 s, 1.23 GB), ms async
 * 8/40 28 / 310 -> 20 / 265 (tol 1e-12 33 / 350 -> 23 / 292, 49 -> 35 s),
 * cluster64 28 / 316 -> 14 / 172, ncd17 35 / 302 -> 18 / 183 (32 ->
 * 18 s), tandem c = 127 138 / 1108 -> 69 / 548, kanban t = 3 35 / 428
 * -> 22 / 345, fms n = 3 23 / 481 -> 25 / 521, tss6 45 / 364 -> 32 /
 * 260, tss9 59 / 498 -> 45 / 368 (no tail there: the queue is cut into
 * runs; 0.6 a cycle, the queue's modes inside a run).  -q_jj is read
 * from the descriptor's diagonal (kron_ml's dg). */

/* The kernel's stop test asks the checks themselves (num_ls_probe: the
 * refinement's cycle, on a copy in y) before it stops: the change of
 * one cycle is not the error, it is under it by r / (1 - r) when the
 * cycles contract by r (3 times at r = 0.75).  Passed, the probe's
 * vector is the answer and the checks do not cycle again
 * (c->verified).  Refused, the cycles go on from x (y dropped), unless
 * this was the KML_PROBES-th refusal or its estimate is not half the
 * last one's (the kernel at its floor): then y is the answer and the
 * refinement goes on from the probe's cycle, as from auto's BiCGSTAB
 * (krylov.c).  *last: the last refusal's estimate (HUGE_VAL none).  0
 * stop; 1 go on; -1 out of memory.  Measured, tol 1e-12 (iterations /
 * products, before -> after): tss9 lumped (5,555 states) stopped on a
 * change of 6.2e-13 at an error of 1.7e-12 (the queue's aggregation
 * check), which the refinement's cycles took to 1.0e-12 and then up to
 * 8.1e-12 ("below the roundoff floor", 27 / 226); now refused, one
 * more cycle, passed at 2.9e-13 (25 / 198).  Where the first probe
 * passes it costs one product (the screen's balance) and saves the
 * refinement's cycle: tss7 24 / 197 -> 24 / 198, tss9 26 / 216 -> 26
 * / 217 and pipe7 48 / 386 -> 48 / 387 --lump off, ms8 and rs15 the
 * same.  At the checks' floor: M/M/1/1000 and 2000 at rho 0.98 and
 * 1.022, refused at 2.9e-12 twice (not halved), 1060 -> 1066 and 2088
 * -> 2094 - 2106 products (the refinement and the LU correction answer
 * as before). */
#define KML_PROBES 2
static int kml_probe(num_ls *c, double *x, double *y, double *t, long probes, double *last)
{
    double err;
    const int pr = num_ls_probe(c, x, y, t, &err);
    if (pr == 2)
        err = c->info->error_est;
    if (getenv("SAN_ML_TRACE"))
        fprintf(stderr, "kron ml probe: %s (estimate %.3e)\n", pr == 0 ? "passed" :
                pr == 2 ? "refused by its cycle" : pr == 1 ? "refused by the screen" :
                "no memory", pr == 0 ? c->info->error_est : err);
    if (pr < 0)
        return -1;
    const int floor = pr == 2 && (probes + 1 >= KML_PROBES || !(err <= 0.5 * *last));
    if (pr == 0 || floor) {
        memcpy(x, y, (size_t)c->op->n * sizeof *x);
        return 0;
    }
    *last = err;
    c->probe_change = 0;        /* y is dropped: no cycle to go on from */
    return 1;
}

static int kml_oom(num_ls *c, int64_t n)
{
    snprintf(c->info->msg, sizeof c->info->msg, "out of memory for the levels of the "
             "multilevel method (%lld states)", (long long)n);
    c->info->status = SAN_E_NOMEM;
    return -1;
}

int kron_ml(num_ls *c, double *pi, const kron_desc *d, const san_space *sp, double room,
            int64_t min)
{
    const int64_t n = d->n;
    kml k;
    memset(&k, 0, sizeof k);
    double *t = malloc((size_t)n * sizeof *t), *xp = malloc((size_t)n * sizeof *xp);
    num_ls_best best;
    num_ls_best_init(&best, n);
    num_rec rcb;
    memset(&rcb, 0, sizeof rcb);
    const num_rec_diag dg = { c->op->diag, NULL };
    long recombined = 0;
    double s = num_op_sum(c->op, pi);
    int rc = -1;
    if (!t || !xp || num_rec_init(&rcb, n) < 0)
        goto oom;
    num_op_scale(c->op, pi, 1.0 / s);
    rc = kml_setup(&k, d, sp, pi, room, min);
    if (rc < 0)
        goto oom;
    if (rc == 2) {
        char nb[32], rb[32];
        snprintf(c->info->msg, sizeof c->info->msg, "the multilevel method's coarse chain "
                 "does not fit: one of %lld states needs %s, over the %s that --max-memory "
                 "leaves beside the descriptor and the vectors%s; raise --max-memory",
                 (long long)k.over, san_format_bytes(k.need, nb, sizeof nb),
                 san_format_bytes(room > 0 ? room : 0, rb, sizeof rb),
                 min > 2 ? ", and a smaller one would be too coarse" : "");
        c->info->status = SAN_E_LIMIT;
        rc = -1;
        goto out;
    }
    if (rc > 0) {
        snprintf(c->info->msg, sizeof c->info->msg, "the multilevel method needs the "
                 "descriptor's level tree, dropped after the build; try --method iad");
        c->info->status = SAN_E_USAGE;
        rc = -1;
        goto out;
    }
    long it = 0, since = 0, anchor_it = 0, probes = 0;
    double ch_best = HUGE_VAL, anchor = HUGE_VAL, refused = HUGE_VAL;
    for (;;) {
        memcpy(xp, pi, (size_t)n * sizeof *xp);
        if (k.lup)
            smooth_line(c, &k, pi, t, KML_LINE_PRE);
        else
            smooth(c, pi, t, KML_PRE);
        num_op_scale(c->op, pi, 1.0 / num_op_sum(c->op, pi));
        if (kml_correct(&k, c, d, pi) < 0)
            goto oom;
        if (k.T && kml_tail_correct(&k, c, d, pi) < 0)
            goto oom;
        if (k.lup)
            smooth_line(c, &k, pi, t, KML_LINE_POST);
        else
            smooth(c, pi, t, KML_POST);
        it++;
        s = num_op_sum(c->op, pi);
        if (!(s > 0) || !isfinite(s)) {
            num_ls_best_restore(&best, pi, HUGE_VAL);
            snprintf(c->info->msg, sizeof c->info->msg, "ml broke down after %ld cycles "
                     "(the iterate does not sum to a positive number)", it);
            rc = best.res < HUGE_VAL ? 1 : -1;
            break;
        }
        num_op_scale(c->op, pi, 1.0 / s);
        double rho = num_ls_balance(c, pi, t), tm = 0, xm = 0;
        for (int64_t i = 0; i < n; i++) {
            tm = fmax(tm, fabs(t[i]));
            xm = fmax(xm, pi[i]);
        }
        num_op_stats st = { 1.0, xm, 0 };
        double res = num_resid_value(tm, c->op->maxd, &st);
        recombined += num_rec_combine(&rcb, c->op, &dg, pi, t, &res, &rho);
        num_rec_push(&rcb, pi, t, n);
        double ch = num_rec_change(pi, xp, n, c->op->par_min);
        if (ch < 0.5 * ch_best) {
            ch_best = ch;
            since = 0;
        } else {
            since++;
        }
        if (getenv("SAN_ML_TRACE"))
            fprintf(stderr, "kron ml %ld: residual %.3e balance %.3e change %.3e\n", it,
                    res, rho, ch);
        if (res <= c->tol && rho <= c->tol &&
            (ch <= c->tol || (ch <= KML_CHANGE_TOL * c->tol && since >= KML_CHANGE_STALL))) {
            const int pr = probes < KML_PROBES ? kml_probe(c, pi, xp, t, probes, &refused) : 0;
            if (pr < 0)
                goto oom;
            if (pr == 0) {
                rc = 0;
                break;
            }
            probes++;
        }
        num_ls_best_offer(&best, pi, res);
        if (res < 0.5 * anchor) {
            anchor = res;
            anchor_it = it;
        } else if (it - anchor_it >= KML_STAGNATION) {
            res = num_ls_best_restore(&best, pi, res);
            c->stalled = c->stall_watch;    /* named: the checks judge it */
            snprintf(c->info->msg, sizeof c->info->msg, "ml stagnated at residual %.2e "
                     "after %ld cycles; try --method iad or gmres", res, it);
            rc = 1;
            break;
        }
        num_ls_stop why = num_ls_poll(c, it, res);
        if (why) {
            num_ls_give_up(c, &best, pi, why, it, res, "try --method iad, or raise "
                           "--max-iter");
            rc = 1;
            break;
        }
    }
    if (getenv("SAN_ML_TRACE"))
        fprintf(stderr, "kron ml: %ld cycles (%ld recombined), coarse %d states (%d automata kept, "
                "automaton %d in %d runs), %lld coarse transitions, tail %d, lines %s\n", it, recombined, k.B, k.keep,
                k.keep, k.G, (long long)(k.fptr ? k.fptr[k.B] : 0), k.T, k.lup ? "on" : "off");
    c->info->iterations = it + c->probes;     /* the probes' cycles, as krylov.c */
    goto out;
oom:
    rc = kml_oom(c, n);
out:
    num_ls_progress_end(c);
    num_ls_best_free(&best);
    num_rec_free(&rcb);
    kml_free(&k);
    free(t);
    free(xp);
    return rc;
}
