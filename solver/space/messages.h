/*
 * messages.h - what the exploration says, in one place for every engine
 * (internal to libsan): the serial space (space.c, explore.c) and the
 * distributed one (solver/petsc/danalyze.c, dexplore.c) report the same
 * findings in the same words.
 */
#ifndef SAN_SPACE_MESSAGES_H
#define SAN_SPACE_MESSAGES_H

#include <stddef.h>
#include <stdint.h>
#include "san.h"

/* The refusal of a reachability function that accepts no state. */
void space_say_no_state(san_diag *d);
/* The warning for n reached states the function rejects (kept). */
void space_say_undeclared(san_diag *d, int64_t n);
/* The refusal past --max-states (max), as text: a rank's message
 * travels to every rank before it is said. */
const char *space_max_states_text(char *buf, size_t size, int64_t max);

#endif
