/*
 * oom.h - the front end's one policy for running out of memory.
 *
 * Compiling a model allocates in hundreds of places (the syntax tree,
 * the compiled code, the tables of the semantic pass); checking each
 * allocation and unwinding by hand would double the front end for a
 * case that never happens with real models.  So, as Lua does, a load
 * sets a recovery point, and an allocation that fails jumps back to it:
 * san_model_compile then frees what the passes had built (each pass
 * registers its cleanup) and returns SAN_E_NOMEM with a diagnostic.
 * Nothing in the front end aborts the process.
 */
#ifndef SAN_LANG_OOM_H
#define SAN_LANG_OOM_H

#include <setjmp.h>
#include <stddef.h>

typedef struct lang_oom {
    jmp_buf env;
    void (*cleanup)(void *ctx);     /* frees a pass's partial state */
    void *ctx;
} lang_oom;

/* Back to the recovery point of the load. */
_Noreturn void lang_oom_throw(lang_oom *o);
/* realloc, calloc and strdup that never return NULL. */
void *lang_realloc(lang_oom *o, void *p, size_t size);
void *lang_calloc(lang_oom *o, size_t n, size_t size);
char *lang_strdup(lang_oom *o, const char *s);

/* Tests: the n-th of this thread's front-end allocations from now
 * fails (n = 0: the next one); -1 turns it off. */
void lang_oom_inject(long n);

#endif
