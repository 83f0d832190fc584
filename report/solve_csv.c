/*
 * solve_csv.c - the report of san solve as CSV rows kind,name,state,value
 * (doc/output.md): the solver's verdict first, then the indices at full
 * precision, each replica's row and each replicated event's total.
 */
#include <math.h>
#include "report/solve_out.h"
#include "lang/model_int.h"
#include "solver/analysis/analysis_int.h"

san_status rep_solve_csv(FILE *out, const rep_solve *r)
{
    const san_model *m = r->m;
    const san_solution *sol = r->sol;
    if (r->o->preamble)     /* "# key: value" lines before the header row */
        r->o->preamble(out, SAN_REPORT_CSV, r->o->ctx);
    fprintf(out, "kind,name,state,value\n");
    /* how far the numbers below can be trusted, first: a reader that
     * takes the values alone can still not miss "converged,,0" */
    fprintf(out, "solver,converged,,%d\n", sol->info.converged);
    fprintf(out, "solver,method,%s,\n", san_method_name(sol->info.method));
    fprintf(out, "solver,iterations,,%ld\n", sol->info.iterations);
    fprintf(out, "solver,residual,,%.17g\n", sol->info.residual);
    if (r->a->engine_used == SAN_ENGINE_PETSC)
        fprintf(out, "solver,ranks,,%d\nsolver,rank_memory_bytes,,%.0f\n", r->a->ranks, r->a->rank_bytes);
    const san_storage_choice *c = &r->a->choice;
    if (c->rule != SAN_PICK_NONE) {
        fprintf(out, "storage,rule,%s,\n", san_storage_rule_name(c->rule));
        if (c->states > 0)
            fprintf(out, "storage,sparse_time_s,,%.6g\nstorage,sparse_memory_bytes,,%.0f\n"
                   "storage,kron_time_s,,%.6g\nstorage,kron_memory_bytes,,%.0f\n",
                   c->t_sparse, c->m_sparse, c->t_kron, c->m_kron);
    }
    if (sol->info.converged) {      /* else blank: unverified */
        fprintf(out, "solver,balance,,%.17g\n", sol->info.balance);
        if (isfinite(sol->info.agg_error))
            fprintf(out, "solver,aggregation_error,,%.17g\n", sol->info.agg_error);
        else
            fprintf(out, "solver,aggregation_error,,\n");
        fprintf(out, "solver,error_estimate,,%.17g\n", sol->info.error_est);
        if (sol->info.lu_correction >= 0)
            fprintf(out, "solver,lu_correction,,%.17g\n", sol->info.lu_correction);
        else
            fprintf(out, "solver,lu_correction,,\n");
    } else {
        /* the estimate reached, when the checks ran: blank otherwise */
        const double est = san_solve_reached_estimate(&sol->info);
        fprintf(out, "solver,balance,,\nsolver,aggregation_error,,\nsolver,error_estimate,,");
        if (!isnan(est))
            fprintf(out, "%.17g", est);
        fputc('\n', out);
        if (sol->info.lu_correction >= 0)
            fprintf(out, "solver,lu_correction,,%.17g\n", sol->info.lu_correction);
        else
            fprintf(out, "solver,lu_correction,,\n");
    }
    for (int64_t k = 0; r->a->classes.n > 1 && k < r->a->classes.n; k++)
        fprintf(out, "class,reach,%lld,%.17g\nclass,states,%lld,%lld\n", (long long)k + 1,
               r->a->classes.reach[k], (long long)k + 1, (long long)r->a->classes.states[k]);
    for (int i = 0; i < m->nres; i++) {
        fprintf(out, "result,");
        san_csv_field(out, m->res[i].name);
        fprintf(out, ",,%.17g\n", sol->results[i]);
    }
    for (int a = 0; !r->o->no_marginals && a < m->naut; a++)
        for (int s = 0; s < m->aut[a].nstates; s++) {
            fprintf(out, "marginal,");
            san_csv_field(out, m->aut[a].name);
            fputc(',', out);
            san_csv_field(out, m->aut[a].states[s]);
            fprintf(out, ",%.17g\n", sol->marginal[a][s]);
        }
    for (int e = 0; !r->o->no_throughputs && e < m->nev; e++) {
        fprintf(out, "throughput,");
        san_csv_field(out, m->ev[e].name);
        fprintf(out, ",,%.17g\n", sol->throughput[e]);
    }
    for (int e = 0; !r->o->no_throughputs && e < m->nev;) {    /* as "throughput_totals" */
        int last = rep_event_run_end(m, e);
        if (last > e) {
            char fam[160];
            rep_replica_stats st;
            rep_replica_stats_of(sol->throughput + e, last - e + 1, &st);
            fprintf(out, "throughput_total,");
            san_csv_field(out, rep_replica_family(m->ev[e].name, fam, sizeof fam));
            fprintf(out, ",,%.17g\n", st.total);
        }
        e = last + 1;
    }
    return r->o->vector > 0 ? rep_solve_vector(out, r, SAN_REPORT_CSV) : SAN_OK;
}
