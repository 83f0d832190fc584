/*
 * messages.c - what the exploration says (messages.h): a leaf of
 * solver/space/.
 */
#include <stdio.h>
#include "solver/space/messages.h"

void space_say_no_state(san_diag *d)
{
    san_diag_add(d, SAN_ERROR, 0, 0, "the reachability function accepts no state");
}

void space_say_undeclared(san_diag *d, int64_t n)
{
    san_diag_add(d, SAN_WARNING, 0, 0, "%lld reached states are rejected by the reachability "
                 "function; they are kept (the function should accept them)", (long long)n);
}

const char *space_max_states_text(char *buf, size_t size, int64_t max)
{
    snprintf(buf, size, "more than %lld reachable states (--max-states)", (long long)max);
    return buf;
}
