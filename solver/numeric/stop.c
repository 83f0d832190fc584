/*
 * stop.c - when and how a kernel stops short: the clock, the interrupt
 * flag and the progress line it polls, the best vector it keeps and
 * gives back, and the message that says why.  A leaf of solver/numeric/.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "linsolve.h"

void san_ls_best_init(san_ls_best *b, int64_t n)
{
    b->n = n;
    b->res = HUGE_VAL;
    b->x = malloc((size_t)n * sizeof *b->x);
}

void san_ls_best_offer(san_ls_best *b, const double *x, double res)
{
    if (!b->x || !(res < b->res))
        return;
    memcpy(b->x, x, (size_t)b->n * sizeof *x);
    b->res = res;
}

double san_ls_best_restore(san_ls_best *b, double *x, double res)
{
    if (!b->x || !(b->res < res || (res != res && b->res < HUGE_VAL)))
        return res;
    memcpy(x, b->x, (size_t)b->n * sizeof *x);
    return b->res;
}

double san_ls_give_up(san_ls *c, san_ls_best *b, double *x, san_ls_stop why, long iter,
                      double res, const char *hint)
{
    res = san_ls_best_restore(b, x, res);
    san_ls_stop_msg(c, why, iter, res, hint);
    return res;
}

void san_ls_best_free(san_ls_best *b)
{
    free(b->x);
    b->x = NULL;
}

san_ls_stop san_ls_poll(san_ls *c, long iter, double res)
{
    const san_solve_opts *o = c->o;
    if (o->interrupt && *o->interrupt)
        return SAN_LS_INTR;
    if (o->max_iter > 0 && iter >= o->max_iter)
        return SAN_LS_MAXIT;
    if (!(o->time_limit > 0) && !o->progress)
        return SAN_LS_GO;
    /* Looking at the clock costs ~20 ns: on tiny chains only now and
     * then, on real ones (one iteration >> 1 us) every time. */
    if (c->clock_skip > 1 && iter % c->clock_skip != 0)
        return SAN_LS_GO;
    double t = san_ls_now();
    if (o->time_limit > 0 && t - c->t0 >= o->time_limit)
        return SAN_LS_TIME;
    if (o->progress && t - c->last_print >= SAN_LS_PROGRESS_DT) {
        if (res >= 0)
            fprintf(stderr, "\r  iter %ld  residual %.3e   ", iter, res);
        else
            fprintf(stderr, "\r  iter %ld   ", iter);
        fflush(stderr);
        c->last_print = t;
        c->printed = 1;
    }
    return SAN_LS_GO;
}

san_ls_stop san_ls_clock(const san_ls *c)
{
    const san_solve_opts *o = c->o;
    if (o->interrupt && *o->interrupt)
        return SAN_LS_INTR;
    if (o->time_limit > 0 && san_ls_now() - c->t0 >= o->time_limit)
        return SAN_LS_TIME;
    return SAN_LS_GO;
}

void san_ls_progress_end(san_ls *c)
{
    if (c->printed) {
        fputc('\n', stderr);
        c->printed = 0;
    }
}

void san_ls_stop_say(san_ls *c, san_ls_stop why, long iter, const char *what,
                     double value, const char *hint)
{
    char *m = c->info->msg, v[64];
    size_t sz = sizeof c->info->msg;
    if (value < HUGE_VAL)
        snprintf(v, sizeof v, "%s %.2e", what, value);
    else
        snprintf(v, sizeof v, "no %s yet", what);
    switch (why) {
    case SAN_LS_TIME:
        c->info->status = SAN_E_INTERRUPTED;
        snprintf(m, sz, "time limit of %g s reached after %ld iterations (%s); raise "
                 "--time-limit", c->o->time_limit, iter, v);
        break;
    case SAN_LS_INTR:
        c->info->status = SAN_E_INTERRUPTED;
        snprintf(m, sz, "interrupted after %ld iterations (%s)", iter, v);
        break;
    default:
        snprintf(m, sz, "not converged after %ld iterations (%s)%s%s", iter, v,
                 hint ? "; " : "", hint ? hint : "");
        break;
    }
}

void san_ls_stop_msg(san_ls *c, san_ls_stop why, long iter, double best,
                     const char *hint)
{
    san_ls_stop_say(c, why, iter, "best residual", best, hint);
}
