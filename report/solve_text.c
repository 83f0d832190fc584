/*
 * solve_text.c - the report of san solve for a reader: the chain, the
 * storage, the solver and its accuracy, then the indices at the digits
 * that accuracy supports, replicas that print alike on one line.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report/solve_out.h"
#include "lang/model_int.h"
#include "solver/analysis/analysis_int.h"

/* Significant digits that the error estimate supports (san(1),
 * ACCURACY): an estimate of 3e-11 gives 10; an unverified answer 6.  An
 * estimate from the checks is an indicator: a long chain's error was up
 * to 22 times it, so its digits are two fewer. */
#define INDICATOR_DIGITS 2

static int supported_digits(const san_solve_info *info, int measured)
{
    if (!info->converged)
        return 6;
    double e = info->error_est > 1e-15 ? info->error_est : 1e-15;
    int d = (int)floor(-log10(e)) - (measured ? 0 : INDICATOR_DIGITS);
    return d < 3 ? 3 : d > 12 ? 12 : d;
}

static void text_marginals(FILE *out, const san_model *m, const san_solution *sol, int all)
{
    fprintf(out, "\nmarginals\n");
    rep_text_marginals(out, m, sol, all, "  ", 6);
}

/* Events first..last, one line each; consecutive replicas that print
 * alike (at the digits shown) share one line, think[1..4]. */
static void throughput_lines(FILE *out, const san_model *m, const san_solution *sol, int first, int last,
                             int digits)
{
    for (int e = first; e <= last;) {
        char x[64], y[64], buf[160];
        int f = e;
        snprintf(x, sizeof x, "%.*g", digits, sol->throughput[e]);
        while (f < last && rep_next_replica(m->ev[f].name, m->ev[f + 1].name)) {
            snprintf(y, sizeof y, "%.*g", digits, sol->throughput[f + 1]);
            if (strcmp(x, y))
                break;
            f++;
        }
        fprintf(out, "  %-20s %s\n", rep_replica_run(m->ev[e].name, m->ev[f].name, buf, sizeof buf), x);
        e = f + 1;
    }
}

/* The events first..last, replicas of one event: alike (at the digits
 * shown), or with all, throughput_lines; else their minimum, mean and
 * maximum, with the first replica that holds each.  Then their total,
 * thr(think[*]) in the language: for N clients, the requests the server
 * takes per time unit. */
static void throughput_family(FILE *out, const san_model *m, const san_solution *sol, int first, int last,
                              int digits, int all)
{
    int n = last - first + 1;
    const double *v = sol->throughput + first;
    rep_replica_stats st;
    rep_replica_stats_of(v, n, &st);
    char x[64], y[64], fam[160], label[192];
    int alike = 1;
    snprintf(x, sizeof x, "%.*g", digits, v[0]);
    for (int k = 1; k < n && alike; k++) {
        snprintf(y, sizeof y, "%.*g", digits, v[k]);
        alike = !strcmp(x, y);
    }
    const char *name = rep_replica_family(m->ev[first].name, fam, sizeof fam);
    if (alike || all) {
        throughput_lines(out, m, sol, first, last, digits);
    } else {
        snprintf(label, sizeof label, "%s min", name);
        fprintf(out, "  %-20s %.*g (%s)\n", label, digits, st.min, m->ev[first + st.at_min].name);
        snprintf(label, sizeof label, "%s mean", name);
        fprintf(out, "  %-20s %.*g\n", label, digits, st.mean);
        snprintf(label, sizeof label, "%s max", name);
        fprintf(out, "  %-20s %.*g (%s)\n", label, digits, st.max, m->ev[first + st.at_max].name);
    }
    snprintf(label, sizeof label, "%s total", name);
    fprintf(out, "  %-20s %.*g\n", label, digits, st.total);
}

static void text_throughputs(FILE *out, const san_model *m, const san_solution *sol, int digits, int all)
{
    fprintf(out, "\nthroughputs\n");
    for (int e = 0; e < m->nev;) {
        int last = rep_event_run_end(m, e);
        if (last > e)
            throughput_family(out, m, sol, e, last, digits, all);
        else
            fprintf(out, "  %-20s %.*g\n", m->ev[e].name, digits, sol->throughput[e]);
        e = last + 1;
    }
}

/* Several closed classes: how the long-run answer weighs them (the
 * first TEXT_CLASSES: a chain may have thousands of absorbing states). */
#define TEXT_CLASSES 10

static void text_classes(FILE *out, const san_space *sp, const san_classes *C)
{
    fprintf(out, "classes      %lld closed, weighed by the probability of reaching each from the "
           "uniform distribution over %lld initial state%s (residual %.1e):\n",
           (long long)C->n, (long long)C->ninit, C->ninit == 1 ? "" : "s", C->residual);
    const san_model *sm = sp->m;
    int *s = malloc((sm->naut + 1) * sizeof *s);
    char buf[4096];
    for (int64_t k = 0; k < C->n && k < TEXT_CLASSES; k++) {
        fprintf(out, "  class %lld: %lld state%s, reached with probability %.12g (error %.1e)",
               (long long)k + 1, (long long)C->states[k], C->states[k] == 1 ? "" : "s",
               C->reach[k], C->reach_error[k]);
        if (s && C->first[k] >= 0) {
            san_state_decode(sm, sp->index[C->first[k]], s);
            fprintf(out, ", e.g. %s", san_state_name(sm, s, buf, sizeof buf));
        }
        fprintf(out, "\n");
    }
    if (C->n > TEXT_CLASSES)
        fprintf(out, "  ... and %lld more (-f json lists every class)\n",
               (long long)(C->n - TEXT_CLASSES));
    free(s);
}

void rep_solve_text(FILE *out, const rep_solve *r)
{
    const san_model *m = r->m;
    const san_space *sp = r->sp;
    const san_solution *sol = r->sol;
    if (r->o->preamble)
        r->o->preamble(out, SAN_REPORT_TEXT, r->o->ctx);
    fprintf(out, "model        %s (%s)\n", m->name, r->o->source);
    fprintf(out, "states       %s product, %lld reachable", m->product_str, (long long)sp->n);
    if (sp->nclosed < sp->n)
        fprintf(out, " (%lld transient)", (long long)(sp->n - sp->nclosed));
    fprintf(out, "\n");
    if (r->a->lumping)
        fprintf(out, "lumped       %s into counts (--lump off: as written)\n",
               san_lumping_summary(r->a->lumping));
    if (r->a->classes.n > 1)
        text_classes(out, sp, &r->a->classes);
    char b[32];
    if (r->a->kron)
        fprintf(out, "generator    not stored: tensor descriptor %s, storage kron",
               san_format_bytes(r->a->kron_bytes, b, sizeof b));
    else
        fprintf(out, "generator    %lld nonzeros, %s, storage sparse",
               (long long)r->nonzeros, san_format_bytes(sp->bytes, b, sizeof b));
    if (r->a->other_bytes > 0)
        fprintf(out, " (%s would need ~%s)", r->a->kron ? "the sparse path" : "kron storage",
               san_format_bytes(r->a->other_bytes, b, sizeof b));
    fprintf(out, "\n");
    if (r->a->choice.states > 0) {      /* predicted: say why */
        char why[256];
        fprintf(out, "storage      auto: %s\n", san_storage_choice_text(&r->a->choice, why, sizeof why));
    }
    fprintf(out, "solver       %s%s, %ld iteration%s, residual %.3g, %s\n", san_method_name(sol->info.method),
           r->o->auto_picked ? " (picked by auto)" : "",
           sol->info.iterations, sol->info.iterations == 1 ? "" : "s", sol->info.residual,
           sol->info.converged ? "converged" : "NOT CONVERGED");
    const int measured = san_solve_estimate_measured(&sol->info, rep_solved_positions(r));
    const int digits = supported_digits(&sol->info, measured);
    if (sol->info.converged) {
        char agg[32] = "not tested";    /* --engine petsc with no partition to check */
        if (isfinite(sol->info.agg_error))
            snprintf(agg, sizeof agg, "%.1e", sol->info.agg_error);
        if (sol->info.lu_correction >= 0)
            fprintf(out, "accuracy     error estimate %.1e, measured by the LU of the generator "
                   "(which corrected an error of %.1e; balance %.1e, tol %.1e)\n",
                   sol->info.error_est, sol->info.lu_correction, sol->info.balance, r->o->tol);
        else if (measured)
            fprintf(out, "accuracy     error estimate %.1e, measured against a dense solve of "
                   "every state (balance %.1e, aggregation %s, tol %.1e)\n",
                   sol->info.error_est, sol->info.balance, agg, r->o->tol);
        else
            fprintf(out, "accuracy     error estimate %.1e from the checks, an indicator, not a "
                   "bound: a long chain's error can exceed it (balance %.1e, aggregation "
                   "%s, tol %.1e)\n", sol->info.error_est, sol->info.balance, agg, r->o->tol);
    } else {
        /* what the checks reached, so that "how far off" has an answer */
        const double est = san_solve_reached_estimate(&sol->info);
        if (isnan(est) && isinf(sol->info.error_est))
            /* the checks ran: their estimate is infinite (refinement
             * cycles that stopped contracting), not missing */
            fprintf(out, "accuracy     NOT CONVERGED: no finite error estimate (the checks "
                    "ran, but the refinement's cycles stopped contracting; balance %.1e, "
                    "tol %.1e)\n", sol->info.balance, r->o->tol);
        else if (isnan(est))
            fprintf(out, "accuracy     NOT CONVERGED: no error estimate (%s; tol %.1e)\n",
                    sol->info.status == SAN_E_INTERRUPTED
                    ? "stopped by the time limit or an interrupt before the checks"
                    : "no usable vector to check", r->o->tol);
        else
            fprintf(out, "accuracy     NOT CONVERGED: error estimate %.1e of the returned "
                    "vector (balance and aggregation checks, an indicator; tol %.1e)\n", est,
                    r->o->tol);
    }
    if (r->a->classes.n > 1)
        fprintf(out, "             (the largest over the classes of its own estimate plus the "
               "relative error of its reach probability)\n");
    if (sol->info.note[0])
        fprintf(out, "note         %s\n", sol->info.note);
    if (sol->info.underflow > 0)
        fprintf(out, "underflow    %lld state%s below 2.2e-308 (the smallest double): reported as 0\n",
               (long long)sol->info.underflow, sol->info.underflow == 1 ? "" : "s");
    fprintf(out, "times        explore+build %.3f s, check %.3f s, solve %.3f s, total %.3f s\n",
           sp->t_explore, sp->t_check, r->a->t_solve, r->o->t_total);
    if (m->nres) {
        fprintf(out, "\nresults\n");
        int w = 8;
        for (int i = 0; i < m->nres; i++)
            if ((int)strlen(m->res[i].name) > w)
                w = (int)strlen(m->res[i].name);
        for (int i = 0; i < m->nres; i++)
            fprintf(out, "  %-*s  %.*g\n", w, m->res[i].name, digits, sol->results[i]);
    }
    if (!r->o->no_marginals)
        text_marginals(out, m, sol, r->o->all_replicas);
    if (!r->o->no_throughputs)
        text_throughputs(out, m, sol, digits, r->o->all_replicas);
    fprintf(out, "\nmost probable states\n");
    /* the space's model: the lumped one's occupancy states when lumped */
    const san_model *sm = sp->m;
    int *s = malloc((sm->naut + 1) * sizeof *s);
    char buf[4096];
    for (int k = 0; s && k < sol->ntop; k++) {
        san_state_decode(sm, sp->index[sol->top[k].state], s);
        fprintf(out, "  %.10f  %s\n", sol->top[k].p, san_state_name(sm, s, buf, sizeof buf));
    }
    free(s);
}
