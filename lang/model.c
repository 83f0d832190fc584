/*
 * model.c - the compiled model's release and its global-state helpers
 * (a leaf of lang/: the load, load.c, is on top).
 */
#include <stdlib.h>
#include <string.h>
#include "lang/ast.h"
#include "lang/expr.h"
#include "lang/model_int.h"

/* Frees what is there: a load that ran out of memory (oom.h) leaves
 * counts set ahead of their arrays, and this is how it is freed. */
static void free_automaton(lang_automaton *a)
{
    free(a->name);
    for (int s = 0; a->states && s < a->nstates; s++)
        free(a->states[s]);
    free(a->states);
    free(a->reward);
    free(a->first);
    free(a->tr);
}

static double automaton_bytes(const lang_automaton *a)
{
    double b = LANG_BLOCK_BYTES(strlen(a->name ? a->name : "") + 1) +
               LANG_BLOCK_BYTES(a->nstates * sizeof *a->states) +
               LANG_BLOCK_BYTES(a->nstates * sizeof *a->reward) +
               LANG_BLOCK_BYTES((a->nstates + 1) * sizeof *a->first) +
               LANG_BLOCK_BYTES(a->ntr * sizeof *a->tr);
    for (int s = 0; a->states && s < a->nstates; s++)
        b += LANG_BLOCK_BYTES(strlen(a->states[s] ? a->states[s] : "") + 1);
    return b;
}

/* Held for the whole run, whatever the solve: the tabulated functions
 * (rs 18/9: four tables of 2^18 doubles, 8 MiB, were counted nowhere
 * and --max-memory 36M peaked at 40 MiB over a trivial solve's peak),
 * the compiled code, the automata and the kept syntax tree. */
double lang_model_bytes(const san_model *m)
{
    double b = LANG_BLOCK_BYTES(sizeof *m) + LANG_BLOCK_BYTES(m->naut * sizeof *m->aut) +
               LANG_BLOCK_BYTES(m->nev * sizeof *m->ev) +
               LANG_BLOCK_BYTES(m->nres * sizeof *m->res) +
               LANG_BLOCK_BYTES(m->nid * sizeof *m->id) +
               LANG_BLOCK_BYTES(m->cappool * sizeof *m->pool) +
               LANG_BLOCK_BYTES(m->naut * sizeof *m->stride);
    for (int a = 0; m->aut && a < m->naut; a++)
        b += automaton_bytes(&m->aut[a]);
    for (int e = 0; m->ev && e < m->nev; e++)
        b += LANG_BLOCK_BYTES(strlen(m->ev[e].name ? m->ev[e].name : "") + 1) +
             LANG_BLOCK_BYTES(m->ev[e].nparts * sizeof *m->ev[e].parts);
    for (int k = 0; m->pool && k < m->npool; k++)
        b += lang_expr_bytes(m->pool[k], m);
    if (m->syntax)
        b += ast_file_bytes(m->syntax);
    return b;
}

void san_model_free(san_model *m)
{
    if (!m)
        return;
    for (int a = 0; m->aut && a < m->naut; a++)
        free_automaton(&m->aut[a]);
    free(m->aut);
    for (int e = 0; m->ev && e < m->nev; e++) {
        free(m->ev[e].name);
        free(m->ev[e].parts);
    }
    free(m->ev);
    for (int r = 0; m->res && r < m->nres; r++)
        free(m->res[r].name);
    free(m->res);
    for (int i = 0; m->id && i < m->nid; i++)
        free(m->id[i].name);
    free(m->id);
    for (int k = 0; m->pool && k < m->npool; k++)
        lang_expr_free(m->pool[k]);
    free(m->pool);
    free(m->stride);
    free(m->product_str);
    free(m->name);
    free(m->file);
    if (m->syntax) {
        ast_file_free(m->syntax);
        free(m->syntax);
    }
    free(m);
}

void san_state_decode(const san_model *m, int64_t idx, int *state)
{
    for (int a = m->naut - 1; a >= 0; a--) {
        int ns = m->aut[a].nstates;
        state[a] = (int)(idx % ns);
        idx /= ns;
    }
}

int64_t san_state_encode(const san_model *m, const int *state)
{
    int64_t idx = 0;
    for (int a = 0; a < m->naut; a++)
        idx = idx * m->aut[a].nstates + state[a];
    return idx;
}

char *san_state_name(const san_model *m, const int *state, char *buf, size_t n)
{
    size_t used = 0;
    if (n == 0)
        return buf;
    buf[0] = '\0';
    for (int a = 0; a < m->naut && used < n; a++) {
        int w = snprintf(buf + used, n - used, "%s%s:%s", a ? " " : "",
                         m->aut[a].name, m->aut[a].states[state[a]]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return buf;
}
