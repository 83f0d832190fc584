/*
 * warnings.c - a sweep's warnings on stderr, each once across sweeps.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tool/tool.h"

void tool_print_sweep_warnings(const san_sweep *s, char ***seen)
{
    int n = 0;
    while (*seen && (*seen)[n])
        n++;
    for (int i = 0; i < s->nwarnings; i++) {
        int dup = 0;
        for (int k = 0; k < n && !dup; k++)
            dup = !strcmp((*seen)[k], s->warnings[i]);
        if (dup)
            continue;
        fprintf(stderr, "%s\n", s->warnings[i]);
        char **p = realloc(*seen, (n + 2) * sizeof *p);
        if (!p)
            continue;           /* printed; may be printed again */
        *seen = p;
        p[n++] = s->warnings[i];
        p[n] = NULL;
    }
}

void tool_seen_free(char **seen)
{
    free(seen);             /* the strings are the sweeps' */
}
