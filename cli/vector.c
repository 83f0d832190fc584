/*
 * vector.c - the distribution as `--vector FILE` writes it (solve and
 * transient): CSV, the states in the order of their global index, one
 * column per automaton.
 */
#include <stdlib.h>
#include "cli.h"

static const san_space *sort_space;     /* qsort has no context argument */

static int by_index(const void *x, const void *y)
{
    int64_t a = sort_space->index[*(const int64_t *)x], b = sort_space->index[*(const int64_t *)y];
    return (a > b) - (a < b);
}

int64_t *cli_vector_order(const san_space *sp, const char *cmd)
{
    int64_t *order = malloc((sp->n ? sp->n : 1) * sizeof *order);
    if (!order) {
        fprintf(stderr, "san %s: out of memory writing the vector\n", cmd);
        return NULL;
    }
    for (int64_t i = 0; i < sp->n; i++)
        order[i] = i;
    sort_space = sp;
    qsort(order, sp->n, sizeof *order, by_index);
    return order;
}

/* How often a long vector write looks at the interrupt flag. */
#define VECTOR_POLL_ROWS (1 << 16)

int cli_vector_write(const void *ctx, FILE *out)
{
    const cli_vector *v = ctx;
    const san_space *sp = v->sp;
    const san_model *m = sp->m;
    int64_t *order = cli_vector_order(sp, v->cmd);
    int *s = malloc((m->naut + 1) * sizeof *s);
    if (!order || !s) {
        if (order)
            fprintf(stderr, "san %s: out of memory writing the vector\n", v->cmd);
        free(order);
        free(s);
        return -1;
    }
    fprintf(out, "index");
    for (int a = 0; a < m->naut; a++)
        fprintf(out, ",%s", m->aut[a].name);
    fprintf(out, ",probability\n");
    int rc = 0;
    for (int64_t k = 0; k < sp->n; k++) {
        /* a write of millions of rows stops at a Ctrl-C, before the grace
         * runs out */
        if (k % VECTOR_POLL_ROWS == 0 && cli_interrupted()) {
            fprintf(stderr, "san %s: interrupted; the vector is not written\n", v->cmd);
            rc = -1;
            break;
        }
        int64_t i = order[k];
        san_state_decode(m, sp->index[i], s);
        fprintf(out, "%lld", (long long)sp->index[i]);
        for (int a = 0; a < m->naut; a++)
            fprintf(out, ",%s", m->aut[a].states[s[a]]);
        fprintf(out, ",%.17g\n", v->pi[i]);
    }
    free(order);
    free(s);
    return rc;
}
