/*
 * stop.c - when and how a kernel stops short: the clock, the interrupt
 * flag and the progress line it polls, the best vector it keeps and
 * gives back, and the message that says why (with the advice of a
 * refusal: the methods worth trying next).  A leaf of solver/numeric/.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "solver/numeric/linsolve.h"

void num_ls_best_init(num_ls_best *b, int64_t n)
{
    b->n = n;
    b->res = HUGE_VAL;
    b->x = malloc((size_t)n * sizeof *b->x);
}

void num_ls_best_offer(num_ls_best *b, const double *x, double res)
{
    if (!b->x || !(res < b->res))
        return;
    memcpy(b->x, x, (size_t)b->n * sizeof *x);
    b->res = res;
}

double num_ls_best_restore(num_ls_best *b, double *x, double res)
{
    if (!b->x || !(b->res < res || (res != res && b->res < HUGE_VAL)))
        return res;
    memcpy(x, b->x, (size_t)b->n * sizeof *x);
    return b->res;
}

double num_ls_give_up(num_ls *c, num_ls_best *b, double *x, num_ls_stop why, long iter,
                      double res, const char *hint)
{
    res = num_ls_best_restore(b, x, res);
    num_ls_stop_msg(c, why, iter, res, hint);
    return res;
}

void num_ls_best_free(num_ls_best *b)
{
    free(b->x);
    b->x = NULL;
}

void num_ls_oracle(num_ls *c, const double *x, long it)
{
    if (c->oracle)
        c->oracle(c, x, it);
}

void num_ls_stall_init(num_ls_stall *s)
{
    s->anchor = s->least = HUGE_VAL;
    s->anchor_it = 0;
}

int num_ls_stalled(num_ls *c, num_ls_stall *s, long it, double res, long window)
{
    if (!(res == res))
        return 0;
    if (res < s->least)
        s->least = res;
    if (res <= 0.5 * s->anchor) {
        s->anchor = res;
        s->anchor_it = it;
        return 0;
    }
    if (!c->stall_watch || it - s->anchor_it < window || !(s->least <= SAN_LS_ROUNDOFF_FLOOR))
        return 0;
    c->stalled = 1;
    return 1;
}

num_ls_stop num_ls_poll(num_ls *c, long iter, double res)
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

num_ls_stop num_ls_clock(const num_ls *c)
{
    const san_solve_opts *o = c->o;
    if (o->interrupt && *o->interrupt)
        return SAN_LS_INTR;
    if (o->time_limit > 0 && san_ls_now() - c->t0 >= o->time_limit)
        return SAN_LS_TIME;
    return SAN_LS_GO;
}

void num_ls_progress_end(num_ls *c)
{
    if (c->printed) {
        fputc('\n', stderr);
        c->printed = 0;
    }
}

void num_verdict_stop(san_solve_info *info, num_ls_stop why, double time_limit, long iter,
                      const char *what, double value, const char *hint)
{
    char *m = info->msg, v[64];
    size_t sz = sizeof info->msg;
    if (value < HUGE_VAL)
        snprintf(v, sizeof v, "%s %.2e", what, value);
    else
        snprintf(v, sizeof v, "no %s yet", what);
    switch (why) {
    case SAN_LS_TIME:
        info->status = SAN_E_INTERRUPTED;
        snprintf(m, sz, "time limit of %g s reached after %ld iterations (%s); raise "
                 "--time-limit", time_limit, iter, v);
        break;
    case SAN_LS_INTR:
        info->status = SAN_E_INTERRUPTED;
        snprintf(m, sz, "interrupted after %ld iterations (%s)", iter, v);
        break;
    default:
        snprintf(m, sz, "not converged after %ld iterations (%s)%s%s", iter, v,
                 hint ? "; " : "", hint ? hint : "");
        break;
    }
}

void num_verdict_aggregation(san_solve_info *info, const char *who, long cycles,
                             const char *part, double err, double tol, const char *hint)
{
    snprintf(info->msg, sizeof info->msg, "the answer of %s fails the aggregation test after "
             "%ld refinement cycles: over %s its error is %.2e (tol %.2e)%s%s", who, cycles,
             part, err, tol, hint ? "; " : "", hint ? hint : "");
}

void num_ls_stop_say(num_ls *c, num_ls_stop why, long iter, const char *what,
                     double value, const char *hint)
{
    num_verdict_stop(c->info, why, c->o->time_limit, iter, what, value, hint);
}

void num_ls_stop_msg(num_ls *c, num_ls_stop why, long iter, double best,
                     const char *hint)
{
    num_ls_stop_say(c, why, iter, "best residual", best, hint);
}

/* The methods a refusal may advise, in the order they are worth
 * trying: on the sparse storage the direct solve first (it answers
 * whatever the conditioning when it fits), on the descriptor the
 * aggregation first (the sparse storage's methods are advised after). */
static const san_method sparse_alternatives[] = {
    SAN_M_DIRECT, SAN_M_ML, SAN_M_IAD, SAN_M_GMRES, SAN_M_BICGSTAB, SAN_M_GS
};
static const san_method kron_alternatives[] = {
    SAN_M_IAD, SAN_M_GMRES, SAN_M_BICGSTAB
};
#define ADVISED_METHODS 2

const char *num_ls_advice(const num_ls *c, char *buf, size_t sz)
{
    const int sparse = c->op && c->op->rows;
    const san_method *alt = sparse ? sparse_alternatives : kron_alternatives;
    const int nalt = sparse ? (int)(sizeof sparse_alternatives / sizeof *alt)
                            : (int)(sizeof kron_alternatives / sizeof *alt);
    const char *pick[ADVISED_METHODS];
    int np = 0;
    for (int i = 0; i < nalt && np < ADVISED_METHODS; i++)
        if (alt[i] != c->info->method && !(c->tried & (1u << alt[i])))
            pick[np++] = san_method_name(alt[i]);
    const char *sp = sparse ? "" : np > 0 ? ", or --storage sparse (direct, ml)"
                                          : "--storage sparse (direct, ml)";
    if (np == 0)
        snprintf(buf, sz, "try %sraise --max-iter, or a larger --tol", sparse ? "" : sp);
    else if (np == 1)
        snprintf(buf, sz, "try --method %s%s", pick[0], sp);
    else
        snprintf(buf, sz, "try --method %s or %s%s", pick[0], pick[1], sp);
    if (np == 0 && !sparse)
        snprintf(buf, sz, "try %s, raise --max-iter, or a larger --tol", sp);
    return buf;
}

/* Where the first clause of advice starts in s, or NULL. */
static char *advice_clause(char *s)
{
    static const char *const sep[] = { "; try ", ": try ", "; raise --" };
    char *first = NULL;
    for (size_t i = 0; i < sizeof sep / sizeof *sep; i++) {
        char *t = strstr(s, sep[i]);
        if (t && (!first || t < first))
            first = t;
    }
    return first;
}

void num_ls_note_answered(char *note)
{
    char *t;
    while ((t = advice_clause(note)) != NULL) {
        /* the clause ends at the parenthesis that closes a quote it is
         * in (its own parentheses are skipped), or at the end */
        char *e = t + 2;
        int depth = 0;
        for (; *e; e++) {
            if (*e == '(')
                depth++;
            else if (*e == ')' && depth-- == 0)
                break;
        }
        memmove(t, e, strlen(e) + 1);
    }
}
