/*
 * util.c - small services every phase needs: reading input, the version.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "san.h"

const char *san_version(void)
{
    return PACKAGE_VERSION;
}

/* Read all of a stream; the text is NUL-terminated (NULs inside are kept
 * and *len counts them, so the lexer can reject them with a position). */
static char *read_stream(FILE *f, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    for (;;) {
        if (cap - n < 2) {
            char *p = realloc(buf, cap *= 2);
            if (!p) {
                free(buf);
                errno = ENOMEM;
                return NULL;
            }
            buf = p;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        free(buf);
        errno = EIO;
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

char *san_read_file(const char *path, size_t *len)
{
    if (strcmp(path, "-") == 0)
        return read_stream(stdin, len);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = read_stream(f, len);
    int saved = errno;
    fclose(f);
    errno = saved;
    return text;
}
