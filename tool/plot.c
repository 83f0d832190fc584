/*
 * plot.c - the plot options every command that plots shares.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tool/tool.h"

void tool_plot_init(tool_plot *p)
{
    /* all 0: nothing given (san_plot_ex reads 0 as the default page) */
    memset(p, 0, sizeof *p);
}

int tool_plot_check(const char *cmd, const char *file, const tool_plot *p)
{
    const san_plot_opts *o = &p->look;
    const char *given = o->title ? "--title" : o->xlabel ? "--xlabel" : o->ylabel ? "--ylabel"
                      : o->legend_title ? "--legend-title" : o->logx ? "--logx"
                      : o->logy ? "--logy" : o->width ? "--size" : o->dpi ? "--dpi" : NULL;
    if (given && !file)
        return tool_usage_error(cmd, "%s: only with --plot FILE", given);
    return 0;
}

int tool_plot_table(const char *file, const tool_plot *p, int asked)
{
    return !file || p->table || asked;
}

int tool_plot_status(int rc)
{
    return rc == 0 ? EXIT_OK : rc == -2 ? EXIT_USAGE : EXIT_FAIL;
}
