/*
 * fuzz_args.h - what the flag-parser fuzz targets (fuzz_gen.c,
 * fuzz_sweep.c) do first: the input bytes as a command line, one
 * argument a line, the way a shell hands them over.  A line ends at a
 * newline or a NUL (no argument can hold a NUL); the text after the
 * last newline is an argument too.  The inputs are text files that read
 * as the command they stand for, and a regression input replays as
 *
 *     san gen $(cat FILE)          (when no line holds a blank)
 *
 * Included by one target each, hence static.
 */
#ifndef SAN_FUZZ_ARGS_H
#define SAN_FUZZ_ARGS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* More arguments than any command line the targets mean: the rest is
 * dropped (the flag parsers are linear, long inputs only slow them). */
enum { FUZZ_MAX_ARGS = 64 };

typedef struct {
    char *text;                 /* the copy the arguments point into */
    char *argv[FUZZ_MAX_ARGS + 1];
    int argc;
} fuzz_args;

/* 0, or -1 when out of memory.  fuzz_args_free releases it. */
static int fuzz_args_split(fuzz_args *a, const uint8_t *data, size_t size)
{
    a->argc = 0;
    a->text = malloc(size + 1);
    if (!a->text)
        return -1;
    if (size)
        memcpy(a->text, data, size);
    a->text[size] = '\0';
    char *p = a->text, *end = a->text + size;
    while (p <= end && a->argc < FUZZ_MAX_ARGS) {
        char *q = p;
        while (q < end && *q != '\n' && *q != '\0')
            q++;
        *q = '\0';
        /* a newline at the very end closes the last line, as in a file */
        if (q == end && p == end && a->argc > 0)
            break;
        a->argv[a->argc++] = p;
        p = q + 1;
    }
    a->argv[a->argc] = NULL;
    return 0;
}

static void fuzz_args_free(fuzz_args *a)
{
    free(a->text);
    a->text = NULL;
}

#endif
