/*
 * prism.c - PRISM's explicit transitions and labels files (the states
 * file is in states.c).  Followed from PRISM's manual, "Explicit model
 * files": a CTMC's .tra holds "states transitions" then one "i j rate"
 * line per transition, by source then destination; the .lab file names
 * its labels on the first line, 0="init" 1="deadlock" ..., then lists
 * for each state that has some label "i: l1 l2 ...".  "init" marks the
 * model's initial states (PRISM takes them from the labels file: the
 * .tra has none); the other names are names.c's.
 */
#include <stdlib.h>
#include <string.h>
#include "solver/export/export_int.h"
#include "lang/model_int.h"
#include "solver/space/space_int.h"

/* Off-diagonal rates of a permuted generator: PRISM wants the rates,
 * not the diagonal (it computes the exit rates itself). */
static int64_t count_rates(const san_csr *pq)
{
    int64_t m = 0;
    for (int64_t r = 0; r < pq->n; r++)
        for (int64_t k = pq->rowptr[r]; k < pq->rowptr[r + 1]; k++)
            m += pq->col[k] != r && pq->val[k] != 0;
    return m;
}

san_status san_export_prism_tra(const san_space *sp, FILE *out, char *err, size_t n)
{
    if (!sp->q.val) {
        exp_err(err, n, "the space has no generator (built without it)");
        return SAN_E_USAGE;
    }
    san_csr pq;
    if (exp_permuted(sp, &pq) != 0) {
        exp_err(err, n, "out of memory");
        return SAN_E_NOMEM;
    }
    fprintf(out, "%lld %lld\n", (long long)pq.n, (long long)count_rates(&pq));
    for (int64_t r = 0; r < pq.n; r++)
        for (int64_t k = pq.rowptr[r]; k < pq.rowptr[r + 1]; k++)
            if (pq.col[k] != r && pq.val[k] != 0)
                fprintf(out, "%lld %d %.17g\n", (long long)r, pq.col[k], pq.val[k]);
    san_csr_free(&pq);
    if (ferror(out)) {
        exp_err(err, n, "write error");
        return SAN_E_IO;
    }
    return SAN_OK;
}

/* A state with no rate out of it: PRISM's "deadlock". */
static int is_deadlock(const san_space *sp, int64_t i)
{
    if (sp->exit)
        return sp->exit[i] == 0;
    for (int64_t k = sp->q.rowptr[i]; k < sp->q.rowptr[i + 1]; k++)
        if (sp->q.col[k] != i && sp->q.val[k] != 0)
            return 0;
    return 1;
}

/* The label names: init, deadlock, then one per local state of every
 * automaton (names.c), numbered from 2 in automaton order. */
static void label_names(const exp_names *nm, FILE *out)
{
    fputs("0=\"init\" 1=\"deadlock\"", out);
    for (int l = 0; l < nm->nlabel; l++)
        fprintf(out, " %d=\"%s\"", l + 2, nm->label[l]);
    fputc('\n', out);
}

/* The model's initial states: those its reachability function accepts.
 * Under partial reachability they are the states the exploration starts
 * from; under full reachability every declared state (san transient's
 * default start, uniform over them, is over the same set). */
static int is_initial(const san_model *m, const int *s)
{
    return san_expr_eval(m->reach, s) != 0;
}

san_status san_export_prism_lab(const san_space *sp, FILE *out)
{
    const san_model *m = sp->m;
    if (!sp->exit && !sp->q.val)
        return SAN_E_USAGE;     /* neither exit rates nor a generator */
    int64_t *order = exp_order(sp);
    int *s = malloc((m->naut + 1) * sizeof *s);
    exp_names nm;
    int named = exp_names_make(m, &nm) == 0;
    if (!order || !s || !named) {
        free(order);
        free(s);
        if (named)
            exp_names_free(&nm);
        return SAN_E_NOMEM;
    }
    label_names(&nm, out);
    for (int64_t r = 0; r < sp->n; r++) {
        const int64_t i = order[r];
        san_state_decode(m, sp->index[i], s);
        fprintf(out, "%lld:", (long long)r);
        if (is_initial(m, s))
            fputs(" 0", out);
        if (is_deadlock(sp, i))
            fputs(" 1", out);
        for (int a = 0; a < m->naut; a++)
            fprintf(out, " %d", 2 + nm.first[a] + s[a]);
        fputc('\n', out);
    }
    free(order);
    free(s);
    exp_names_free(&nm);
    return ferror(out) ? SAN_E_IO : SAN_OK;
}
