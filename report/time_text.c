/*
 * time_text.c - the report of san transient and san passage for a
 * reader: the chain, the uniformization and its accuracy, then a table
 * per kind of index over the times (transient) or the passage's
 * figures and its distribution (passage).
 */
#include <math.h>
#include <string.h>
#include "report/solve_out.h"
#include "lang/model_int.h"
#include "solver/analysis/analysis_int.h"

static void text_header(FILE *out, const rep_time *r)
{
    const san_analysis *a = r->a;
    const an_time_answer *T = &a->tr;
    if (r->o->preamble)
        r->o->preamble(out, SAN_REPORT_TEXT, r->o->ctx);
    fprintf(out, "model        %s (%s)\n", r->m->name, r->o->source);
    fprintf(out, "states       %lld reachable, storage %s\n", (long long)a->sp.n,
           a->kron ? "kron (tensor descriptor)" : "sparse");
    if (r->a->engine_used == SAN_ENGINE_PETSC)
        fprintf(out, "engine       petsc: %d ranks, %.1f MiB the largest rank\n", a->ranks,
               a->rank_bytes / (1 << 20));
    if (a->lumping)
        fprintf(out, "lumped       %s into counts (--lump off: as written); states are "
               "occupancy states\n", san_lumping_summary(a->lumping));
    fprintf(out, "initial      %lld state%s (%s)\n", (long long)T->ninit, T->ninit == 1 ? "" : "s",
           r->o->initial ? r->o->initial : "accepted by the reachability function");
    fprintf(out, "method       uniformization, rate %.6g, %ld products (%.0f planned), %.3f s in "
           "products\n", T->rate, T->steps, T->steps_planned, T->product_s);
    fprintf(out, "accuracy     truncated Poisson mass %.2e (Fox-Glynn, eps %.0e per interval)\n",
           T->trunc, r->o->eps);
    if (T->ss_at >= 0)
        fprintf(out, "note         steady state detected at t ~ %.6g: later times equal it\n", T->ss_at);
    fprintf(out, "times        explore %.3f s, analysis %.3f s, total %.3f s\n", a->t_space,
           a->t_solve, r->o->t_total);
}

/* One table: a row per time, a column per index. */
static void text_table(FILE *out, const rep_time *r, const char *title, int acc)
{
    const san_model *m = r->m;
    const an_time_answer *T = &r->a->tr;
    const san_solution *S = acc ? T->acc : T->at;
    fprintf(out, "\n%s\n  %-12s", title, "t");
    for (int i = 0; i < m->nres; i++)
        if (!rep_hidden(m->res[i].name))
            fprintf(out, " %16s", m->res[i].name);
    fprintf(out, "\n");
    for (int k = 0; k < T->ntimes; k++) {
        fprintf(out, "  %-12.6g", T->times[k]);
        for (int i = 0; i < m->nres; i++)
            if (!rep_hidden(m->res[i].name))
                fprintf(out, " %16.10g", S[k].results[i]);
        fprintf(out, "\n");
    }
    fprintf(out, "\n%s\n  %-12s", acc ? "expected firings" : "throughputs", "t");
    for (int e = 0; e < m->nev; e++)
        fprintf(out, " %16s", m->ev[e].name);
    fprintf(out, "\n");
    for (int k = 0; k < T->ntimes; k++) {
        fprintf(out, "  %-12.6g", T->times[k]);
        for (int e = 0; e < m->nev; e++)
            fprintf(out, " %16.10g", S[k].throughput[e]);
        fprintf(out, "\n");
    }
    fprintf(out, "\n%s\n", acc ? "expected time in each local state" : "marginals");
    for (int k = 0; k < T->ntimes; k++) {
        fprintf(out, "  t = %g\n", T->times[k]);
        rep_text_marginals(out, m, &S[k], r->o->all_replicas, "    ", 10);
    }
}

static void text_passage(FILE *out, const rep_time *r)
{
    const an_time_answer *T = &r->a->tr;
    fprintf(out, "\npassage      into %lld target state%s\n", (long long)T->ntarget,
           T->ntarget == 1 ? "" : "s");
    if (isnan(T->reach))
        fprintf(out, "  P(reach)         not computed (see the warning)\n");
    else if (T->reach_how == SAN_REACH_SOLVE)
        fprintf(out, "  P(reach)         %.12g   (solve of the regenerative chain: %s, error "
               "estimate %.1e)\n", T->reach, san_method_name(T->reach_info.method),
               T->reach_info.error_est);
    else
        fprintf(out, "  P(reach)         %.12g   (%s)\n", T->reach,
               T->reach_how == SAN_REACH_GRAPH ? "surely: every state the passage can visit "
                                                 "can reach the target"
               : "mass the uniformization series absorbed");
    fprintf(out, "  P(T = 0)         %.12g\n", T->p_init);
    if (isnan(T->mean))
        fprintf(out, "  mean             not computed (see the warning)\n");
    else if (isfinite(T->mean) && T->mean_solved)
        fprintf(out, "  mean             %.12g   (solve of the regenerative chain: %s, error "
               "estimate %.1e)\n", T->mean, san_method_name(T->mean_info.method),
               T->mean_error_est);
    else if (isfinite(T->mean))
        fprintf(out, "  mean             %.12g   (uniformization series: %ld products, residual "
               "%.1e)\n", T->mean, T->mean_steps, T->mean_resid);
    else
        fprintf(out, "  mean             infinite (the target is missed with probability %.6g)\n",
               1 - T->reach);
    for (int i = 0; i < r->o->nlevels; i++)
        if (isinf(T->pct[i]))
            fprintf(out, "  percentile %-5g never (P(reach) is %.6g)\n", 100 * r->o->levels[i], T->reach);
        else if (isnan(T->pct[i]))
            fprintf(out, "  percentile %-5g not computed (see the warning)\n", 100 * r->o->levels[i]);
        else
            fprintf(out, "  percentile %-5g %.12g\n", 100 * r->o->levels[i], T->pct[i]);
    if (r->o->ntimes_asked) {
        fprintf(out, "\n  %-12s %20s\n", "t", "P(T <= t)");
        for (int k = 0; k < T->ntimes; k++)
            fprintf(out, "  %-12.6g %20.14g\n", T->times[k], T->cdf[k]);
        for (int k = T->ntimes; k < r->o->ntimes_asked; k++)
            fprintf(out, "  %-12.6g %20s\n", T->times[k], "not computed (see the warning)");
    }
}

void rep_time_text(FILE *out, const rep_time *r)
{
    text_header(out, r);
    if (r->o->passage) {
        text_passage(out, r);
        return;
    }
    text_table(out, r, "results", 0);
    if (r->o->rewards)
        text_table(out, r, "accumulated rewards (integral over [0, t])", 1);
    if (!r->o->complete)
        fprintf(out, "\nstopped: %d of %d times done\n", r->a->tr.ntimes, r->o->ntimes_asked);
}

