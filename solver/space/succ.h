/*
 * succ.h - the transitions out of one global state (internal to libsan).
 *
 * The exploration, the generator and the throughputs all ask the same
 * question: from global state s, which events are enabled, at what rate,
 * and where do they lead with what probability?  This module answers it
 * with tables built once, so the per-state work is a few table lookups
 * and the evaluation of the functional rates and probabilities.
 */
#ifndef SAN_SUCC_H
#define SAN_SUCC_H

#include <stdint.h>
#include "san.h"

typedef struct {
    int64_t to;             /* successor's mixed-radix index */
    double rate;
    int event;
} space_arc;

typedef struct {
    space_arc *v;
    int n, cap;
} space_arcs;

/* An invalid rate or routing met while listing a state's transitions. */
typedef enum { SUCC_RATE, SUCC_PROB_RANGE, SUCC_PROB_SUM } succ_problem_kind;
typedef struct {
    succ_problem_kind kind;
    int event;
    int aut, from;          /* SUCC_PROB_*: whose routing, from which local state */
    double value;           /* the rate, the probability, the sum */
} succ_problem;

/* The message of problem p met in state s, without its position:
 * "rate of event 'd' is negative (-1) in state (P[0]:idle ...)"; a
 * routing that sums short of 1 where a positional `to` left its block
 * says so and suggests `from`. */
void succ_problem_text(const san_model *m, const succ_problem *p, const int *s, char *buf,
                       size_t n);
/* Its place in the text: the rate, or the first label of the routing
 * (where.h); 0 when unknown. */
int succ_problem_where(const san_model *m, const succ_problem *p, int *line, int *col);

typedef struct succ_ctx succ_ctx;
struct succ_ctx {
    const san_model *m;
    /* Audit (san check): when report is set, an invalid rate or
     * routing goes to it and the event is skipped there (its invalid
     * outcomes only, for a sum that is not 1), instead of ending the
     * enumeration with -2: the listing goes on, so that one pass finds
     * every problem and the states beyond them. */
    void (*report)(void *ctx, const succ_problem *p, const int *s);
    void *report_ctx;
    int err_line, err_col;  /* after -2: where the rate or routing at
                               fault is written (0: nowhere) */
    /* range[e][2 * (off[e][k] + ls)] .. [+1]: transitions of event e
     * leaving local state ls of its k-th participant, as indices into
     * that automaton's tr[] array. */
    int32_t **range;
    int32_t **off;
    char *functional_prob;  /* per event: some probability reads the state */
    int *syn, nsyn;         /* the synchronizing events */
    /* Copies of a replicated event share one rate expression: within one
     * state it is evaluated once.  rate_slot[e] names the expression,
     * slot_val/slot_gen cache its value for the state of generation gen. */
    int *rate_slot;
    double *slot_val;
    uint64_t *slot_gen, gen;
    /* Constant rates and probabilities are read from these (NaN: the
     * expression reads the state).  A functional probability is cached
     * per state like a rate: the replicas of an automaton share the
     * expression, so pslot[a][t] names it and pslot_val/gen hold it. */
    double *crate;          /* per event */
    double **cprob;         /* [automaton][transition] */
    int **pslot;            /* [automaton][transition]: -1 constant */
    double *pslot_val;
    uint64_t *pslot_gen;
    /* The local events leaving each local state, precomputed: groups
     * lg[a][lgstart[a][ls] ..] of transitions tr[t0 .. t1) of one event,
     * and delta[a][t] = (to - from) * stride[a], the index change. */
    struct succ_group { int32_t event, t0, t1, sig; } **lg;
    int32_t **lgstart;
    int64_t **delta;
    /* Groups whose outcomes all have functional probabilities, read from
     * the same probability slots in the same order (the replicas of an
     * automaton), share a signature sig >= 0: once one of them has been
     * checked in a state (sig_gen == gen), the others need no check. */
    uint64_t *sig_gen;
    int maxparts;
    int *choice;            /* scratch for synchronized outcomes */
    int *base;              /* per participant: its probabilities in pbuf */
    int *cnt;               /* per participant: its outcomes in this state */
    double *pbuf;           /* outcome probabilities of the event at hand */
    int pbuf_used, pbuf_cap;
};

int  succ_init(succ_ctx *c, const san_model *m);
void succ_free(succ_ctx *c);

/* The most transitions out of one state, from the model alone: per
 * event, the product over its participants of the most outcomes from
 * one local state (2^N for N replicas with a two-way routing on one
 * synchronizing event), summed over the events.  *event (when not NULL)
 * gets the event with the largest product and *event_fanout that
 * product (-1 and 0 without events).  The one place this is computed:
 * `san check` prints it, the exploration sizes its pieces and refuses
 * by it.  One pass over the transitions. */
double succ_fanout(const san_model *m, int *event, double *event_fanout);

/* Where the enumeration of one state's transitions stands, so that a
 * state with millions of them is listed in bounded pieces: the next
 * item (automaton a < naut: its local events; naut + k: the k-th
 * synchronizing event) and the outcome combinations of that event
 * already listed.  Zero it to start a state. */
typedef struct {
    int item;
    int64_t done;
} succ_cursor;

/* -2 with a message naming the state and its events when the rates of
 * arcs from..n of out (one whole state) sum beyond the largest double:
 * the generator's diagonal would be infinite.  0 otherwise. */
int succ_check_exit_rate(const succ_ctx *c, const int *s, int64_t idx, const space_arcs *out,
                         int from, char *err, size_t errlen);

/* Appends transitions out of s (index idx) to out, from *cur on, and
 * stops once at least max outcomes were looked at (max <= 0: none;
 * an automaton's local events are never split, so a piece may pass max
 * by one automaton's transitions).  Returns 0 when the state is done,
 * 1 when more remain (*cur says where), -1 out of memory, or -2 with a
 * message when a functional rate or probability is invalid there. */
int succ_enumerate_part(succ_ctx *c, const int *s, int64_t idx, succ_cursor *cur,
                        int64_t max, space_arcs *out, char *err, size_t errlen);

/* Every transition out of s at once (for callers whose states have few:
 * see succ_fanout).  0, -1 or -2 as above. */
int succ_enumerate(succ_ctx *c, const int *s, int64_t idx, space_arcs *out,
                   char *err, size_t errlen);

/* Rate of event e in s if it is enabled there, else 0.  Rates are cached
 * per state: call succ_new_state before asking about another state. */
double succ_event_rate(succ_ctx *c, int e, const int *s);
void succ_new_state(succ_ctx *c);

#endif
