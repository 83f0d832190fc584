/*
 * fuzz_load.h - what both fuzz targets do first: the input bytes through
 * san_model_load exactly as `san check` sends a file (NUL-terminated copy,
 * a san_diag quoting the source, PEPS warnings on), the diagnostics
 * printed to /dev/null.  Included by one target each, hence static.
 */
#ifndef SAN_FUZZ_LOAD_H
#define SAN_FUZZ_LOAD_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "san.h"

static FILE *devnull;

/* The compiled model (NULL when it does not compile); *text receives the
 * copy of the input, to free after the model (NULL: out of memory). */
static san_model *fuzz_load(const uint8_t *data, size_t size, char **text)
{
    if (!devnull && !(devnull = fopen("/dev/null", "w")))
        abort();
    *text = malloc(size + 1);
    if (!*text)
        return NULL;
    if (size)
        memcpy(*text, data, size);
    (*text)[size] = '\0';
    san_diag d;
    san_diag_init(&d, "fuzz.san", *text, size);
    san_load_opts opt;
    san_load_opts_default(&opt);
    opt.peps_warnings = 1;
    san_model *m = san_model_load(*text, size, &d, &opt);
    san_diag_print(&d, devnull, 0);
    san_diag_clear(&d);
    return m;
}

#endif
