/*
 * time_csv.c - the report of san transient and san passage as CSV rows
 * time,kind,name,state,value (doc/output.md).
 */
#include <math.h>
#include <string.h>
#include "report/solve_out.h"
#include "lang/model_int.h"
#include "solver/analysis/analysis_int.h"

static void csv_indices(FILE *out, const san_model *m, double t, const char *pre, const san_solution *S)
{
    for (int i = 0; i < m->nres; i++) {
        if (rep_hidden(m->res[i].name))
            continue;
        fprintf(out, "%.17g,%sresult,", t, pre);
        san_csv_field(out, m->res[i].name);
        fprintf(out, ",,%.17g\n", S->results[i]);
    }
    for (int a = 0; a < m->naut; a++)
        for (int s = 0; s < m->aut[a].nstates; s++) {
            fprintf(out, "%.17g,%smarginal,", t, pre);
            san_csv_field(out, m->aut[a].name);
            fputc(',', out);
            san_csv_field(out, m->aut[a].states[s]);
            fprintf(out, ",%.17g\n", S->marginal[a][s]);
        }
    for (int e = 0; e < m->nev; e++) {
        fprintf(out, "%.17g,%sthroughput,", t, pre);
        san_csv_field(out, m->ev[e].name);
        fprintf(out, ",,%.17g\n", S->throughput[e]);
    }
}

void rep_time_csv(FILE *out, const rep_time *r)
{
    const an_time_answer *T = &r->a->tr;
    if (r->o->preamble)     /* "# key: value" lines before the header row */
        r->o->preamble(out, SAN_REPORT_CSV, r->o->ctx);
    fprintf(out, "time,kind,name,state,value\n");
    fprintf(out, ",uniformization,truncated_mass,,%.17g\n", T->trunc);
    fprintf(out, ",uniformization,products,,%ld\n", T->steps);
    fprintf(out, ",run,complete,,%d\n", r->o->complete);
    if (r->a->engine_used == SAN_ENGINE_PETSC)
        fprintf(out, ",run,ranks,,%d\n,run,rank_memory_bytes,,%.0f\n", r->a->ranks, r->a->rank_bytes);
    if (r->o->passage) {
        fprintf(out, ",passage,reach,,%.17g\n", T->reach);
        fprintf(out, ",passage,p_initial,,%.17g\n", T->p_init);
        fprintf(out, ",passage,mean,,%.17g\n", T->mean);
        fprintf(out, ",passage,mean_residual,,%.17g\n", T->mean_resid);
        for (int i = 0; i < r->o->nlevels; i++)
            fprintf(out, ",passage,percentile,%g,%.17g\n", 100 * r->o->levels[i], T->pct[i]);
        for (int k = 0; k < T->ntimes; k++)
            fprintf(out, "%.17g,passage,cdf,,%.17g\n", T->times[k], T->cdf[k]);
        return;
    }
    for (int k = 0; k < T->ntimes; k++) {
        csv_indices(out, r->m, T->times[k], "", &T->at[k]);
        if (T->acc)
            csv_indices(out, r->m, T->times[k], "accumulated_", &T->acc[k]);
    }
}

