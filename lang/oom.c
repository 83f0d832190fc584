/*
 * oom.c - allocations of the front end that jump to the load's recovery
 * point when memory runs out (oom.h says why).
 */
#include <stdlib.h>
#include <string.h>
#include "lang/oom.h"

/* Fault injection for the tests (tests/unit/test_oom.c): the n-th allocation
 * from now fails; -1 (the default) none.  Per thread, so that a test
 * never disturbs another thread's load. */
static _Thread_local long countdown = -1;

void lang_oom_inject(long n)
{
    countdown = n;
}

static int injected_failure(void)
{
    if (countdown < 0)
        return 0;
    return countdown-- == 0;
}

_Noreturn void lang_oom_throw(lang_oom *o)
{
    longjmp(o->env, 1);
}

void *lang_realloc(lang_oom *o, void *p, size_t size)
{
    void *q = injected_failure() ? NULL : realloc(p, size ? size : 1);
    if (!q)
        lang_oom_throw(o);
    return q;
}

void *lang_calloc(lang_oom *o, size_t n, size_t size)
{
    void *p = injected_failure() ? NULL : calloc(n ? n : 1, size ? size : 1);
    if (!p)
        lang_oom_throw(o);
    return p;
}

char *lang_strdup(lang_oom *o, const char *s)
{
    char *p = injected_failure() ? NULL : strdup(s);
    if (!p)
        lang_oom_throw(o);
    return p;
}
