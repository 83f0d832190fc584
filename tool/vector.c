/*
 * vector.c - the distribution as `--vector FILE` writes it (solve and
 * transient): CSV, the states in the order of their global index, one
 * column per automaton.
 */
#include <stdlib.h>
#include "tool/tool.h"

static const int64_t *sort_index;      /* qsort has no context argument */

static int by_index(const void *x, const void *y)
{
    int64_t a = sort_index[*(const int64_t *)x], b = sort_index[*(const int64_t *)y];
    return (a > b) - (a < b);
}

int64_t *tool_vector_order(const san_space *sp, const char *cmd)
{
    const int64_t n = san_space_states(sp);
    int64_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!order) {
        fprintf(stderr, "san %s: out of memory writing the vector\n", cmd);
        return NULL;
    }
    for (int64_t i = 0; i < n; i++)
        order[i] = i;
    sort_index = san_space_index(sp);
    qsort(order, n, sizeof *order, by_index);
    return order;
}

/* How often a long vector write looks at the interrupt flag. */
#define VECTOR_POLL_ROWS (1 << 16)

static void vector_header(FILE *out, const san_model *m)
{
    fprintf(out, "index");
    for (int a = 0; a < san_model_automata(m); a++) {   /* quoted: a lumped class "M[1,3..5]" */
        fputc(',', out);
        san_csv_field(out, san_model_automaton_name(m, a));
    }
    fprintf(out, ",probability\n");
}

/* One state: its index, its local states by name, its probability. */
static void vector_row(FILE *out, const san_model *m, int *s, int64_t index, double p)
{
    san_state_decode(m, index, s);
    fprintf(out, "%lld", (long long)index);
    for (int a = 0; a < san_model_automata(m); a++) {
        fputc(',', out);
        san_csv_field(out, san_model_local_state(m, a, s[a]));
    }
    fprintf(out, ",%.17g\n", p);
}

static int refuse_row(void *ctx, int64_t index, double p)
{
    (void)ctx;
    (void)index;
    (void)p;
    return -1;
}

int tool_vector_write(const void *ctx, FILE *out)
{
    const tool_vector *v = ctx;
    const san_space *sp = v->sp;
    const san_model *m = san_space_model(sp);
    const int64_t n = san_space_states(sp);
    const int64_t *index = san_space_index(sp);
    int64_t *order = tool_vector_order(sp, v->cmd);
    int *s = malloc((san_model_automata(m) + 1) * sizeof *s);
    if (!order || !s) {
        if (order)
            fprintf(stderr, "san %s: out of memory writing the vector\n", v->cmd);
        free(order);
        free(s);
        return -1;
    }
    vector_header(out, m);
    int rc = 0;
    for (int64_t k = 0; k < n; k++) {
        /* a write of millions of rows stops at a Ctrl-C, before the grace
         * runs out */
        if (k % VECTOR_POLL_ROWS == 0 && tool_interrupted()) {
            fprintf(stderr, "san %s: interrupted; the vector is not written\n", v->cmd);
            rc = -1;
            break;
        }
        int64_t i = order[k];
        vector_row(out, m, s, index[i], v->pi[i]);
    }
    free(order);
    free(s);
    return rc;
}

typedef struct {
    FILE *out;
    const san_model *m;
    int *s;
    int64_t rows;
    const char *cmd;
} engine_rows;

static int engine_row(void *ctx, int64_t index, double p)
{
    engine_rows *e = ctx;
    if (e->rows++ % VECTOR_POLL_ROWS == 0 && tool_interrupted()) {
        fprintf(stderr, "san %s: interrupted; the vector is not written\n", e->cmd);
        return -1;
    }
    vector_row(e->out, e->m, e->s, index, p);
    return 0;
}

int tool_engine_vector_write(const void *ctx, FILE *out)
{
    tool_engine_vector *v = (tool_engine_vector *)ctx;
    const san_model *m = san_analysis_model(v->a);
    engine_rows e = { out, m, malloc((san_model_automata(m) + 1) * sizeof *e.s), 0, v->cmd };
    v->called = 1;
    vector_header(out, m);
    /* collective: called even without memory for the row's scratch, so
     * that the other ranks are released */
    san_status st = san_engine_vector(v->a, e.s ? engine_row : refuse_row, &e);
    if (!e.s)
        fprintf(stderr, "san %s: out of memory writing the vector\n", v->cmd);
    free(e.s);
    return st == SAN_OK ? 0 : -1;
}

void tool_engine_vector_done(tool_engine_vector *v)
{
    if (san_engine_rank(NULL) != 0)
        san_engine_vector(v->a, NULL, NULL);
    else if (!v->called)        /* the file was never opened */
        san_engine_vector(v->a, refuse_row, NULL);
}
