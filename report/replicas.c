/*
 * replicas.c - runs of replicas in the library's reports: P[0], P[1], ..., P[999]
 * listed as one line P[0..999] where they are alike, summarized by their
 * minimum, mean and maximum where they differ, and totalled (the
 * throughput of a replicated event over its replicas).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/solve_out.h"
#include "lang/model_int.h"
#include "solver/space/solution.h"

/* A replica's name "BASE[K]": the length of BASE and K, or 0 when the name
 * does not end in a bracketed index (no leading zeros). */
static size_t replica_index(const char *name, long *k)
{
    size_t n = strlen(name);
    if (n < 4 || name[n - 1] != ']')
        return 0;
    size_t i = n - 1;
    while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
        i--;
    if (i == n - 1 || i < 2 || name[i - 1] != '[' || (name[i] == '0' && i + 1 < n - 1))
        return 0;
    *k = strtol(name + i, NULL, 10);
    return i - 1;
}

int rep_next_replica(const char *a, const char *b)
{
    long ka, kb;
    size_t na = replica_index(a, &ka), nb = replica_index(b, &kb);
    return na && na == nb && kb == ka + 1 && !strncmp(a, b, na);
}

const char *rep_replica_run(const char *first, const char *last, char *buf, size_t size)
{
    long k0, k1;
    size_t n = replica_index(first, &k0);
    if (first == last || !n || !replica_index(last, &k1))
        return first;
    snprintf(buf, size, "%.*s[%ld..%ld]", (int)(n < 120 ? n : 120), first, k0, k1);
    return buf;
}

int rep_same_family(const char *a, const char *b)
{
    long ka, kb;
    size_t na = replica_index(a, &ka), nb = replica_index(b, &kb);
    return na && na == nb && !strncmp(a, b, na);
}

const char *rep_replica_family(const char *first, char *buf, size_t size)
{
    long k;
    size_t n = replica_index(first, &k);
    if (!n)
        return first;
    snprintf(buf, size, "%.*s[*]", (int)(n < 120 ? n : 120), first);
    return buf;
}

void rep_replica_stats_of(const double *v, int n, rep_replica_stats *st)
{
    /* Neumaier's compensated sum: a thousand replicas' throughputs of
     * different magnitudes add up without losing the small ones. */
    double sum = 0, comp = 0;
    st->at_min = st->at_max = 0;
    for (int i = 0; i < n; i++) {
        double t = sum + v[i];
        comp += fabs(sum) >= fabs(v[i]) ? (sum - t) + v[i] : (v[i] - t) + sum;
        sum = t;
        if (v[i] < v[st->at_min])
            st->at_min = i;
        if (v[i] > v[st->at_max])
            st->at_max = i;
    }
    st->total = sum + comp;
    st->mean = n ? st->total / n : 0;
    st->min = n ? v[st->at_min] : 0;
    st->max = n ? v[st->at_max] : 0;
}

/* Do automata a and b have the same local states (names, in order)? */
static int same_states(const san_model *m, int a, int b)
{
    if (m->aut[a].nstates != m->aut[b].nstates)
        return 0;
    for (int s = 0; s < m->aut[a].nstates; s++)
        if (strcmp(m->aut[a].states[s], m->aut[b].states[s]))
            return 0;
    return 1;
}

/* Do automata a and b print the same marginals (the same states, each
 * probability the same at the digits shown)? */
static int same_marginals(const san_model *m, const san_solution *sol, int a, int b, int digits)
{
    if (!same_states(m, a, b))
        return 0;
    for (int s = 0; s < m->aut[a].nstates; s++) {
        char x[32], y[32];
        snprintf(x, sizeof x, "%.*g", digits, sol->marginal[a][s]);
        snprintf(y, sizeof y, "%.*g", digits, sol->marginal[b][s]);
        if (strcmp(x, y))
            return 0;
    }
    return 1;
}

/* Automata first..last, one line each; replicas that print alike share
 * one line, Slave[1..7]: nothing shown is lost. */
static void marginal_lines(FILE *out, const san_model *m, const san_solution *sol, int first, int last,
                           const char *indent, int digits)
{
    for (int a = first; a <= last;) {
        int b = a;
        while (b < last && rep_next_replica(m->aut[b].name, m->aut[b + 1].name) &&
               same_marginals(m, sol, a, b + 1, digits))
            b++;
        char buf[160];
        fprintf(out, "%s%s:", indent, rep_replica_run(m->aut[a].name, m->aut[b].name, buf, sizeof buf));
        for (int s = 0; s < m->aut[a].nstates; s++)
            fprintf(out, "  %s %.*g", m->aut[a].states[s], digits, sol->marginal[a][s]);
        fprintf(out, "\n");
        a = b + 1;
    }
}

/* Replicas first..last that differ, as many lines as one of them has
 * states whatever their number: "Client[*] t:  min 0.64 (Client[4])  mean
 * 0.77  max 0.85 (Client[1])", the replica named the first that holds
 * the value.  -1 when out of memory (the caller lists each instead). */
static int marginal_summary(FILE *out, const san_model *m, const san_solution *sol, int first, int last,
                            const char *indent, int digits)
{
    int n = last - first + 1;
    double *v = malloc((size_t)n * sizeof *v);
    if (!v)
        return -1;
    char fam[160];
    const char *name = rep_replica_family(m->aut[first].name, fam, sizeof fam);
    for (int s = 0; s < m->aut[first].nstates; s++) {
        for (int k = 0; k < n; k++)
            v[k] = sol->marginal[first + k][s];
        rep_replica_stats st;
        rep_replica_stats_of(v, n, &st);
        fprintf(out, "%s%s %s:  min %.*g (%s)  mean %.*g  max %.*g (%s)\n", indent, name,
               m->aut[first].states[s], digits, st.min, m->aut[first + st.at_min].name, digits,
               st.mean, digits, st.max, m->aut[first + st.at_max].name);
    }
    free(v);
    return 0;
}

/* One line per automaton, or per run of alike replicas; the replicas of
 * an automaton (with the same states) that differ are summarized
 * (marginal_summary) unless every line is asked for (all).  Lines start
 * with indent, probabilities have digits significant digits.  solve and
 * transient (at each time) write their marginals so; the JSON and CSV
 * list each replica. */
void rep_text_marginals(FILE *out, const san_model *m, const san_solution *sol, int all,
                        const char *indent, int digits)
{
    for (int a = 0; a < m->naut;) {
        int last = a, alike = 1;
        while (last + 1 < m->naut && rep_same_family(m->aut[last].name, m->aut[last + 1].name) &&
               same_states(m, a, last + 1)) {
            last++;
            alike = alike && same_marginals(m, sol, a, last, digits);
        }
        if (all || alike || marginal_summary(out, m, sol, a, last, indent, digits) < 0)
            marginal_lines(out, m, sol, a, last, indent, digits);
        a = last + 1;
    }
}

/* The members of a marginals object, "A": { "s": p, ... } for every
 * automaton, the first after first and the others after sep (solve puts
 * one a line, transient's rows keep a time on one line): one shape for
 * the concept (doc/output.md).  Each replica listed. */
void rep_json_marginal_members(FILE *out, const san_model *m, const san_solution *sol,
                                  const char *first, const char *sep)
{
    for (int a = 0; a < m->naut; a++) {
        fputs(a ? sep : first, out);
        san_json_string(out, m->aut[a].name);
        fputs(": {", out);
        for (int s = 0; s < m->aut[a].nstates; s++) {
            fputs(s ? ", " : " ", out);
            san_json_string(out, m->aut[a].states[s]);
            fputs(": ", out);
            san_json_num(out, sol->marginal[a][s]);
        }
        fputs(" }", out);
    }
}

void rep_json_throughput_members(FILE *out, const san_model *m, const san_solution *sol,
                                    const char *first, const char *sep)
{
    for (int e = 0; e < m->nev; e++) {
        fputs(e ? sep : first, out);
        san_json_string(out, m->ev[e].name);
        fputs(": ", out);
        san_json_num(out, sol->throughput[e]);
    }
}
