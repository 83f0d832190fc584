/*
 * pool.c - running many independent jobs on the machine's cores: a few
 * threads take the next job from a shared counter (the caller orders the
 * jobs, largest first, so that the last one to finish is a small one),
 * and one of them redraws a progress bar on stderr.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "base/services.h"
#include "sweep/sweep_int.h"

int san_sweep_cores(void)
{
#ifdef CPU_COUNT
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

typedef struct {
    pthread_mutex_t lock;
    int n, next, done;
    const int *order;
    void (*fn)(void *ctx, int i);
    void *ctx;
    /* progress */
    int progress;
    const char *what;
    const double *weight;
    double total_weight, done_weight;
    double t0, last_draw;
    int drawn;
} pool;

static void fmt_time(char *buf, size_t n, double s)
{
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, n, "%ld:%02ld", t / 60, t % 60);
}

/* [#####.....] 12/30 variants, 0:12 elapsed, about 0:31 left.  The
 * estimate weighs the jobs by size: the large ones run first, and a
 * count alone would promise too much too early. */
static void draw(pool *p, int final)
{
    enum { WIDTH = 30 };
    double now = san_now();
    if (!final && now - p->last_draw < 0.2 && p->drawn)
        return;
    p->last_draw = now;
    p->drawn = 1;
    double frac = p->total_weight > 0 ? p->done_weight / p->total_weight
                                      : (double)p->done / (p->n ? p->n : 1);
    if (p->done == p->n)
        frac = 1;
    int fill = (int)(frac * WIDTH + 0.5);
    char bar[WIDTH + 1], el[32], left[32];
    for (int i = 0; i < WIDTH; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[WIDTH] = '\0';
    double elapsed = now - p->t0;
    fmt_time(el, sizeof el, elapsed);
    if (frac > 0 && p->done < p->n)
        fmt_time(left, sizeof left, elapsed * (1 - frac) / frac);
    else
        snprintf(left, sizeof left, "%s", p->done == p->n ? "0:00" : "?");
    fprintf(stderr, "\r[%s] %d/%d %s, %s elapsed, about %s left ", bar, p->done, p->n,
            p->what, el, left);
    if (final)
        fprintf(stderr, "\r%*s\r", WIDTH + 70, "");
    fflush(stderr);
}

static void *worker(void *arg)
{
    pool *p = arg;
#ifdef _OPENMP
    /* One core per job: the jobs are the parallelism.  The caller's
     * thread works too, and gets its setting back at the end. */
    int saved = omp_get_max_threads();
    omp_set_num_threads(1);
#endif
    for (;;) {
        pthread_mutex_lock(&p->lock);
        int k = p->next < p->n ? p->next++ : -1;
        pthread_mutex_unlock(&p->lock);
        if (k < 0)
            break;
        int i = p->order ? p->order[k] : k;
        p->fn(p->ctx, i);
        pthread_mutex_lock(&p->lock);
        p->done++;
        p->done_weight += p->weight ? p->weight[i] : 1;
        if (p->progress)
            draw(p, 0);
        pthread_mutex_unlock(&p->lock);
    }
#ifdef _OPENMP
    omp_set_num_threads(saved);
#endif
    return NULL;
}

void san_sweep_parallel(int n, const int *order, int jobs,
                        void (*fn)(void *ctx, int i), void *ctx,
                        const double *weight, int progress, const char *what)
{
    pool p;
    memset(&p, 0, sizeof p);
    pthread_mutex_init(&p.lock, NULL);
    p.n = n;
    p.order = order;
    p.fn = fn;
    p.ctx = ctx;
    p.progress = progress;
    p.what = what ? what : "jobs";
    p.weight = weight;
    for (int i = 0; i < n; i++)
        p.total_weight += weight ? weight[i] : 1;
    p.t0 = san_now();
    if (jobs < 1)
        jobs = san_sweep_cores();
    if (jobs > n)
        jobs = n;
    if (progress) {
        pthread_mutex_lock(&p.lock);
        draw(&p, 0);
        pthread_mutex_unlock(&p.lock);
    }
    pthread_t *t = malloc((jobs > 0 ? jobs : 1) * sizeof *t);
    int started = 0;
    for (int k = 1; t && k < jobs; k++)
        if (pthread_create(&t[started], NULL, worker, &p) == 0)
            started++;
    worker(&p);         /* this thread works too */
    for (int k = 0; k < started; k++)
        pthread_join(t[k], NULL);
    free(t);
    if (progress)
        draw(&p, 1);
    pthread_mutex_destroy(&p.lock);
}
