/*
 * solve_json.c - the report of san solve as JSON (doc/output.md,
 * doc/output.schema.json): every figure at full precision, null where
 * none exists (an unverified answer's accuracy), each replica listed.
 */
#include <math.h>
#include <stdlib.h>
#include "report/solve_out.h"
#include "lang/model_int.h"
#include "solver/analysis/analysis_int.h"

/* ",\n  "marginals": {...}": an object of automata, each an object of
 * its local states. */
static void json_marginals(FILE *out, const san_model *m, const san_solution *sol)
{
    fprintf(out, ",\n  \"marginals\": {");
    rep_json_marginal_members(out, m, sol, "\n    ", ",\n    ");
    fprintf(out, "\n  }");
}

static void json_throughputs(FILE *out, const san_model *m, const san_solution *sol)
{
    fprintf(out, ",\n  \"throughputs\": {");
    rep_json_throughput_members(out, m, sol, "\n    ", ",\n    ");
    fprintf(out, "%s}", m->nev ? "\n  " : "");
}

/* ",\n  "throughput_totals": {"think[*]": 1.545, ...}": the throughput of
 * each replicated event summed over its replicas, which "throughputs"
 * lists one by one. */
static void json_throughput_totals(FILE *out, const san_model *m, const san_solution *sol)
{
    fprintf(out, ",\n  \"throughput_totals\": {");
    int any = 0;
    for (int e = 0; e < m->nev;) {
        int last = rep_event_run_end(m, e);
        if (last > e) {
            char fam[160];
            rep_replica_stats st;
            rep_replica_stats_of(sol->throughput + e, last - e + 1, &st);
            fprintf(out, "%s\n    ", any++ ? "," : "");
            san_json_string(out, rep_replica_family(m->ev[e].name, fam, sizeof fam));
            fprintf(out, ": ");
            san_json_num(out, st.total);
        }
        e = last + 1;
    }
    fprintf(out, "%s}", any ? "\n  " : "");
}

/* "storage_choice": how --storage auto chose (absent when not auto);
 * the predictions are null when none was made (rule "small"). */
static void json_storage_choice(FILE *out, const san_storage_choice *c)
{
    if (c->rule == SAN_PICK_NONE)
        return;
    char why[256];
    const int p = c->states > 0;
    fprintf(out, "  \"storage_choice\": {\"rule\": \"%s\", \"reason\": ", san_storage_rule_name(c->rule));
    san_json_string(out, san_storage_choice_text(c, why, sizeof why));
    fprintf(out, ", \"states\": ");
    rep_json_opt(out, p, c->states);
    fprintf(out, ", \"nonzeros\": ");
    rep_json_opt(out, p, c->nonzeros);
    fprintf(out, ", \"budget_bytes\": ");
    san_json_num(out, c->budget);
    const char *name[2] = { "sparse", "kron" };
    const double t[2] = { c->t_sparse, c->t_kron }, mem[2] = { c->m_sparse, c->m_kron };
    for (int k = 0; k < 2; k++) {
        fprintf(out, ", \"%s\": ", name[k]);
        if (!p) {
            fputs("null", out);
            continue;
        }
        fprintf(out, "{\"time_s\": ");
        san_json_num(out, t[k]);
        fprintf(out, ", \"memory_bytes\": ");
        san_json_num(out, mem[k]);
        fprintf(out, "}");
    }
    fprintf(out, "},\n");
}

/* Several closed classes (doc/output.md: "initial_states",
 * "closed_classes" as san props gives them, and "classes"). */
static void json_classes(FILE *out, const san_space *sp, const san_classes *C)
{
    fprintf(out, "  \"initial_states\": %lld,\n  \"closed_classes\": %lld,\n  \"classes\": "
           "{\"reach_residual\": ", (long long)C->ninit, (long long)C->n);
    san_json_num(out, C->residual);
    fprintf(out, ", \"classes\": [");
    const san_model *sm = sp->m;
    int *s = malloc((sm->naut + 1) * sizeof *s);
    char buf[4096];
    for (int64_t k = 0; k < C->n; k++) {
        fprintf(out, "%s\n    {\"states\": %lld, \"reach\": ", k ? "," : "", (long long)C->states[k]);
        san_json_num(out, C->reach[k]);
        fprintf(out, ", \"reach_error\": ");
        san_json_num(out, C->reach_error[k]);
        fprintf(out, ", \"error_estimate\": ");
        rep_json_opt(out, !isnan(C->error[k]), C->error[k]);
        fprintf(out, ", \"state\": ");
        if (s && C->first[k] >= 0) {
            san_state_decode(sm, sp->index[C->first[k]], s);
            rep_json_state(out, sm, s, buf, sizeof buf);
            fprintf(out, "}");
        } else {
            fprintf(out, "null, \"label\": null}");
        }
    }
    free(s);
    fprintf(out, "\n  ]},\n");
}

san_status rep_solve_json(FILE *out, const rep_solve *r)
{
    const san_model *m = r->m;
    const san_space *sp = r->sp;
    const san_solution *sol = r->sol;
    rep_json_open(out, r->o->preamble, r->o->ctx, m->name, r->o->source);
    fprintf(out, ",\n  \"product_states\": ");
    san_json_size(out, m->product_str);
    fprintf(out, ",\n  \"reachable_states\": %lld,", (long long)sp->n);
    if (r->a->lumping) {
        fprintf(out, "\n  \"lumped\": {\"classes\": ");
        san_json_string(out, san_lumping_summary(r->a->lumping));
        fprintf(out, ", \"product_states\": ");
        san_json_size(out, sp->m->product_str);
        fprintf(out, "},");
    }
    fprintf(out, "\n  \"transient_states\": %lld,\n", (long long)(sp->n - sp->nclosed));
    if (r->a->classes.n > 1)
        json_classes(out, sp, &r->a->classes);
    fprintf(out, "  \"dropped_states\": %lld,\n  \"nonzeros\": %lld,\n  \"storage\": \"%s\",\n",
           (long long)sp->dropped, r->a->kron ? 0LL : (long long)r->nonzeros,
           r->a->kron ? "kron" : "sparse");
    fprintf(out, "  \"memory_bytes\": %.0f,\n", r->a->kron ? r->a->kron_bytes : sp->bytes);
    if (r->a->engine_used == SAN_ENGINE_PETSC)
        fprintf(out, "  \"engine\": \"petsc\",\n  \"ranks\": %d,\n  \"rank_memory_bytes\": %.0f,\n",
               r->a->ranks, r->a->rank_bytes);
    fprintf(out, "  \"memory_other_storage_bytes\": ");
    rep_json_opt(out, r->a->other_bytes > 0, r->a->other_bytes);
    fprintf(out, ",\n");
    json_storage_choice(out, &r->a->choice);
    fprintf(out, "  \"solver\": { \"method\": \"%s\", \"auto\": %s, \"iterations\": %ld, \"residual\": ",
           san_method_name(sol->info.method), r->o->auto_picked ? "true" : "false", sol->info.iterations);
    san_json_num(out, sol->info.residual);
    fprintf(out, ", \"converged\": %s, \"time_s\": %.6f, \"products\": %ld, \"product_s\": ",
           sol->info.converged ? "true" : "false", r->a->t_solve, sol->info.products);
    san_json_num(out, sol->info.product_s);
    fprintf(out, ", \"tol\": ");
    san_json_num(out, r->o->tol);
    /* an unverified answer has no balance or aggregation figure to
     * report: null, not 0; its error estimate is the one reached */
    const int ok = sol->info.converged;
    fprintf(out, ", \"balance\": ");
    rep_json_opt(out, ok, sol->info.balance);
    fprintf(out, ", \"aggregation_error\": ");   /* none over several classes */
    rep_json_opt(out, ok && isfinite(sol->info.agg_error), sol->info.agg_error);
    fprintf(out, ", \"error_estimate\": ");    /* not converged: the one reached */
    const double est = san_solve_reached_estimate(&sol->info);
    rep_json_opt(out, !isnan(est), est);
    fprintf(out, ", \"lu_correction\": ");
    rep_json_opt(out, sol->info.lu_correction >= 0, sol->info.lu_correction);
    fprintf(out, ", \"error_bound\": %s",
           san_solve_estimate_measured(&sol->info, rep_solved_positions(r)) ? "true" : "false");
    fprintf(out, ", \"refine_cycles\": %ld, \"underflow_states\": %lld, \"note\": ",
           sol->info.refine_cycles, (long long)sol->info.underflow);
    san_json_string(out, sol->info.note);
    fprintf(out, " },\n");
    /* "times_s", as transient's: "times" is the list of its time points */
    fprintf(out, "  \"times_s\": { \"explore_s\": %.6f, \"check_s\": %.6f, \"solve_s\": %.6f, \"total_s\": %.6f },\n",
           sp->t_explore, sp->t_check, r->a->t_solve, r->o->t_total);
    fprintf(out, "  \"results\": {");
    for (int i = 0; i < m->nres; i++) {
        fprintf(out, "%s\n    ", i ? "," : "");
        san_json_string(out, m->res[i].name);
        fprintf(out, ": ");
        san_json_num(out, sol->results[i]);
    }
    fprintf(out, "%s}", m->nres ? "\n  " : "");
    if (!r->o->no_marginals)
        json_marginals(out, m, sol);
    if (!r->o->no_throughputs) {
        json_throughputs(out, m, sol);
        json_throughput_totals(out, m, sol);
    }
    fprintf(out, ",\n  \"top_states\": [");
    const san_model *sm = sp->m;       /* lumped: occupancy states */
    int *s = malloc((sm->naut + 1) * sizeof *s);
    char buf[4096];
    for (int k = 0; s && k < sol->ntop; k++) {
        san_state_decode(sm, sp->index[sol->top[k].state], s);
        fprintf(out, "%s\n    { \"state\": ", k ? "," : "");
        rep_json_state(out, sm, s, buf, sizeof buf);
        fprintf(out, ", \"p\": ");
        san_json_num(out, sol->top[k].p);
        fprintf(out, " }");
    }
    free(s);
    fprintf(out, "%s]", sol->ntop ? "\n  " : "");
    san_status rc = SAN_OK;
    if (r->o->vector < 0) {
        fprintf(out, ",\n  \"vector\": null");
    } else if (r->o->vector > 0) {
        fprintf(out, ",\n  \"vector\": [");
        rc = rep_solve_vector(out, r, SAN_REPORT_JSON);
        fprintf(out, "%s]", sp->n ? "\n  " : "");
    }
    fprintf(out, "\n}\n");
    return rc;
}

