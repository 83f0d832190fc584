/*
 * clock.c - the monotonic clock and the progress line of long work.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>
#include "base/services.h"

double san_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* SAN_PROGRESS_INTERVAL=S shortens every interval to S seconds at most
 * (san(1) ENVIRONMENT): a slow terminal session wants lines sooner, and
 * a test of the line needs one that does not hang on the machine's
 * speed (frontend.sh: a load of ~1 s drew its line or not by 0.1 s). */
static double interval_cap(double interval)
{
    const char *e = getenv("SAN_PROGRESS_INTERVAL");
    char *end;
    const double cap = e && *e ? strtod(e, &end) : -1;
    return e && *e && !*end && cap >= 0 && cap < interval ? cap : interval;
}

void base_progress_init(base_progress *p, int on, double interval)
{
    p->on = on;
    p->interval = interval_cap(interval);
    p->last = san_now();
    p->open = 0;
}

int base_progress_draw(base_progress *p, int force, const char *fmt, ...)
{
    if (!p->on)
        return 0;
    double t = san_now();
    if (!force && t - p->last < p->interval)
        return 0;
    va_list ap;
    va_start(ap, fmt);
    fputc('\r', stderr);
    vfprintf(stderr, fmt, ap);
    fputs("   ", stderr);
    va_end(ap);
    fflush(stderr);
    p->last = t;
    p->open = 1;
    return 1;
}

void base_progress_end(base_progress *p, int erase)
{
    if (!p->open)
        return;
    if (erase)
        fprintf(stderr, "\r%78s\r", "");
    else
        fputc('\n', stderr);
    fflush(stderr);
    p->open = 0;
}
