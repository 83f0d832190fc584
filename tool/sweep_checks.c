/*
 * sweep_checks.c - san sweep's options that name what only the variants
 * know (their results, their parameters), checked before anything is
 * solved: a typo in --index or --y refused at once, not after the run.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "tool/tool.h"

int tool_sweep_check_index(const san_sweep *s, const char *list, char ***names, int *n)
{
    char *copy = strdup(list);
    *names = calloc(strlen(list) + 2, sizeof **names);
    *n = 0;
    if (!copy || !*names) {
        free(copy);
        return EXIT_FAIL;
    }
    for (char *t = strtok(copy, ","); t; t = strtok(NULL, ",")) {
        if (san_sweep_find_result(s, t) < 0) {
            tool_usage_error("sweep", "--index: unknown index '%s' (see the results of the model)", t);
            free(copy);
            return EXIT_USAGE;
        }
        (*names)[(*n)++] = strdup(t);
    }
    free(copy);
    return 0;
}

int tool_sweep_check_plot(const san_sweep *s, const char *plot, const char *x, const char *y,
                         const char *series)
{
    const char *dot = strrchr(plot, '.');
    if (!dot || (strcasecmp(dot, ".svg") && strcasecmp(dot, ".png") && strcasecmp(dot, ".pdf")))
        return tool_usage_error("sweep", "--plot: '%s': the file name must end in .svg, .png or .pdf",
                               plot);
    int a = san_sweep_find_axis(s, x);
    if (a < 0)
        return tool_usage_error("sweep", "--x: unknown parameter '%s' (a swept flag without "
                               "dashes, e.g. slaves, or a -D name)", x);
    if (!s->spec.axis[a].numeric)
        return tool_usage_error("sweep", "--x: '%s' is not numeric; use it as --series", x);
    const char *fields[] = { "reachable_states", "time_s", "iterations" };
    int known = san_sweep_find_result(s, y) >= 0;
    for (int i = 0; i < 3; i++)
        known |= !strcmp(y, fields[i]);
    if (!known)
        return tool_usage_error("sweep", "--y: unknown index '%s' (a result of the model, or "
                               "reachable_states, time_s, iterations)", y);
    char *copy = series ? strdup(series) : NULL;
    for (char *t = copy ? strtok(copy, ",") : NULL; t; t = strtok(NULL, ","))
        if (san_sweep_find_axis(s, t) < 0) {
            tool_usage_error("sweep", "--series: unknown parameter '%s'", t);
            free(copy);
            return EXIT_USAGE;
        }
    free(copy);
    return 0;
}
