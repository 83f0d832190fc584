/*
 * replicas.c - runs of replicas in the reports: P[0], P[1], ..., P[999]
 * listed as one line P[0..999] where they are alike, summarized by their
 * minimum, mean and maximum where they differ, and totalled (the
 * throughput of a replicated event over its replicas).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

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

int cli_next_replica(const char *a, const char *b)
{
    long ka, kb;
    size_t na = replica_index(a, &ka), nb = replica_index(b, &kb);
    return na && na == nb && kb == ka + 1 && !strncmp(a, b, na);
}

const char *cli_replica_run(const char *first, const char *last, char *buf, size_t size)
{
    long k0, k1;
    size_t n = replica_index(first, &k0);
    if (first == last || !n || !replica_index(last, &k1))
        return first;
    snprintf(buf, size, "%.*s[%ld..%ld]", (int)(n < 120 ? n : 120), first, k0, k1);
    return buf;
}

int cli_same_family(const char *a, const char *b)
{
    long ka, kb;
    size_t na = replica_index(a, &ka), nb = replica_index(b, &kb);
    return na && na == nb && !strncmp(a, b, na);
}

const char *cli_replica_family(const char *first, char *buf, size_t size)
{
    long k;
    size_t n = replica_index(first, &k);
    if (!n)
        return first;
    snprintf(buf, size, "%.*s[*]", (int)(n < 120 ? n : 120), first);
    return buf;
}

void cli_replica_stats_of(const double *v, int n, cli_replica_stats *st)
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
