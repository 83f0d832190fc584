/*
 * storage_choice.h - --storage auto by predicted time and memory
 * (issue 27 item 4; internal to libsan: the pipeline, analyze.c, and
 * tests/unit/test_storage_choice).
 *
 * The inputs are sizes only (san_storage_choice: states, nonzeros,
 * the descriptor's estimate, the state map, the budget), so that the
 * choice is the same for the same sizes whatever the machine's load.
 */
#ifndef SAN_STORAGE_CHOICE_H
#define SAN_STORAGE_CHOICE_H

#include "san.h"

/* Up to this many product states auto builds the sparse generator
 * without a prediction (rule "small"): the prediction's states-only
 * exploration and sample cost tss6 (73,629 states, sparse picked) 8%
 * more CPU (0.64 s against 0.59 s, medians of 7 interleaved runs, load
 * 10) for a choice between 38 and 18 MiB; on tss9 (1,987,983 states)
 * the states-only exploration is 0.26 s of a 13 s run. */
#define STORAGE_SMALL_PRODUCT 131072

/* The rule's constants (storage_choice.c says why these). */
#define STORAGE_MEM_SHARE 0.8   /* "fits": predicted peak <= this x budget */
#define STORAGE_TIME_SLACK 1.75 /* "smaller": within this factor in time */
#define STORAGE_MEM_GAIN 4.5    /* ... and at least this many times smaller */

/* Predicted peak bytes and seconds of each storage (c->m_*, c->t_*)
 * from c->states, c->nonzeros, c->kron_bytes and c->map_bytes. */
void storage_predict(san_storage_choice *c);

/* The pick and the rule from c's predictions and c->budget. */
void storage_rule(san_storage_choice *c);

#endif
