/*
 * status.c - how the command fails: exit statuses, usage errors, the
 * failed variants of a sweep, the terminal progress is shown on.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tool/tool.h"

int tool_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "san %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nsee 'san %s --help'\n", cmd);
    return EXIT_USAGE;
}

int tool_stderr_is_tty(void)
{
    return isatty(2);
}

int tool_exit_status(san_status st)
{
    switch (st) {
    case SAN_OK:
        return EXIT_OK;
    case SAN_E_MODEL:
    case SAN_E_USAGE:
    case SAN_E_LIMIT:
    case SAN_E_INPUT:
        return EXIT_USAGE;
    default:
        return EXIT_FAIL;
    }
}

/* The most failed variants named one by one: a sweep of thousands
 * says a few and counts the rest (every row has its error). */
#define FAILED_SHOWN 3

int tool_say_failed(const char *cmd, const char *what, const char *label, const char *error,
                   int *said)
{
    if ((*said)++ < FAILED_SHOWN)
        fprintf(stderr, "san %s: %s%s%s failed: %s\n", cmd, what, label ? " " : "",
                label ? label : "", error ? error : "no reason given");
    return EXIT_FAIL;
}

void tool_say_failed_end(const char *cmd, const char *what, int said)
{
    if (said > FAILED_SHOWN)
        fprintf(stderr, "san %s: and %d more %ss failed (see their rows)\n", cmd,
                said - FAILED_SHOWN, what);
}

int tool_say_failed_variants(const char *cmd, const san_sweep *s)
{
    int said = 0;
    for (int v = 0; v < s->nvariants; v++)
        if (!s->rows[v].ok) {
            char *label = san_sweep_label(s, v, -1);
            tool_say_failed(cmd, "variant", label, s->rows[v].error, &said);
            free(label);
        }
    tool_say_failed_end(cmd, "variant", said);
    return said ? EXIT_FAIL : EXIT_OK;
}
