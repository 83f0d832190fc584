/*
 * lump_note.c - what an export of a lumped chain says about it: the
 * files that take comments (Matrix Market, DOT) carry it, so a reader of
 * the file alone knows that its states are occupancy vectors, not the
 * model's states.  One text for the command and the Python package.
 */
#include <stdio.h>
#include <stdlib.h>
#include "san/export.h"
#include "lang/model_int.h"

char *san_export_lump_note(const san_lumping *L, const san_model *m, int64_t states)
{
    if (!L)
        return NULL;
    char *note = NULL, count[64] = "";
    if (states >= 0)
        snprintf(count, sizeof count, ": %lld states", (long long)states);
    if (asprintf(&note, "san export: lumped %s into counts%s (the model as written has a "
                 "product of %s)\nstates are occupancy vectors, (s:k ...): k replicas in "
                 "local state s; --lump off: the chain as written",
                 san_lumping_summary(L), count, m->product_str) < 0)
        return NULL;
    return note;
}
