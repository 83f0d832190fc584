/*
 * model.c - the compiled model's life cycle and its global-state helpers.
 */
#include <stdlib.h>
#include <string.h>
#include "ast.h"
#include "expr.h"
#include "sema.h"
#include "oom.h"
#include "lexer_extra.h"

/* Parse and compile, the load's recovery point set (oom.h): an
 * allocation that fails anywhere in the front end comes back here. */
static san_status compile(const char *text, size_t len, san_diag *d, const san_load_opts *opt,
                          ast_file *f, lang_oom *oom, san_progress *progress, san_model **out)
{
    oom->cleanup = NULL;
    if (setjmp(oom->env)) {
        if (oom->cleanup)
            oom->cleanup(oom->ctx);
        san_diag_add(d, SAN_ERROR, 0, 0, "out of memory while compiling the model");
        return SAN_E_NOMEM;
    }
    f->oom = oom;
    f->progress = progress;
    ast_parse(f, text, len, d);
    if (d->nerrors == 0)
        *out = sema_run(f, d, opt, progress);
    return *out ? SAN_OK : SAN_E_MODEL;
}

san_status san_model_compile(const char *text, size_t len, const san_load_opts *opt,
                             san_model **out, san_diag *d)
{
    *out = NULL;
    lang_oom oom;
    ast_file *f = calloc(1, sizeof *f);
    if (!f) {
        san_diag_add(d, SAN_ERROR, 0, 0, "out of memory while compiling the model");
        return SAN_E_NOMEM;
    }
    /* a second in silence, then where the load is (big models) */
    san_progress progress;
    san_progress_init(&progress, opt && opt->progress, 1.0);
    san_status st = compile(text, len, d, opt, f, &oom, &progress, out);
    san_progress_end(&progress, 1);
    f->progress = NULL;
    if (st != SAN_OK) {
        ast_file_free(f);
        free(f);
        return st;
    }
    f->oom = NULL;          /* the recovery point is gone with the load */
    (*out)->syntax = f;
    return SAN_OK;
}

san_model *san_model_load(const char *text, size_t len, san_diag *d,
                          const san_load_opts *opt)
{
    san_model *m;
    san_model_compile(text, len, opt, &m, d);
    return m;
}

/* Frees what is there: a load that ran out of memory (oom.h) leaves
 * counts set ahead of their arrays, and this is how it is freed. */
static void free_automaton(san_automaton *a)
{
    free(a->name);
    for (int s = 0; a->states && s < a->nstates; s++)
        free(a->states[s]);
    free(a->states);
    free(a->reward);
    free(a->first);
    free(a->tr);
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
        san_expr_free(m->pool[k]);
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
