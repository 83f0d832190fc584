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
    /* the library's defaults: what tool_plot_check reads as not given */
    memset(p, 0, sizeof *p);
    san_plot_opts_default(&p->look);
}

int tool_plot_check(const char *cmd, const char *file, const tool_plot *p)
{
    /* a flag is given where the look differs from the defaults it
     * started from (tool_plot_init): a flag that repeats a default
     * (--dpi 96) changes nothing, with --plot or without */
    const san_plot_opts *o = &p->look;
    san_plot_opts d;
    san_plot_opts_default(&d);
    const char *given = o->title != d.title ? "--title" : o->xlabel != d.xlabel ? "--xlabel"
                      : o->ylabel != d.ylabel ? "--ylabel"
                      : o->legend_title != d.legend_title ? "--legend-title"
                      : o->logx != d.logx ? "--logx" : o->logy != d.logy ? "--logy"
                      : o->width != d.width || o->height != d.height ? "--size"
                      : o->dpi != d.dpi ? "--dpi" : NULL;
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
