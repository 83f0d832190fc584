/*
 * estimate.c - what the tensor path would take, before anything is
 * built: the estimates that compare the storages (san_kron_estimate_bytes,
 * san.h), from the model and the number of reachable states alone,
 * counted as kron_build (build.c) would build with the default tunings.
 */
#include <math.h>
#include <stdlib.h>
#include "solver/kron/kron_int.h"
#include "lang/model_int.h"

/* Terms and tables as kron_build would make them, without building. */
double kron_terms_bytes(const san_model *m, double nleaves)
{
    const int64_t table_max = kron_tuning_default.table_max;
    const int64_t region_max = kron_tuning_default.region_max;
    const san_expr **seen = malloc((m->nev + 1) * sizeof *seen);
    int nseen = 0;
    int *tev = malloc((m->nev + 1) * sizeof *tev);
    int *tstart = malloc((m->nev + 2) * sizeof *tstart);
    kron_term g = { 0 };
    g.kind = malloc((m->naut + 1) * sizeof *g.kind);
    g.dstride = malloc((m->naut + 1) * sizeof *g.dstride);
    int nt = tev && tstart && g.kind && g.dstride && seen
                 ? kron_plan_terms(m, (int64_t)nleaves, table_max, tev, tstart) : -1;
    double b = 0;
    for (int i = 0; i < nt; i++) {
        const lang_event *E = &m->ev[tev[tstart[i]]];
        const int nev = tstart[i + 1] - tstart[i];
        b += sizeof(kron_term) + 12.0 * m->naut + 4.0 * nev;
        for (int k = 0; k < E->nparts; k++) {
            const lang_automaton *A = &m->aut[E->parts[k]];
            b += 8.0 * (A->nstates + 2) + 2.0 * sizeof(kron_move) * A->ntr;
        }
        /* the runs below the region level: about two per leaf of a
         * region node at most */
        b += 2.0 * sizeof(kron_run) *
             (double)(m->product_fits && m->product < region_max ? m->product : region_max);
        double msize = 0;
        if (nev > 1) {
            g.ev = tev[tstart[i]];
            g.evs = tev + tstart[i];
            g.nev = nev;
            msize = (double)kron_term_levels(&g, m, table_max);
        }
        /* a table per functional rate, over the automata it reads or the
         * merged term's, shared by the terms of the same function
         * (replicas), or one per state when that is smaller (8 bytes a
         * state: an upper bound, codes take 1); past table_max entries
         * none, the function is evaluated */
        for (int j = tstart[i]; j < tstart[i + 1]; j++) {
            const san_expr *r = m->ev[tev[j]].rate;
            int k = 0;
            while (k < nseen && seen[k] != r)
                k++;
            if (!r || san_expr_is_const(r) || k < nseen)
                continue;
            seen[nseen++] = r;
            double size = msize;
            if (nev == 1) {
                int nd;
                const int *dep = san_expr_deps(r, &nd);
                size = 1;
                for (int k = 0; k < nd; k++)
                    size *= m->aut[dep[k]].nstates;
            }
            b += size > nleaves ? 8.0 * nleaves : size <= table_max ? 8.0 * size : 0;
        }
    }
    free(seen);
    free(tev);
    free(tstart);
    free(g.kind);
    free(g.dstride);
    return b;
}

double san_kron_estimate_bytes(const san_model *m, int64_t reachable)
{
    double n = (double)reachable, vec = n;
    double tree = 0;
    if (m->product_fits && n < KRON_PRODUCT_MIN_FILL * (double)m->product) {
        /* explicit levels (~12 bytes a state), node classes, and the
         * region runs: kron_choose_region takes the lowest level whose
         * classes' runs, REGION_BYTES_PER_LEAF a leaf and a term, fit the tunings'
         * room (16 bytes a state, 8 MiB at least; kron_region_room), so
         * they take the smaller of the room and that per state and
         * term (at most one term an event).  The room alone made a
         * 48-state model "need ~8.16 MiB". */
        const double room = fmax(kron_tuning_default.region_bytes_per_state * n,
                                 kron_tuning_default.region_min_bytes);
        const double runs = (double)REGION_BYTES_PER_LEAF * n * (m->nev > 0 ? m->nev : 1);
        tree = 14.0 * n + fmin(room, runs);
    } else if (m->product_fits)
        vec = (double)m->product;
    /* the diagonal, pi, the answer in the space's numbering, and the
     * vectors of BiCGSTAB (the largest method that auto falls back on
     * before the power method) */
    return kron_terms_bytes(m, vec) + tree + 8.0 * vec * (1 + 1 + 9) + 8.0 * n;
}
