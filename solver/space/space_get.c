/*
 * space_get.c - a state space made, freed and read through accessors
 * (issue 30 item 4), for callers that do not see san_space's layout
 * (solver/space/space_int.h): the command's --vector writer, a program
 * that builds a space with san_space_build.
 */
#include <stdlib.h>
#include "san.h"
#include "solver/space/space_int.h"

san_space *san_space_new(void)
{
    return calloc(1, sizeof(san_space));
}

void san_space_free(san_space *sp)
{
    if (!sp)
        return;
    space_clear(sp);
    free(sp);
}

const san_model *san_space_model(const san_space *sp)
{
    return sp->m;
}

int64_t san_space_states(const san_space *sp)
{
    return sp->n;
}

const int64_t *san_space_index(const san_space *sp)
{
    return sp->index;
}
