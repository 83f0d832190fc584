/*
 * grow.h - growing an array by doubling (internal to libsan).
 */
#ifndef SAN_GROW_H
#define SAN_GROW_H

#include <stdint.h>
#include <stdlib.h>

/* Grows *p (elements of size sz, capacity *cap) to hold need.  0, or -1
 * with *p and *cap untouched. */
static inline int grow(void **p, int64_t *cap, int64_t need, size_t sz)
{
    if (need <= *cap)
        return 0;
    int64_t c = *cap ? *cap : 1024;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * sz);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* Two arrays sharing one capacity *cap: grow both to hold need. */
static inline int grow2(void **p, size_t psz, void **q, size_t qsz, int64_t *cap,
                        int64_t need)
{
    int64_t c1 = *cap, c2 = *cap;
    if (grow(p, &c1, need, psz) < 0 || grow(q, &c2, need, qsz) < 0)
        return -1;
    *cap = c1;
    return 0;
}

#endif
