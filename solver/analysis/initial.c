/*
 * initial.c - the default initial distribution, uniform over the states
 * the reachability function accepts (the initial states under partial
 * reachability): what san transient, san passage, san props and the
 * long-run answer of several closed classes start from.  Lumped, each
 * lumped state weighs the original states it stands for.
 */
#include <math.h>
#include <stdlib.h>
#include "solver/analysis/initial.h"
#include "lang/lump.h"
#include "lang/model_int.h"
#include "solver/space/space_int.h"

int64_t initial_marks(const san_space *sp, const san_lumping *L, const san_expr *e,
                      const char *gone, double *x, double *lmax)
{
    const san_model *m = sp->m;
    int *s = malloc((m->naut + 1) * sizeof *s);
    if (!s)
        return -1;
    int64_t c = 0;
    *lmax = -HUGE_VAL;
    for (int64_t i = 0; i < sp->n; i++) {
        san_state_decode(m, sp->index[i], s);
        const san_expr *f = e ? e : m->reach;       /* none: every state */
        x[i] = (!gone || !gone[i]) && (!f || san_expr_eval(f, s) != 0);
        c += x[i] != 0;
        if (L && x[i] != 0) {
            x[i] = lump_state_logcount(L, s);
            *lmax = fmax(*lmax, x[i]);
        } else if (L) {
            x[i] = -HUGE_VAL;
        }
    }
    free(s);
    return c;
}

int64_t initial_uniform(const san_space *sp, const san_lumping *L, double *x)
{
    double lmax;
    int64_t c = initial_marks(sp, L, NULL, NULL, x, &lmax);
    if (c <= 0)
        return c;
    double total = 0;
    for (int64_t i = 0; i < sp->n; i++)
        total += x[i] = L ? exp(x[i] - lmax) : x[i];
    for (int64_t i = 0; i < sp->n; i++)
        x[i] /= total;
    return c;
}
