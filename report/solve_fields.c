/*
 * solve_fields.c - the pieces of the solve report that its formats
 * share: families of replicated events, the positions the solve ran
 * over (what its error estimate is measured on), optional figures,
 * states, and the distribution when the report holds it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "solver/space/state_space.h"
#include "report/solve_out.h"
#include "lang/model_int.h"
#include "solver/analysis/analysis_int.h"

int rep_event_run_end(const san_model *m, int e)
{
    while (e + 1 < m->nev && rep_same_family(m->ev[e].name, m->ev[e + 1].name))
        e++;
    return e;
}

/* The reachable states, or the product states on the descriptor; with
 * several closed classes each class was solved on its own. */
int64_t rep_solved_positions(const rep_solve *r)
{
    const san_classes *C = &r->a->classes;
    if (!r->a->kron && C->n > 1) {
        int64_t most = 0;
        for (int64_t k = 0; k < C->n; k++)
            if (C->states[k] > most)
                most = C->states[k];
        return most;
    }
    if (!r->a->kron)
        return r->sp->n;
    return r->m->product_fits ? r->m->product : INT64_MAX;
}

/* A figure that may not exist (an unverified answer has no accuracy,
 * a run no estimate of the other storage): null, not a number. */
void rep_json_opt(FILE *out, int have, double v)
{
    if (have)
        san_json_num(out, v);
    else
        fputs("null", out);
}

/* Automaton -> local state, in automaton order, then the readable name
 * (doc/output.md: top_states). */
void rep_json_state(FILE *out, const san_model *m, const int *s, char *buf, size_t size)
{
    fprintf(out, "{");
    for (int a = 0; a < m->naut; a++) {
        fprintf(out, "%s", a ? ", " : " ");
        san_json_string(out, m->aut[a].name);
        fprintf(out, ": ");
        san_json_string(out, m->aut[a].states[s[a]]);
    }
    fprintf(out, " }, \"label\": ");
    san_json_string(out, san_state_name(m, s, buf, size));
}

/* The vector goes into the report in its format (a CSV table appended to
 * a JSON document would make it unreadable); each state as in
 * top_states, with its global index. */
san_status rep_solve_vector(FILE *out, const rep_solve *r, san_report_format f)
{
    const san_space *sp = r->sp;
    const san_model *m = sp->m ? sp->m : r->m;     /* lumped: occupancy states */
    const double *pi = r->sol->pi;
    int64_t *order = space_index_order(sp);        /* (index, position) pairs */
    int *s = malloc((m->naut + 1) * sizeof *s);
    char buf[4096];
    if (!order || !s) {
        free(order);
        free(s);
        return SAN_E_NOMEM;
    }
    for (int64_t k = 0; k < sp->n; k++) {
        int64_t i = order[2 * k + 1];
        san_state_decode(m, sp->index[i], s);
        if (f == SAN_REPORT_JSON) {
            fprintf(out, "%s\n    { \"index\": %lld, \"state\": ", k ? "," : "",
                    (long long)sp->index[i]);
            rep_json_state(out, m, s, buf, sizeof buf);
            fprintf(out, ", \"p\": ");
            san_json_num(out, pi[i]);
            fprintf(out, " }");
        } else {
            fprintf(out, "vector,%lld,", (long long)sp->index[i]);
            san_csv_field(out, san_state_name(m, s, buf, sizeof buf));
            fprintf(out, ",%.17g\n", pi[i]);
        }
    }
    free(order);
    free(s);
    return SAN_OK;
}

/* The prefix of the results a command adds to a model (san transient's
 * --initial, san passage's --until): SAN_HIDDEN_RESULT_PREFIX. */
int rep_hidden(const char *name)
{
    return !strncmp(name, SAN_HIDDEN_RESULT_PREFIX, strlen(SAN_HIDDEN_RESULT_PREFIX));
}

void rep_json_open(FILE *out, san_report_preamble preamble, const void *ctx,
                      const char *model, const char *source)
{
    fprintf(out, "{\n  ");
    if (preamble)           /* "schema", "meta": members ending ",\n  " */
        preamble(out, SAN_REPORT_JSON, ctx);
    fprintf(out, "\"model\": ");
    san_json_string(out, model);
    fprintf(out, ",\n  \"file\": ");
    san_json_string(out, source);
}

void rep_json_figure(FILE *out, double v)
{
    if (isnan(v))
        fputs("null", out);
    else
        san_json_num(out, v);
}
