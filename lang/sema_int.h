/*
 * sema_int.h - what the files of the semantic pass share (internal to
 * lang/): its tables, its allocation helpers (every allocation goes to
 * the load's recovery point: oom.h), the lookups of sema_lookup.c and
 * the expression compiler of sema_expr.c that the phases of sema.c use.
 */
#ifndef SAN_SEMA_INT_H
#define SAN_SEMA_INT_H

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lang/ast.h"
#include "lang/expr.h"
#include "lang/sema.h"
#include "lang/oom.h"
#include "lang/symtab.h"
#include "base/services.h"
#include "lang/model_int.h"

/* ---------------------------------------------------------------- */
/* Tables of the pass                                                 */
/* ---------------------------------------------------------------- */

typedef struct {
    const ast_ident *ast;
    int visiting, done, bad;
    int is_dom, is_func;
    double value;
    int *dom, ndom;         /* domain values */
    int overridden;
    san_expr *fn;           /* a function's compiled code (model-owned) */
    int seen;               /* the last search of resolve_ident it was in, */
    int index, low, on_stack;   /* and its place there (sema_expr.c) */
} s_ident;

typedef struct {            /* one stt block (or single state) of a group */
    const ast_state *ast;
    int first;              /* local index of its first state */
    int *vals, n;           /* domain values; n == 1 and vals NULL: single */
    int *by_value;          /* positions sorted by value (dom_pos), lazily */
    int is_block;
} s_block;

typedef struct {            /* one `aut` declaration and its replicas */
    const ast_aut *ast;
    int first, n;           /* model automata first .. first+n-1 */
    int *vals;              /* replica domain values (NULL: not replicated) */
    int *by_value;          /* positions sorted by value (dom_pos), lazily */
    s_block *blocks;
    int nblocks, nstates;
} s_group;

/* Groups with more blocks than this find them in sema.blocks; fewer are
 * scanned (a table entry per block of 10^6 distinct automata would cost
 * more than the scan of a few names). */
#define SEMA_SCAN_BLOCKS 8

typedef struct {            /* one declared event, after e[dom] expansion */
    const ast_event *ast;
    char *name;
    int base;               /* index of the ast_event */
    int has_index, index;
    /* Automata that use it: appended as transitions are expanded
     * (repeats possible), sorted and made unique by finish_events. */
    int *users, nusers, capusers;
    int first_final, nfinal;        /* final events it became */
} s_event;

typedef struct {            /* a transition before event ids are final */
    int aut, from, ev, to;
    san_expr *prob;
    ast_pos pos;
} s_trans;

#define SEMA_HELD 64

typedef struct {
    ast_file *f;
    san_diag *d;
    san_model *m;
    const san_load_opts *opt;
    s_ident *ids;
    int nids;
    s_group *groups;
    int ngroups;
    s_event *evs;
    int nevs;
    s_trans *tr;
    int ntr, captr;
    int quiet;              /* suppress diagnostics (re-compiling) */
    int cur_result;         /* results before it may be named (derived) */
    int in_results;         /* compiling a result: thr() is allowed */
    lang_oom *oom;          /* the load's recovery point (oom.h) */
    san_model *model;       /* the model being built (m is set later) */
    /* Lookups by name (symtab.h): values index the arrays above. */
    symtab id_names;        /* identifier -> ids */
    symtab group_names;     /* automaton -> groups */
    symtab block_names;     /* (state, group) -> block of a large group */
    symtab event_names;     /* declared event -> f->events (first one) */
    symtab event_keys;      /* (event, index or NO_INDEX) -> evs */
    symtab result_names;    /* result -> f->results (first one) */
    /* The identifiers each identifier names: ref_to[ref_start[i] ..
     * ref_start[i + 1]) (built in ref, pairs); and what resolve_ident
     * uses to resolve them bottom up (sema_expr.c says why). */
    int (*ref)[2], nref, capref;
    int *ref_start, *ref_to;
    int (*dfs)[2], capdfs;
    int *scc, nscc, capscc;
    int *order, norder, caporder;
    int search, next_index, resolving;
    int warn_off;           /* an earlier phase failed: no more warnings */
    /* The index variable being expanded (aut C[i:N], syn e[k:N]) and its
     * value: a name compiles to it before any identifier (repl.c). */
    const char *bind_name;
    int bind_val;
    base_progress *progress; /* on stderr when the load takes a while */
    long ticks;
    /* Memory a phase holds in locals while it works (an expression being
     * compiled, the values of a domain): a stack, freed by sema_abandon
     * when an allocation fails meanwhile. */
    struct { void *p; int expr; } held[SEMA_HELD];
    int nheld;
    char suggestion[256];   /* the "did you mean" of the last message */
} sema;

static inline int hold(sema *S, void *p, int expr)
{
    if (S->nheld == SEMA_HELD)
        return -1;          /* deeper than any model nests: not tracked */
    S->held[S->nheld].p = p;
    S->held[S->nheld].expr = expr;
    return S->nheld++;
}

static inline void held_update(sema *S, int slot, void *p)
{
    if (slot >= 0)
        S->held[slot].p = p;
}

static inline void release(sema *S, int slot)
{
    if (slot >= 0)
        S->nheld = slot;
}

#define ERR(S, pos, ...) do { if (!(S)->quiet) \
    san_diag_add((S)->d, SAN_ERROR, (pos).line, (pos).col, __VA_ARGS__); } while (0)
#define WARN(S, pos, ...) do { if (!(S)->quiet && !(S)->warn_off) \
    san_diag_add((S)->d, SAN_WARNING, (pos).line, (pos).col, __VA_ARGS__); } while (0)

/* Allocations go through the load's recovery point (oom.h). */
static inline void *xcalloc(sema *S, size_t n, size_t size)
{
    return lang_calloc(S->oom, n, size);
}

static inline void *xrealloc(sema *S, void *p, size_t size)
{
    return lang_realloc(S->oom, p, size);
}

static inline char *xstrdup(sema *S, const char *s)
{
    return lang_strdup(S->oom, s);
}

/* Names are built by hand: snprintf took a third of the time of loading
 * 10^6 replicas (two calls per name, its positional-argument path). */
static inline char *put_int(char *p, int v)
{
    char d[12];
    int n = 0;
    unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
    do
        d[n++] = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *p++ = '-';
    while (n)
        *p++ = d[--n];
    return p;
}

/* "base[v]" */
static inline char *indexed_name(sema *S, const char *base, int v)
{
    size_t n = strlen(base);
    char *s = xcalloc(S, n + 15, 1);
    memcpy(s, base, n);
    char *p = put_int(s + n + 1, v);
    s[n] = '[';
    p[0] = ']';
    return s;
}

/* "event@automaton" */
static inline char *copy_name(sema *S, const char *event, const char *aut)
{
    size_t n = strlen(event), k = strlen(aut);
    char *s = xcalloc(S, n + k + 2, 1);
    memcpy(s, event, n);
    s[n] = '@';
    memcpy(s + n + 1, aut, k);
    return s;
}

static inline san_expr *pool_add(sema *S, san_expr *e)
{
    san_model *m = S->m;
    if (m->npool == m->cappool) {
        int h = hold(S, e, 1);      /* e is nobody's until it is in */
        m->cappool = m->cappool ? 2 * m->cappool : 64;
        m->pool = xrealloc(S, m->pool, m->cappool * sizeof *m->pool);
        release(S, h);
    }
    m->pool[m->npool++] = e;
    return e;
}

/* The key number of an event without an index (sema.event_keys). */
#define NO_INDEX INT64_MIN

/* A new phase: warnings stop once an earlier phase has reported an
 * error (they would mostly follow from it: an event whose transitions
 * were refused is "never used"); the progress line names the phase. */
static inline void begin_phase(sema *S, const char *what)
{
    S->warn_off = S->d->nerrors > 0;
    /* padded: a shorter line would leave the end of the last one */
    if (base_progress_draw(S->progress, 0, "checking the model: %-40s", what))
        S->progress->interval = 0.25;
}

/* Progress inside a phase: item i of n (the clock is read every 1024). */
static inline void tick(sema *S, const char *what, long i, long n)
{
    if (!S->progress->on || (++S->ticks & 1023))
        return;
    char at[64];
    snprintf(at, sizeof at, "%s %ld of %ld", what, i, n);
    if (base_progress_draw(S->progress, 0, "checking the model: %-40s", at))
        S->progress->interval = 0.25;
}

/* ---- sema_lookup.c: names (a leaf of the pass) ---- */
s_ident *find_ident(sema *S, const char *name);
s_group *find_group(sema *S, const char *name);
int event_declared(sema *S, const char *name);
s_group *group_of(sema *S, int a);
s_block *find_block(sema *S, s_group *G, const char *name);
int add_block_name(sema *S, s_group *G, int b);
const char *index_var_owner(sema *S, const char *name, ast_pos *at);

/* ---- sema_expr.c: constants, identifiers, expressions ---- */
int cmp_int(const void *x, const void *y);
san_expr *compile_one(sema *S, const ast_expr *e, int ctx_aut, int *div0);
int const_int(sema *S, const ast_expr *e, int *out, const char *what);
int eval_domain(sema *S, const ast_domain *dom, int **vals, int *n);
void collect_identifiers(sema *S);
void link_identifiers(sema *S);
void resolve_ident(sema *S, s_ident *id);
int resolve_aut(sema *S, const ast_ref *r);
int state_range(sema *S, int a, const ast_ref *r, int *lo, int *hi);
void check_peps(sema *S, const ast_expr *e, const char *what);

/* ---- repl.c: replicated events (index variables, e[i], e[N]) ---- */
typedef struct {            /* the events one label names */
    s_event **ev;           /* per_replica: ev[r] for replica r; else n events */
    int n, per_replica;
    int held;               /* its slot on the held stack (release it) */
} s_targets;
s_event *find_event(sema *S, const char *name, int has_index, int index);
s_event *label_event(sema *S, const ast_ref *r);
int label_targets(sema *S, s_group *G, const ast_ref *r, s_targets *t);
void check_index_var(sema *S, const ast_domain *dom, const char *what);

/* ---- sema_suggest.c: "; did you mean 'x'?" (or "") for a name that
 * is none of the kind expected there; the text lives until the next
 * call. ---- */
const char *suggest_ident(sema *S, const char *name, int domain);
const char *suggest_value(sema *S, const char *name, int ctx_aut);
const char *suggest_state(sema *S, const char *name, int a0, int a1);
const char *suggest_group_state(sema *S, const char *name, const s_group *G);
const char *suggest_automaton(sema *S, const char *name);
const char *suggest_event(sema *S, const char *name);
void suggest_add_states(san_suggest *s, const s_group *G);

#endif
