/*
 * names.c - the names a PRISM export gives the model's automata, local
 * states, results and events: PRISM identifiers ([A-Za-z_][A-Za-z0-9_]*),
 * none of PRISM's keywords, no two alike.
 *
 * Making a name an identifier (exp_ident) loses information: replica
 * "P[1]" and automaton "P_1" both give P_1, lumped classes "M[1,3..5]"
 * and "M[1,3,5]" both give M_1_3_5, and the label of A_b's state c is
 * that of A's state b_c.  Two things sharing a PRISM name would merge two
 * variables or two labels, silently, so every name is made unique in one
 * table, in a fixed order (automata, then their labels, then the reward
 * structures, each in model order), which makes the names reproducible:
 *   - the identifier of the name (for a label: the automaton's PRISM
 *     name, '_', the identifier of the state);
 *   - a PRISM keyword ("const", "init", "true", ...) gets a '_' after it;
 *   - a name already given gets "_2", "_3", ... the first one free.
 * The map file (san_export_prism_map) lists what became of each name.
 */
#include <stdlib.h>
#include <string.h>
#include "solver/export/export_int.h"
#include "lang/model_int.h"

/* PRISM's reserved words (its manual, "Modules and variables", the union
 * of the lists of PRISM 3 to 4.8), and "deadlock", its built-in label. */
static const char *const prism_keywords[] = {
    "A", "bool", "C", "ceil", "clock", "const", "ctmc", "deadlock", "double", "dtmc", "E",
    "endinit", "endinvariant", "endmodule", "endobservables", "endrewards", "endsystem", "F",
    "false", "filter", "floor", "formula", "func", "G", "global", "I", "init", "int",
    "invariant", "label", "lts", "max", "mdp", "min", "module", "nondeterministic",
    "observable", "observables", "of", "P", "path", "Pmax", "Pmin", "pomdp", "popta",
    "prob", "probabilistic", "pta", "R", "rate", "rewards", "Rmax", "Rmin", "S",
    "smg", "stochastic", "system", "true", "U", "W", "X",
};

int exp_prism_keyword(const char *s)
{
    for (size_t k = 0; k < sizeof prism_keywords / sizeof *prism_keywords; k++)
        if (!strcmp(s, prism_keywords[k]))
            return 1;
    return 0;
}

/* ---- the names given so far: a set of strings (open addressing) ---- */

typedef struct {
    char **slot;
    size_t cap, n;
} name_set;

static size_t hash(const char *s)
{
    size_t h = 1469598103934665603u;        /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static char **find(const name_set *t, const char *s)
{
    size_t i = hash(s) & (t->cap - 1);
    while (t->slot[i] && strcmp(t->slot[i], s))
        i = (i + 1) & (t->cap - 1);
    return &t->slot[i];
}

/* s taken into the set (which does not own it): 0, or -1 out of memory. */
static int add(name_set *t, char *s)
{
    if (2 * (t->n + 1) > t->cap) {
        name_set u = { calloc(t->cap ? 2 * t->cap : 64, sizeof *u.slot),
                       t->cap ? 2 * t->cap : 64, t->n };
        if (!u.slot)
            return -1;
        for (size_t i = 0; i < t->cap; i++)
            if (t->slot[i])
                *find(&u, t->slot[i]) = t->slot[i];
        free(t->slot);
        *t = u;
    }
    *find(t, s) = s;
    t->n++;
    return 0;
}

/* The name for base (an identifier), unique in t and added to it:
 * malloc'd, NULL when out of memory. */
static char *unique(name_set *t, const char *base)
{
    const size_t len = strlen(base);
    char *s = malloc(len + 24);
    if (!s)
        return NULL;
    memcpy(s, base, len + 1);
    if (exp_prism_keyword(s))
        strcpy(s + len, "_");
    const size_t stem = strlen(s);
    for (long k = 2; t->cap && *find(t, s); k++)
        snprintf(s + stem, 24, "_%ld", k);
    if (add(t, s) != 0) {
        free(s);
        return NULL;
    }
    return s;
}

/* name as an identifier, malloc'd (exp_ident: at most one more byte
 * than the name, for a leading digit). */
static char *ident(const char *name)
{
    const size_t n = strlen(name) + 2;
    char *b = malloc(n);
    return b ? exp_ident(name, b, n) : NULL;
}

/* ---- the table ---- */

void exp_names_free(exp_names *nm)
{
    for (int i = 0; nm->var && i < nm->nvar; i++)
        free(nm->var[i]);
    for (int i = 0; nm->label && i < nm->nlabel; i++)
        free(nm->label[i]);
    for (int i = 0; nm->reward && i < nm->nreward; i++)
        free(nm->reward[i]);
    free(nm->var);
    free(nm->label);
    free(nm->first);
    free(nm->reward);
    free(nm->rew_what);
    memset(nm, 0, sizeof *nm);
}

/* The reward structures: the results that are expectations over the
 * states (a derived result is computed from other results: no state
 * has a value of it), then every event's throughput. */
static int list_rewards(const san_model *m, exp_names *nm)
{
    nm->rew_what = malloc((m->nres + m->nev + 1) * sizeof *nm->rew_what);
    if (!nm->rew_what)
        return -1;
    for (int r = 0; r < m->nres; r++)
        if (!m->res[r].derived)
            nm->rew_what[nm->nreward++] = r;
    for (int e = 0; e < m->nev; e++)
        nm->rew_what[nm->nreward++] = m->nres + e;
    return 0;
}

/* Each name of the table, in the fixed order. */
static int name_all(const san_model *m, exp_names *nm, name_set *t)
{
    for (int a = 0; a < m->naut; a++) {
        char *b = ident(m->aut[a].name);
        nm->var[a] = b ? unique(t, b) : NULL;
        free(b);
        if (!nm->var[a])
            return -1;
    }
    for (int a = 0; a < m->naut; a++)
        for (int s = 0; s < m->aut[a].nstates; s++) {
            char *st = ident(m->aut[a].states[s]);
            char *b = st ? malloc(strlen(nm->var[a]) + strlen(st) + 2) : NULL;
            char **l = &nm->label[nm->first[a] + s];
            if (b)
                sprintf(b, "%s_%s", nm->var[a], st);
            *l = b ? unique(t, b) : NULL;
            free(st);
            free(b);
            if (!*l)
                return -1;
        }
    for (int k = 0; k < nm->nreward; k++) {
        const int w = nm->rew_what[k];
        char *b = ident(w < m->nres ? m->res[w].name : m->ev[w - m->nres].name);
        nm->reward[k] = b ? unique(t, b) : NULL;
        free(b);
        if (!nm->reward[k])
            return -1;
    }
    return 0;
}

int exp_names_make(const san_model *m, exp_names *nm)
{
    memset(nm, 0, sizeof *nm);
    nm->nvar = m->naut;
    nm->first = malloc((m->naut + 1) * sizeof *nm->first);
    if (!nm->first)
        return -1;
    nm->first[0] = 0;
    for (int a = 0; a < m->naut; a++)
        nm->first[a + 1] = nm->first[a] + m->aut[a].nstates;
    nm->nlabel = nm->first[m->naut];
    nm->var = calloc(m->naut + 1, sizeof *nm->var);
    nm->label = calloc(nm->nlabel + 1, sizeof *nm->label);
    name_set t = { NULL, 0, 0 };
    int rc = nm->var && nm->label && list_rewards(m, nm) == 0 ? 0 : -1;
    if (rc == 0)
        nm->reward = calloc(nm->nreward + 1, sizeof *nm->reward);
    if (rc == 0 && nm->reward)
        rc = name_all(m, nm, &t);
    else
        rc = -1;
    free(t.slot);           /* the strings belong to nm */
    if (rc != 0)
        exp_names_free(nm);
    return rc;
}
