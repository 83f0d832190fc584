/*
 * states.c - the reachable states as CSV, and as PRISM's .sta file:
 * both list the states in export order with their local states, by
 * name in the CSV (for people and pandas), by number in PRISM (its
 * variables are integers, named by names.c).
 */
#include <stdlib.h>
#include "base/services.h"
#include "solver/export/export_int.h"
#include "lang/model_int.h"
#include "solver/space/space_int.h"

san_status san_export_states(const san_space *sp, FILE *out)
{
    const san_model *m = sp->m;
    int64_t *order = exp_order(sp);
    int *s = malloc((m->naut + 1) * sizeof *s);
    if (!order || !s) {
        free(order);
        free(s);
        return SAN_E_NOMEM;
    }
    fputs("state,index", out);
    for (int a = 0; a < m->naut; a++) {
        fputc(',', out);
        san_csv_field(out, m->aut[a].name);   /* "M[1,3..5]": a lumped class */
    }
    fputc('\n', out);
    for (int64_t r = 0; r < sp->n; r++) {
        const int64_t idx = sp->index[order[r]];
        san_state_decode(m, idx, s);
        fprintf(out, "%lld,%lld", (long long)r, (long long)idx);
        for (int a = 0; a < m->naut; a++) {
            fputc(',', out);
            san_csv_field(out, m->aut[a].states[s[a]]);
        }
        fputc('\n', out);
    }
    free(order);
    free(s);
    return SAN_OK;
}

san_status san_export_prism_sta(const san_space *sp, FILE *out)
{
    const san_model *m = sp->m;
    int64_t *order = exp_order(sp);
    int *s = malloc((m->naut + 1) * sizeof *s);
    if (!order || !s) {
        free(order);
        free(s);
        return SAN_E_NOMEM;
    }
    exp_names nm;
    if (exp_names_make(m, &nm) != 0) {
        free(order);
        free(s);
        return SAN_E_NOMEM;
    }
    fputc('(', out);
    for (int a = 0; a < m->naut; a++)
        fprintf(out, "%s%s", a ? "," : "", nm.var[a]);
    fputs(")\n", out);
    exp_names_free(&nm);
    for (int64_t r = 0; r < sp->n; r++) {
        san_state_decode(m, sp->index[order[r]], s);
        fprintf(out, "%lld:(", (long long)r);
        for (int a = 0; a < m->naut; a++)
            fprintf(out, "%s%d", a ? "," : "", s[a]);
        fputs(")\n", out);
    }
    free(order);
    free(s);
    return SAN_OK;
}
