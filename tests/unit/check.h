/*
 * check.h - the counting CHECK of the C test programs: a failed check
 * prints its file, line and message on stderr; n_pass and n_fail are
 * the program's counters (exit status 1 when n_fail > 0).
 */
#ifndef SAN_TEST_CHECK_H
#define SAN_TEST_CHECK_H

#include <stdarg.h>
#include <stdio.h>

static int n_pass, n_fail;

#define CHECK(cond, ...) check_((cond), __FILE__, __LINE__, __VA_ARGS__)

static void check_(int ok, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void check_(int ok, const char *file, int line, const char *fmt, ...)
{
    if (ok) {
        n_pass++;
        return;
    }
    n_fail++;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL %s:%d: ", file, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

#endif
