/*
 * diag_get.c - a san_diag for callers that do not see its layout (the
 * Python binding, issue 30 item 4): made and freed by the library, read
 * through accessors, so that a field added to san_diag cannot make a
 * binding read or write the wrong bytes.
 */
#include <stdlib.h>
#include "san.h"

san_diag *san_diag_new(const char *file, const char *src, size_t len)
{
    san_diag *d = malloc(sizeof *d);
    if (d) {
        san_diag_init(d, file, src, len);
        d->heap = 1;
    }
    return d;
}

void san_diag_free(san_diag *d)
{
    if (!d)
        return;
    san_diag_clear(d);
    if (d->heap)
        free(d);
}

void san_diag_delete(san_diag *d)
{
    san_diag_free(d);
}

int san_diag_count(const san_diag *d)
{
    return d->n;
}

const char *san_diag_file(const san_diag *d)
{
    return d->file;
}

const char *san_diag_message(const san_diag *d, int k, san_severity *sev, int *line, int *col)
{
    if (k < 0 || k >= d->n)
        return NULL;
    const san_diag_item *it = &d->items[k];
    if (sev)
        *sev = it->sev;
    if (line)
        *line = it->line;
    if (col)
        *col = it->col;
    return it->msg;
}
