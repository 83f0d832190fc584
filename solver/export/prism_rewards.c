/*
 * prism_rewards.c - the model's results and throughputs as PRISM state
 * reward files (.srew), one reward structure per file: PRISM's explicit
 * import (its manual, "Explicit model files"; -importmodel BASE.all)
 * reads BASE1.srew, BASE2.srew, ... as reward structures 1, 2, ..., each
 * named by the header line '# Reward structure "name"', then
 * '# State rewards', "n m" (states, non-zero rewards) and "i r" lines.
 *
 * A result (an expectation over the states) is the state reward "its
 * value in state i": PRISM's R{"name"}=? [ S ] is then san's result.
 * An event's throughput is the state reward "its rate in state i", not a
 * transition reward: an event may fire without changing the state (a
 * synchronization whose every part stays where it is), and such a firing
 * has no transition in .tra to carry a reward, while its rate counts in
 * san's throughput (the sum over the states of pi_i times the event's
 * rate in i).  R{"name"}=? [ S ] is the throughput, R{"name"}=? [ C<=t ]
 * the expected number of firings by t.
 */
#include <math.h>
#include <stdlib.h>
#include "solver/space/succ.h"
#include "solver/export/export_int.h"
#include "lang/model_int.h"
#include "solver/space/space_int.h"

int san_export_prism_nrewards(const san_model *m)
{
    int n = m->nev;
    for (int r = 0; r < m->nres; r++)
        n += !m->res[r].derived;
    return n;
}

/* Reward structure w (exp_names.rew_what) in the global state s. */
static double reward_at(const san_model *m, int w, succ_ctx *c, const int *s)
{
    if (w < m->nres)
        return san_expr_eval(m->res[w].expr, s);
    succ_new_state(c);
    return succ_event_rate(c, w - m->nres, s);
}

/* The rewards of structure w in export order into v (sp->n entries):
 * 0, or the export number of a state where it is not finite. */
static int64_t fill(const san_space *sp, int w, double *v, int *s, succ_ctx *c,
                    const int64_t *order)
{
    for (int64_t r = 0; r < sp->n; r++) {
        san_state_decode(sp->m, sp->index[order[r]], s);
        v[r] = reward_at(sp->m, w, c, s);
        if (!isfinite(v[r]))
            return r + 1;
    }
    return 0;
}

static void write_srew(const san_space *sp, const char *name, const double *v, FILE *out)
{
    int64_t nz = 0;
    for (int64_t r = 0; r < sp->n; r++)
        nz += v[r] != 0;
    fprintf(out, "# Reward structure \"%s\"\n# State rewards\n%lld %lld\n", name,
            (long long)sp->n, (long long)nz);
    for (int64_t r = 0; r < sp->n; r++)
        if (v[r] != 0)
            fprintf(out, "%lld %.17g\n", (long long)r, v[r]);
}

san_status san_export_prism_srew(const san_space *sp, int k, FILE *out, char *err, size_t n)
{
    const san_model *m = sp->m;
    exp_names nm;
    if (exp_names_make(m, &nm) != 0) {
        exp_err(err, n, "out of memory");
        return SAN_E_NOMEM;
    }
    if (k < 0 || k >= nm.nreward) {
        exp_err(err, n, "no reward structure %d (the model has %d)", k + 1, nm.nreward);
        exp_names_free(&nm);
        return SAN_E_USAGE;
    }
    const int w = nm.rew_what[k];
    int64_t *order = exp_order(sp);
    double *v = malloc((sp->n ? sp->n : 1) * sizeof *v);
    int *s = malloc((m->naut + 1) * sizeof *s);
    succ_ctx c;
    int have_c = w >= m->nres && succ_init(&c, m) == 0;
    san_status st = SAN_OK;
    if (!order || !v || !s || (w >= m->nres && !have_c)) {
        exp_err(err, n, "out of memory");
        st = SAN_E_NOMEM;
    } else {
        int64_t bad = fill(sp, w, v, s, &c, order);
        if (bad) {
            exp_err(err, n, "the %s %s is %g in state %lld: PRISM takes finite rewards only",
                    w < m->nres ? "result" : "rate of event",
                    w < m->nres ? m->res[w].name : m->ev[w - m->nres].name, v[bad - 1],
                    (long long)(bad - 1));
            st = SAN_E_MODEL;
        } else {
            write_srew(sp, nm.reward[k], v, out);
            if (ferror(out)) {
                exp_err(err, n, "write error");
                st = SAN_E_IO;
            }
        }
    }
    if (have_c)
        succ_free(&c);
    free(order);
    free(v);
    free(s);
    exp_names_free(&nm);
    return st;
}
