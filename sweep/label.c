/*
 * label.c - a variant's name for people: "mode=async, slaves=3", the
 * axes that vary and their values in this variant, for the reports of
 * size-buffer and grain, their plots' legends and their failure lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sweep/sweep_int.h"

char *san_sweep_label(const san_sweep *s, int v, int except)
{
    char *l = strdup("");
    for (int a = 0; l && a < s->spec.naxes; a++) {
        const san_sweep_axis *ax = &s->spec.axis[a];
        if (a == except || ax->nvalues < 2 || s->pick[v][a] < 0)
            continue;
        char *t;
        if (asprintf(&t, "%s%s%s=%s", l, *l ? ", " : "", ax->name, ax->values[s->pick[v][a]]) < 0)
            t = NULL;
        free(l);
        l = t;
    }
    if (l && !*l) {
        free(l);
        l = strdup(s->spec.tmpl ? s->spec.tmpl : "model");
    }
    return l;
}
