/*
 * structural.c - the constants of a generated model that its structure
 * follows from (N_slaves: the Slave automata; K_buffer: the states of
 * Buffer), and the template flag that sets each.  -D can change the
 * value of such a constant but not the automata written from it (the
 * reachability function then accepts no state): the command regenerates
 * instead, or says which flag to regenerate with.
 */
#include <ctype.h>
#include <string.h>
#include "san/gen.h"

typedef struct {
    const char *tmpl;
    const char *name;       /* the constant, or its prefix before a number */
    int numbered;           /* name is a prefix: P_1, P_2, ... */
    const char *flag;
    int scalar;             /* the flag's value is the constant's */
} structural;

/* Most specific first: K_0 before K_<i>. */
static const structural table[] = {
    { "ms", "N_slaves", 0, "--slaves", 1 },
    { "ms", "K_buffer", 0, "--buffer", 1 },
    { "ms", "D_slaves", 0, "--slaves", 0 },
    { "ms", "D_buffer", 0, "--buffer", 0 },
    { "ms", "D_work", 0, "--slices", 0 },
    { "pipeline", "k_ph", 0, "--phases", 1 },
    { "pipeline", "D_ph", 0, "--phases", 0 },
    { "pipeline", "K_0", 0, "--source", 0 },
    { "pipeline", "P_", 1, "--replicas", 0 },
    { "pipeline", "K_", 1, "--buffers", 0 },
    { "pipeline", "D_", 1, "--buffers", 0 },
};

static int all_digits(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return 0;
    return 1;
}

const char *san_gen_structural(const char *tmpl, const char *name, int *scalar)
{
    for (size_t i = 0; tmpl && name && i < sizeof table / sizeof table[0]; i++) {
        const structural *t = &table[i];
        size_t k = strlen(t->name);
        if (strcmp(t->tmpl, tmpl))
            continue;
        if (t->numbered ? !strncmp(name, t->name, k) && all_digits(name + k)
                        : !strcmp(name, t->name)) {
            if (scalar)
                *scalar = t->scalar;
            return t->flag;
        }
    }
    return NULL;
}
