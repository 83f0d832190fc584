/*
 * warm.c - the solved variants a sweep keeps, to start each new variant
 * from its nearest solved neighbour (solver/space/warm.c maps the
 * states).
 *
 * Variants run on several threads, largest first: a variant looks for
 * the nearest one already solved when it starts.  Nearest: the fewest
 * axes with another value, then the closest numbers (a rate of 1.1 is
 * nearer 1.0 than 2.0; a buffer of 20 nearer 10 than 1).  Entries are
 * never removed while the sweep runs (a thread may be reading one);
 * they stop being added past the memory budget.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "sweep/sweep_int.h"
#include "solver/space/space_int.h"

typedef struct {
    char **vals;            /* per axis; NULL where the flag is left out */
    san_warm *w;
} warm_entry;

struct san_warm_cache {
    pthread_mutex_t lock;
    int naxes;
    int n, cap;
    warm_entry *e;
    double bytes, budget;
};

san_warm_cache *san_warm_cache_new(int naxes, double budget)
{
    san_warm_cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    pthread_mutex_init(&c->lock, NULL);
    c->naxes = naxes;
    c->budget = budget;
    return c;
}

void san_warm_cache_free(san_warm_cache *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->n; i++) {
        for (int a = 0; a < c->naxes; a++)
            free(c->e[i].vals[a]);
        free(c->e[i].vals);
        san_warm_free(c->e[i].w);
    }
    free(c->e);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

/* How far two values of one axis are: 0 the same, 1 to 2 two numbers
 * (closer ones nearer 1), 2 anything else. */
static double axis_distance(const char *a, const char *b)
{
    if (!a || !b)
        return a == b ? 0 : 2;
    if (!strcmp(a, b))
        return 0;
    char *ea, *eb;
    double x = strtod(a, &ea), y = strtod(b, &eb);
    if (*ea || *eb || ea == a || eb == b || !isfinite(x) || !isfinite(y))
        return 2;
    return 1 + fabs(x - y) / (fabs(x) + fabs(y));
}

static double distance(const san_warm_cache *c, char *const *a, const char *const *b)
{
    double d = 0;
    for (int k = 0; k < c->naxes; k++)
        d += axis_distance(a[k], b[k]);
    return d;
}

const san_warm *san_warm_cache_nearest(san_warm_cache *c, const char *const *vals)
{
    const san_warm *best = NULL;
    double bd = HUGE_VAL;
    pthread_mutex_lock(&c->lock);
    for (int i = 0; i < c->n; i++) {
        double d = distance(c, c->e[i].vals, vals);
        if (d < bd) {
            bd = d;
            best = c->e[i].w;
        }
    }
    pthread_mutex_unlock(&c->lock);
    return best;
}

void san_warm_cache_add(san_warm_cache *c, const char *const *vals, const san_space *sp,
                        const double *pi)
{
    pthread_mutex_lock(&c->lock);
    int room = c->bytes + 16.0 * (double)sp->n <= c->budget;
    pthread_mutex_unlock(&c->lock);
    if (!room)
        return;
    san_warm *w = san_warm_new(sp, pi);
    char **v = calloc(c->naxes + 1, sizeof *v);
    int ok = w && v;
    for (int a = 0; ok && a < c->naxes; a++)
        ok = !vals[a] || (v[a] = strdup(vals[a])) != NULL;
    pthread_mutex_lock(&c->lock);
    if (ok && c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 16;
        warm_entry *e = realloc(c->e, cap * sizeof *e);
        if (e) {
            c->e = e;
            c->cap = cap;
        } else {
            ok = 0;
        }
    }
    if (ok) {
        c->e[c->n++] = (warm_entry){ v, w };
        c->bytes += san_warm_bytes(w);
    }
    pthread_mutex_unlock(&c->lock);
    if (!ok) {                  /* only a lost speed-up */
        for (int a = 0; v && a < c->naxes; a++)
            free(v[a]);
        free(v);
        san_warm_free(w);
    }
}
