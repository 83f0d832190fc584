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

/* Below this many product states auto builds the sparse generator
 * without a prediction (rule "small"). */
#define STORAGE_SMALL_PRODUCT 32768

/* The rule's constants (storage_choice.c says why these). */
#define STORAGE_MEM_SHARE 0.8   /* "fits": predicted peak <= this x budget */
#define STORAGE_TIME_SLACK 1.5  /* "smaller": within this factor in time */
#define STORAGE_MEM_GAIN 3.0    /* ... and at least this many times smaller */

/* Predicted peak bytes and seconds of each storage (c->m_*, c->t_*)
 * from c->states, c->nonzeros, c->kron_bytes and c->map_bytes. */
void storage_predict(san_storage_choice *c);

/* The pick and the rule from c's predictions and c->budget. */
void storage_rule(san_storage_choice *c);

#endif
