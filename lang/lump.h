/*
 * lump.h - exact lumping of interchangeable automata (issue 28): the
 * classes of replicas (lump_detect.c) and the lumped model in which each
 * class is one counter automaton over occupancy vectors (lump.c).
 *
 * Why a model-to-model transform: every engine downstream (sparse,
 * descriptor, transient, passage, export, PETSc, the checks) then works
 * on the lumped chain unchanged, and the full product is never built.
 */
#ifndef SAN_LUMP_H
#define SAN_LUMP_H

#include <stdint.h>
#include "san.h"
#include "lang/oom.h"

/* One class of interchangeable automata, lumped into a counter. */
typedef struct {
    int n;              /* members (replicas), >= 2 */
    int *members;       /* original automaton indices, ascending */
    int ns;             /* local states of a member */
    int counter;        /* the counter automaton in the lumped model */
    int64_t nk;         /* counter states: C(n + ns - 1, ns - 1) */
    int32_t *occ;       /* occ[k * ns + s]: members in local state s at
                           counter state k */
    int64_t *binom;     /* binomials for the ranks (lump_rank) */
} lump_class;

struct san_lumping {
    const san_model *orig;
    san_model *model;   /* the lumped model (owned) */
    int nclass;
    lump_class *cls;
    int *aut_class;     /* per original automaton: its class, or -1 */
    int *aut_map;       /* per original automaton: its lumped automaton */
    int *ev_map;        /* per original event: its lumped event */
    int *ev_div;        /* per original event: how many original events
                           share its lumped event (a family's size) */
    char *summary;      /* "Slave[1..64] (64 replicas of 3 states)" */
};

/* The classes of m: cls[a] (per automaton) is a class id; automata with
 * one id are interchangeable in every expression, event and transition
 * (the proof is the equality of their signatures, lump_detect.c).  Then
 * the validation of each class for the counter's construction; classes
 * that fail it get their members' ids made unique.  Returns the number
 * of ids; allocations through oom. */
int lump_classes(const san_model *m, int *cls, int *fam, lang_oom *oom, char *why,
                 size_t nwhy);
/* fam (per event, filled by lump_classes): the family of a per-replica
 * event of a lumped class (events of one family are the same event on
 * each member), or -1. */

/* The rank (counter state) of occupancy vector v of class C. */
int64_t lump_rank(const lump_class *C, const int32_t *v);

/* States of the lumped chain in the original model's terms (lump_state.c).
 * lump_state_map: original state s (a local state per original
 * automaton) into its lumped state t (per lumped automaton); scratch
 * holds C->ns entries of the largest class. */
void lump_state_map(const san_lumping *L, const int *s, int *t, int32_t *scratch);
/* log of the number of original states lumped state t stands for: the
 * product over the classes of the multinomials N! / prod_s n_s!. */
double lump_state_logcount(const san_lumping *L, const int *t);
/* The lumped index of original index idx, or -1 when idx is not a
 * state of the original product. */
int64_t lump_index_map(const san_lumping *L, int64_t idx, int *s, int *t, int32_t *scratch);
/* The largest class's local states (the scratch lump_state_map needs). */
int lump_max_ns(const san_lumping *L);

/* Event status with respect to a class: touches none, one member
 * (a per-replica event), all members, or some. */
enum { LUMP_EV_NONE, LUMP_EV_ONE, LUMP_EV_ALL, LUMP_EV_SOME };

#endif
