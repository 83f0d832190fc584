/*
 * passage_rows.c - the sparse generator that the passage's linear solves
 * (passage.c) read, on either storage: the space's own rows on the
 * sparse storage; on the tensor descriptor, which stores no Q, rows
 * built beside it by a second exploration when they fit in what
 * --max-memory leaves, with the initial distribution and the target
 * carried over to their numbering (states matched by their mixed-radix
 * index).  Without them the descriptor's passage falls back on the
 * uniformization series, which cannot see a passage of mean 1e16.
 */
#include <stdlib.h>
#include <string.h>
#include "solver/analysis/passage_int.h"
#include "solver/space/state_space.h"

/* alpha and target from the positions of the descriptor (pos: position
 * of each state of from) onto the states of to: 0; 1 a state of to is
 * not one of from (the explorations differ); -1 out of memory. */
static int carry(const san_space *from, const int64_t *pos, const double *alpha,
                 const char *target, const san_space *to, double *alpha_to, char *target_to)
{
    int64_t *ord = space_index_order(from);
    if (!ord)
        return -1;
    int rc = 0;
    for (int64_t j = 0; j < to->n && rc == 0; j++) {
        const int64_t i = space_index_find(ord, from->n, to->index[j]);
        if (i < 0) {
            rc = 1;
            break;
        }
        const int64_t p = pos ? pos[i] : i;
        alpha_to[j] = alpha[p];
        target_to[j] = target[p];
    }
    free(ord);
    return rc;
}

int passage_rows_get(passage_rows *pr, const san_space *sp, const int64_t *pos,
                     const double *alpha, const char *target, const san_space_opts *o,
                     double room, san_diag *d)
{
    memset(pr, 0, sizeof *pr);
    if (!pos && sp->q.val) {    /* the sparse storage: its own rows */
        pr->sp = sp;
        pr->alpha = alpha;
        pr->target = target;
        return 0;
    }
    san_space_opts po = *o;
    po.states_only = 0;
    po.several_closed = 1;
    po.progress = 0;
    po.max_memory = room;
    san_diag quiet;             /* its warnings were the first build's */
    san_diag_init(&quiet, d->file, NULL, 0);
    san_status st = room > 0 ? san_space_build(sp->m, &po, &pr->full, &quiet) : SAN_E_LIMIT;
    san_diag_clear(&quiet);
    if (st == SAN_E_NOMEM)
        return -1;
    if (st != SAN_OK) {
        san_diag_add(d, SAN_NOTE, 0, 0, "passage: the sparse generator for the linear solves "
                     "of P(reach) and the mean could not be built beside the tensor "
                     "descriptor (%s): both by the uniformization series instead",
                     st == SAN_E_LIMIT ? "over what --max-memory leaves" : san_status_name(st));
        return 1;
    }
    pr->built = 1;
    pr->sp = &pr->full;
    double *al = malloc((pr->full.n ? pr->full.n : 1) * sizeof *al);
    char *tg = malloc(pr->full.n ? pr->full.n : 1);
    pr->alpha = al;
    pr->target = tg;
    if (!al || !tg) {
        passage_rows_free(pr);
        return -1;
    }
    int rc = carry(sp, pos, alpha, target, &pr->full, al, tg);
    if (rc != 0) {
        if (rc > 0)
            san_diag_add(d, SAN_NOTE, 0, 0, "passage: the sparse generator's exploration found "
                         "other states than the descriptor's: the uniformization series "
                         "instead");
        passage_rows_free(pr);
        return rc;
    }
    return 0;
}

void passage_rows_free(passage_rows *pr)
{
    if (pr->built) {
        space_clear(&pr->full);
        free((double *)pr->alpha);
        free((char *)pr->target);
    }
    memset(pr, 0, sizeof *pr);
}
