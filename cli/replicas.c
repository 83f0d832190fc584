/*
 * replicas.c - runs of replicas in san check's report: P[0], P[1], ...,
 * P[999] listed as one line P[0..999].  (The library's reports, which
 * also summarize and total replicas, have report/replicas.c.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"

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
