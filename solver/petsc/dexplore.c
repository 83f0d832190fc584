/*
 * dexplore.c - the reachable states explored by every rank at once,
 * each on the states it owns, in two passes.
 *
 * 1. Discovery.  A state belongs to rank hash(product index) mod P
 *    (downer(), dist.h): balanced whatever the layout of the reachable
 *    states in the product space, which nobody knows yet.  A rank
 *    expands the states of its queue (its own states not yet expanded,
 *    in the order it numbered them) in rounds of at most ARC_QUOTA
 *    transitions; every arc i -> j with j != i travels to the owner of
 *    j (MPI_Alltoallv, one per round, the rank's own arcs included),
 *    which numbers j if it is new.  The rounds are a breadth-first
 *    search whose levels are cut into pieces; it ends when, after an
 *    exchange, no rank has a state left to expand.
 * 2. The states are dealt again by ranges of the product index
 *    (dpartition.c): neighbours together, exactly balanced.
 * 3. The arcs.  Every rank expands its states once more, in rounds as
 *    above, and each arc travels to the range owner of its target,
 *    which keeps it as an entry of its row j of Q^T: each rank ends with
 *    exactly the rows of Q^T it will own, no row crosses the network
 *    twice, and most arcs do not cross at all.  The source of an arc is
 *    named by (rank, local number); the global numbers, prefix sums of
 *    the per-rank counts, are known at the end (dmatrix.c).
 *
 * Listing the successors twice costs a second pass of the successor
 * generation; keeping the arcs of the first pass and renumbering them
 * would cost two all-to-all exchanges of every arc and twice their
 * memory at the peak instead.
 *
 * Every round starts with dagree(): a rank over its memory,
 * interrupted, or stopped by an invalid rate stops all.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/services.h"
#include "solver/petsc/dist.h"
#include "lang/expr.h"
#include "solver/space/messages.h"
#include "solver/space/reach_walk.h"
#include "solver/space/succ.h"

/* Transitions listed per round by one rank (24 bytes each travel): a
 * send buffer of 13 MB at most (the arcs, then sorted), about 6 MB to
 * receive: small next to a rank's part of 10^6 states, and large
 * enough that a round's collectives cost little beside its work. */
#define ARC_QUOTA (1 << 18)

/* Room for need states, doubling; the new size is held against the
 * rank's limit before it is allocated.  0, -1 (no memory), -3 (limit). */
static int reserve_states(const dctx *c, dspace *s, int64_t need)
{
    if (need <= s->cap)
        return 0;
    int64_t cap = s->cap ? 2 * s->cap : 4096;
    while (cap < need)
        cap *= 2;
    if ((s->need = dspace_bytes(s) + 20.0 * (cap - s->cap)) > c->limit)
        return -3;
    int64_t *ix = realloc(s->index, cap * sizeof *ix);
    if (ix)
        s->index = ix;
    double *ex = realloc(s->exit, cap * sizeof *ex);
    if (ex)
        s->exit = ex;
    float *rl = realloc(s->rel, cap * sizeof *rl);
    if (rl)
        s->rel = rl;
    if (!ix || !ex || !rl)
        return -1;
    s->cap = cap;
    return 0;
}

static int reserve_arcs(const dctx *c, dspace *s, int64_t need)
{
    if (need <= s->caparc)
        return 0;
    int64_t cap = s->caparc ? 2 * s->caparc : 65536;
    while (cap < need)
        cap *= 2;
    if ((s->need = dspace_bytes(s) + 20.0 * (cap - s->caparc)) > c->limit)
        return -3;
    void *p;
    if ((p = realloc(s->arow, cap * sizeof *s->arow)))
        s->arow = p;
    if (p && (p = realloc(s->asrank, cap * sizeof *s->asrank)))
        s->asrank = p;
    if (p && (p = realloc(s->aslocal, cap * sizeof *s->aslocal)))
        s->aslocal = p;
    if (p && (p = realloc(s->aval, cap * sizeof *s->aval)))
        s->aval = p;
    if (!p)
        return -1;
    s->caparc = cap;
    return 0;
}

/* Local number of product index idx, numbering it when new (*fresh). */
static int64_t number(const dctx *c, dspace *s, int64_t idx, int *fresh)
{
    if (idmap_full(&s->map) &&
        (s->need = dspace_bytes(s) + 24.0 * (s->map.mask + 1)) > c->limit)
        return -3;      /* the map doubles: 12 bytes a slot, old and new */
    int64_t id = idmap_get(&s->map, idx, (int32_t)s->nloc, fresh);
    if (id < 0)
        return -1;
    if (!*fresh)
        return id;
    int rc = reserve_states(c, s, s->nloc + 1);
    if (rc < 0)
        return rc;
    s->index[s->nloc] = idx;
    s->exit[s->nloc] = 0;
    s->rel[s->nloc] = 1;
    return s->nloc++;
}

/* ---- the seeds ---- */

typedef struct {
    const dctx *c;
    dspace *s;
    const san_space_opts *o;
    int rc;
} seeding;

static int seed_take(reach_walk *w, int64_t idx, const int *state)
{
    seeding *S = w->ctx;
    (void)state;
    S->s->declared++;
    if (downer(idx, S->c->size) != S->c->rank)
        return 0;
    int fresh;
    int64_t id = number(S->c, S->s, idx, &fresh);
    if (id < 0) {
        S->rc = (int)id;
        return -1;
    }
    return 0;
}

static int seed_tick(reach_walk *w)
{
    seeding *S = w->ctx;
    if (S->o->interrupt && *S->o->interrupt) {
        S->rc = -1;
        return -1;
    }
    return 0;
}

/* Every rank walks the reachability function (reach_walk.h) and keeps
 * the states it owns: the walk is cheap next to the exploration (boxes
 * of states are taken whole), and repeating it saves an exchange. */
static san_status seeds(const dctx *c, const san_space_opts *o, dspace *s, char *msg, size_t n)
{
    if (!s->m->product_fits) {
        snprintf(msg, n, "the product space has %s states: too many to scan with the "
                 "reachability function (state indices are 64-bit)", s->m->product_str);
        return SAN_E_MODEL;
    }
    seeding S = { c, s, o, 0 };
    reach_walk w = { .m = s->m, .max_evals = 4000000000LL, .take = seed_take,
                     .tick = seed_tick, .ctx = &S };
    int rc = reach_walk_run(&w);
    if (rc == -3) {
        snprintf(msg, n, "the product space has %s states: scanning it with the reachability "
                 "function took too many evaluations", s->m->product_str);
        return SAN_E_MODEL;
    }
    if (S.rc == -3) {
        char b[32];
        char b2[32];
        snprintf(msg, n, "rank %d: the states the reachability function accepts need more "
                 "than %s, beyond --max-memory of %s for one rank", c->rank,
                 san_format_bytes(s->need, b2, sizeof b2), san_format_bytes(c->limit, b, sizeof b));
        return SAN_E_LIMIT;
    }
    if (rc != 0 || S.rc) {
        if (o->interrupt && *o->interrupt)
            return SAN_E_INTERRUPTED;
        snprintf(msg, n, "rank %d: out of memory while scanning the reachability function",
                 c->rank);
        return SAN_E_NOMEM;
    }
    return SAN_OK;
}

/* ---- one round ---- */

typedef struct {
    succ_ctx sc;
    space_arcs arcs;
    int *state;
    darc *out;                  /* this round's arcs, then by destination */
    int *dest;
    int64_t nout, capout;
    darc *sorted;               /* by destination */
    darc *in;
    int64_t capin;
    int *scount, *sdispl, *rcount, *rdispl;
} round_buf;

static int grow_out(round_buf *b, int64_t need)
{
    if (need <= b->capout)
        return 0;
    int64_t cap = b->capout ? 2 * b->capout : 65536;
    while (cap < need)
        cap *= 2;
    darc *o = realloc(b->out, cap * sizeof *o);
    if (o)
        b->out = o;
    int *d = realloc(b->dest, cap * sizeof *d);
    if (d)
        b->dest = d;
    if (!o || !d)
        return -1;
    b->capout = cap;
    return 0;
}

/* The first pass counts, on one state in MOVES_SAMPLE, the arcs that
 * change each automaton's local state: dpartition.c orders the key by
 * them.  (Decoding every target would cost naut divisions an arc.) */
#define MOVES_SAMPLE 8

static void count_moves(dspace *s, const round_buf *b, int64_t idx)
{
    const san_model *m = s->m;
    for (int k = 0; k < b->arcs.n; k++) {
        int64_t to = b->arcs.v[k].to, from = idx;
        if (to == from)
            continue;
        for (int a = m->naut - 1; a >= 0 && to != from; a--) {
            const int ns = m->aut[a].nstates;
            s->moves[a] += to % ns != from % ns;
            to /= ns;
            from /= ns;
        }
    }
}

/* Expands queued states from *next until ARC_QUOTA transitions are
 * listed, their arcs into b->out.  SAN_OK or a failure with msg. */
static san_status expand(const dctx *c, dspace *s, round_buf *b, int64_t *next, char *msg,
                         size_t n)
{
    b->nout = 0;
    while (*next < s->nloc && b->nout < ARC_QUOTA) {
        const int64_t i = *next, idx = s->index[i];
        san_state_decode(s->m, idx, b->state);
        b->arcs.n = 0;
        int rc = succ_enumerate(&b->sc, b->state, idx, &b->arcs, msg, n);
        if (rc == 0)
            rc = succ_check_exit_rate(&b->sc, b->state, idx, &b->arcs, 0, msg, n);
        if (rc == -2)
            return SAN_E_MODEL;
        if (rc < 0 || grow_out(b, b->nout + b->arcs.n) < 0) {
            snprintf(msg, n, "rank %d: out of memory while exploring", c->rank);
            return SAN_E_NOMEM;
        }
        s->buf_bytes = 24.0 * b->capin + 52.0 * b->capout;
        if (!s->split && i % MOVES_SAMPLE == 0)
            count_moves(s, b, idx);
        if (!s->split)
            s->arcs_seen += b->arcs.n;
        double out = 0, least = HUGE_VAL;
        for (int k = 0; k < b->arcs.n; k++) {
            const space_arc *a = &b->arcs.v[k];
            if (a->to == idx)
                continue;           /* self-loops change nothing */
            out += a->rate;
            if (a->rate > 0 && a->rate < least)
                least = a->rate;
            b->out[b->nout] = (darc){ a->to, a->rate, (int32_t)i };
            b->dest[b->nout++] = dspace_owner(s, a->to, c->size);
        }
        s->exit[i] = out;
        s->rel[i] = out > 0 ? (float)(least / out) : 1;
        (*next)++;
    }
    return SAN_OK;
}

/* Sorts this round's arcs by destination (b->sorted) and agrees with
 * every rank on the counts; the receive buffer is sized (and held
 * against the limit) before anything large moves.  *nin: the arcs
 * coming.  SAN_OK or a failure with msg (the caller agrees on it before
 * the data move: MPI_Alltoallv needs every rank). */
static san_status prepare(const dctx *c, dspace *s, round_buf *b, int64_t *nin, char *msg,
                          size_t n)
{
    const int P = c->size;
    int64_t *cnt = calloc(P, sizeof *cnt);
    free(b->sorted);
    b->sorted = malloc((b->nout ? b->nout : 1) * sizeof *b->sorted);
    if (!cnt || !b->sorted) {
        free(cnt);
        snprintf(msg, n, "rank %d: out of memory for the send buffer", c->rank);
        return SAN_E_NOMEM;
    }
    for (int64_t k = 0; k < b->nout; k++)
        cnt[b->dest[k]]++;
    int64_t at = 0;
    for (int q = 0; q < P; q++) {
        b->scount[q] = (int)(cnt[q] * sizeof(darc));
        b->sdispl[q] = (int)(at * sizeof(darc));
        int64_t c0 = cnt[q];
        cnt[q] = at;
        at += c0;
    }
    for (int64_t k = 0; k < b->nout; k++)
        b->sorted[cnt[b->dest[k]]++] = b->out[k];
    free(cnt);
    MPI_Alltoall(b->scount, 1, MPI_INT, b->rcount, 1, MPI_INT, PETSC_COMM_WORLD);
    int64_t total = 0;
    for (int q = 0; q < P; q++) {
        b->rdispl[q] = (int)total;
        total += b->rcount[q];
    }
    *nin = total / (int64_t)sizeof(darc);
    if (*nin <= b->capin)
        return SAN_OK;
    s->buf_bytes -= 24.0 * b->capin;
    free(b->in);
    b->in = NULL;
    b->capin = 0;
    char b1[32];
    if ((s->need = dspace_bytes(s) + 24.0 * *nin) > c->limit) {
        char b2[32];
        snprintf(msg, n, "rank %d: the exploration needs more than %s (%lld states on this "
                 "rank, %lld arcs to receive), beyond --max-memory of %s for one rank; raise "
                 "it or run more ranks", c->rank, san_format_bytes(s->need, b2, sizeof b2),
                 (long long)s->nloc, (long long)*nin, san_format_bytes(c->limit, b1, sizeof b1));
        return SAN_E_LIMIT;
    }
    if (!(b->in = malloc(*nin * sizeof *b->in))) {
        snprintf(msg, n, "rank %d: out of memory for the receive buffer", c->rank);
        return SAN_E_NOMEM;
    }
    b->capin = *nin;
    s->buf_bytes += 24.0 * b->capin;
    return SAN_OK;
}

/* The arcs to their targets' owners. */
static void exchange(round_buf *b)
{
    MPI_Alltoallv(b->sorted, b->scount, b->sdispl, MPI_BYTE, b->in, b->rcount, b->rdispl,
                  MPI_BYTE, PETSC_COMM_WORLD);
    free(b->sorted);
    b->sorted = NULL;
}

/* The arcs received.  Discovery (no split yet): their targets numbered.
 * Arcs pass: their entries kept, the targets known. */
static san_status receive(const dctx *c, dspace *s, const round_buf *b, int64_t nin,
                          char *msg, size_t n)
{
    const int keep = s->split != NULL;
    int rc = keep ? reserve_arcs(c, s, s->narc + nin) : 0;
    for (int q = 0, k = 0; rc == 0 && q < c->size; q++) {
        const int64_t end = (b->rdispl[q] + b->rcount[q]) / (int64_t)sizeof(darc);
        for (; rc == 0 && k < end; k++) {
            const darc *a = &b->in[k];
            if (keep) {
                const int32_t j = idmap_find(&s->map, a->to);
                if (j < 0) {
                    rc = -2;
                    break;
                }
                s->arow[s->narc] = j;
                s->asrank[s->narc] = q;
                s->aslocal[s->narc] = a->src;
                s->aval[s->narc++] = a->rate;
                continue;
            }
            int fresh;
            int64_t j = number(c, s, a->to, &fresh);
            if (j < 0) {
                rc = (int)j;
                break;
            }
            if (fresh && !s->m->partial) {
                san_state_decode(s->m, a->to, b->state);
                s->undeclared += san_expr_eval(s->m->reach, b->state) == 0;
            }
        }
    }
    if (rc == 0)
        return SAN_OK;
    char b1[32], b2[32];
    if (rc == -3) {
        snprintf(msg, n, "rank %d: the exploration needs more than %s (%lld states, %lld "
                 "arcs on this rank), beyond --max-memory of %s for one rank; raise it or "
                 "run more ranks", c->rank,
                 san_format_bytes(s->need, b1, sizeof b1), (long long)s->nloc,
                 (long long)s->narc, san_format_bytes(c->limit, b2, sizeof b2));
        return SAN_E_LIMIT;
    }
    if (rc == -2) {     /* the successor generation is deterministic: a bug */
        snprintf(msg, n, "rank %d: internal error: a successor listed again was not found "
                 "among the states of the first pass", c->rank);
        return SAN_E_NUMERIC;
    }
    snprintf(msg, n, "rank %d: out of memory while exploring (%lld states on this rank)",
             c->rank, (long long)s->nloc);
    return SAN_E_NOMEM;
}

static void round_free(round_buf *b)
{
    succ_free(&b->sc);
    free(b->arcs.v);
    free(b->state);
    free(b->out);
    free(b->dest);
    free(b->in);
    free(b->sorted);
    free(b->scount);
}

/* The counts of every rank, their prefix sums: global numbers. */
static san_status number_globally(const dctx *c, dspace *s, char *msg, size_t n)
{
    s->offset = calloc(c->size + 1, sizeof *s->offset);
    int64_t *cnt = malloc(c->size * sizeof *cnt);
    long long mine = s->nloc;
    if (!s->offset || !cnt) {
        free(cnt);
        snprintf(msg, n, "rank %d: out of memory", c->rank);
        return SAN_E_NOMEM;
    }
    MPI_Allgather(&mine, 1, MPI_LONG_LONG, cnt, 1, MPI_LONG_LONG, PETSC_COMM_WORLD);
    for (int q = 0; q < c->size; q++)
        s->offset[q + 1] = s->offset[q] + cnt[q];
    free(cnt);
    s->n = s->offset[c->size];
    s->first = s->offset[c->rank];
    long long u = s->undeclared, ut = 0;
    MPI_Allreduce(&u, &ut, 1, MPI_LONG_LONG, MPI_SUM, PETSC_COMM_WORLD);
    s->undeclared = ut;
    return SAN_OK;
}

/* Rounds of expansion and exchange until no rank has a state left to
 * expand (from s->nloc's first unexpanded state, *next).  Collective. */
static san_status rounds(const dctx *c, const san_space_opts *o, dspace *s, round_buf *b,
                         double t0, san_diag *d)
{
    char msg[1024];
    const int arcs = s->split != NULL;
    int64_t next = 0;
    san_status st = SAN_OK;
    base_progress pg;
    base_progress_init(&pg, c->progress, 0.5);
    for (int round = 0; st == SAN_OK; round++) {
        msg[0] = '\0';
        st = expand(c, s, b, &next, msg, sizeof msg);
        if (st == SAN_OK && o->max_states && !arcs) {
            long long mine = s->nloc, all = 0;
            MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, PETSC_COMM_WORLD);
            if (all > o->max_states) {
                space_max_states_text(msg, sizeof msg, o->max_states);
                st = SAN_E_LIMIT;
            }
        }
        if ((st = dagree(c, st, msg, d)) != SAN_OK)
            break;
        int64_t nin = 0;
        if ((st = dagree(c, prepare(c, s, b, &nin, msg, sizeof msg), msg, d)) != SAN_OK)
            break;
        exchange(b);
        if ((st = dagree(c, receive(c, s, b, nin, msg, sizeof msg), msg, d)) != SAN_OK)
            break;
        long long v[2] = { s->nloc - next, s->nloc }, all[2] = { 0, 0 };
        MPI_Allreduce(v, all, 2, MPI_LONG_LONG, MPI_SUM, PETSC_COMM_WORLD);
        if (!arcs)
            s->levels = round + 1;
        if (arcs)
            base_progress_draw(&pg, 0, "  listing the arcs on %d ranks: %lld of %lld states "
                              "(%.1f s)", c->size, all[1] - all[0], all[1], san_now() - t0);
        else
            base_progress_draw(&pg, 0, "  exploring on %d ranks: %lld states, %lld to expand "
                              "(%.1f s)", c->size, all[1], all[0], san_now() - t0);
        if (all[0] == 0)
            break;
    }
    base_progress_end(&pg, 1);
    return st;
}

static san_status round_init(const dctx *c, const dspace *s, round_buf *b, char *msg, size_t n)
{
    memset(b, 0, sizeof *b);
    if (succ_init(&b->sc, s->m) < 0 || !(b->state = calloc(s->m->naut + 1, sizeof *b->state)) ||
        !(b->scount = malloc(4 * c->size * sizeof *b->scount))) {
        snprintf(msg, n, "rank %d: out of memory", c->rank);
        return SAN_E_NOMEM;
    }
    b->sdispl = b->scount + c->size;
    b->rcount = b->sdispl + c->size;
    b->rdispl = b->rcount + c->size;
    return SAN_OK;
}

san_status dexplore(const dctx *c, const san_space_opts *o, dspace *s, san_diag *d)
{
    const double t0 = san_now();
    char msg[1024] = "";
    round_buf b;
    san_status st = round_init(c, s, &b, msg, sizeof msg);
    if (st == SAN_OK && (idmap_init(&s->map, s->m, 0, 0) < 0 ||  /* limit 0: a hash */
                         !(s->moves = calloc(s->m->naut + 1, sizeof *s->moves)))) {
        snprintf(msg, sizeof msg, "rank %d: out of memory", c->rank);
        st = SAN_E_NOMEM;
    }
    if (st == SAN_OK)
        st = seeds(c, o, s, msg, sizeof msg);
    st = dagree(c, st, msg, d);
    if (st == SAN_OK)
        st = rounds(c, o, s, &b, t0, d);        /* discovery, by the hash */
    round_free(&b);
    double seen = s->arcs_seen;
    MPI_Allreduce(&seen, &s->arcs_seen, 1, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD);
    if (st == SAN_OK)
        st = dpartition(c, s, d);
    if (st == SAN_OK)
        st = dagree(c, number_globally(c, s, msg, sizeof msg), msg, d);
    s->t_explore = san_now() - t0;
    return st;
}

san_status dexplore_arcs(const dctx *c, const san_space_opts *o, dspace *s, san_diag *d)
{
    const double t0 = san_now();
    char msg[1024] = "";
    round_buf b;
    san_status st = dagree(c, round_init(c, s, &b, msg, sizeof msg), msg, d);
    if (st == SAN_OK)
        st = rounds(c, o, s, &b, t0, d);        /* the arcs, by ranges */
    round_free(&b);
    s->t_explore += san_now() - t0;
    return st;
}
