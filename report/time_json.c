/*
 * time_json.c - the report of san transient and san passage as JSON
 * (doc/output.md): the uniformization, the passage block, and every
 * index at every time ("times").
 */
#include <math.h>
#include <string.h>
#include "report/solve_out.h"
#include "lang/model_int.h"
#include "solver/analysis/analysis_int.h"

static void json_indices(FILE *out, const san_model *m, const san_solution *S)
{
    fprintf(out, "\"results\": {");
    int first = 1;
    for (int i = 0; i < m->nres; i++) {
        if (rep_hidden(m->res[i].name))
            continue;
        fprintf(out, "%s", first ? " " : ", ");
        first = 0;
        san_json_string(out, m->res[i].name);
        fprintf(out, ": ");
        san_json_num(out, S->results[i]);
    }
    fprintf(out, " }, \"marginals\": {");
    rep_json_marginal_members(out, m, S, " ", ", ");
    fprintf(out, " }, \"throughputs\": {");
    rep_json_throughput_members(out, m, S, " ", ", ");
    fprintf(out, " }");
}

void rep_time_json(FILE *out, const rep_time *r)
{
    const san_model *m = r->m;
    const san_analysis *a = r->a;
    const an_time_answer *T = &a->tr;
    rep_json_open(out, r->o->preamble, r->o->ctx, m->name, r->o->source);
    fprintf(out, ",\n  \"complete\": %s, \"times_requested\": %d",
           r->o->complete ? "true" : "false", r->o->ntimes_asked);
    fprintf(out, ",\n  \"reachable_states\": %lld,\n  \"storage\": \"%s\",\n  \"initial_states\": %lld,\n",
           (long long)a->sp.n, a->kron ? "kron" : "sparse", (long long)T->ninit);
    if (a->lumping) {
        fprintf(out, "  \"lumped\": {\"classes\": ");
        san_json_string(out, san_lumping_summary(a->lumping));
        fprintf(out, ", \"product_states\": ");
        san_json_size(out, a->sp.m->product_str);
        fprintf(out, "},\n");
    }
    if (r->a->engine_used == SAN_ENGINE_PETSC)
        fprintf(out, "  \"engine\": \"petsc\",\n  \"ranks\": %d,\n  \"rank_memory_bytes\": %.0f,\n",
               a->ranks, a->rank_bytes);
    fprintf(out, "  \"uniformization\": { \"rate\": ");
    san_json_num(out, T->rate);
    fprintf(out, ", \"products\": %ld, \"products_planned\": %.0f, \"product_s\": ", T->steps,
           T->steps_planned);
    san_json_num(out, T->product_s);
    fprintf(out, ", \"eps\": ");
    san_json_num(out, r->o->eps);
    fprintf(out, ", \"truncated_mass\": ");
    san_json_num(out, T->trunc);
    fprintf(out, ", \"steady_state_at\": ");
    rep_json_opt(out, T->ss_at >= 0, T->ss_at);
    fprintf(out, " },\n  \"times_s\": { \"explore_s\": %.6f, \"analysis_s\": %.6f, \"total_s\": %.6f },\n",
           a->t_space, a->t_solve, r->o->t_total);
    if (r->o->passage) {
        fprintf(out, "  \"passage\": { \"target_states\": %lld, \"reach\": ", (long long)T->ntarget);
        san_json_num(out, T->reach);
        fprintf(out, ", \"p_initial\": ");
        san_json_num(out, T->p_init);
        fprintf(out, ", \"mean\": ");
        san_json_num(out, T->mean);
        fprintf(out, ", \"reach_method\": \"%s\"", T->reach_how == SAN_REACH_GRAPH ? "graph"
               : T->reach_how == SAN_REACH_SOLVE ? "solve" : "series");
        fprintf(out, ", \"mean_residual\": ");
        rep_json_opt(out, isfinite(T->mean), T->mean_resid);
        fprintf(out, ", \"mean_method\": \"%s\", \"mean_error_estimate\": ",
               T->mean_solved ? "solve" : "series");
        rep_json_opt(out, !isnan(T->mean_error_est), T->mean_error_est);
        fprintf(out, ", \"mean_products\": %ld, \"percentiles\": {", T->mean_steps);
        for (int i = 0; i < r->o->nlevels; i++) {
            fprintf(out, "%s\"%g\": ", i ? ", " : " ", 100 * r->o->levels[i]);
            san_json_num(out, T->pct[i]);
        }
        fprintf(out, " } },\n");
    }
    fprintf(out, "  \"times\": [");
    for (int k = 0; k < T->ntimes; k++) {
        fprintf(out, "%s\n    { \"t\": ", k ? "," : "");
        san_json_num(out, T->times[k]);
        if (r->o->passage) {
            fprintf(out, ", \"cdf\": ");
            san_json_num(out, T->cdf[k]);
        } else {
            fprintf(out, ", ");
            json_indices(out, m, &T->at[k]);
            if (T->acc) {
                fprintf(out, ", \"accumulated\": { ");
                json_indices(out, m, &T->acc[k]);
                fprintf(out, " }");
            }
        }
        fprintf(out, " }");
    }
    fprintf(out, "%s]\n}\n", T->ntimes ? "\n  " : "");
}

