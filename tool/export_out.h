/*
 * export_out.h - san export's files (export_out.c): the library's
 * writers (include/san/export.h) through tool_write_output, one file or
 * PRISM's set of them.
 */
#ifndef TOOL_EXPORT_OUT_H
#define TOOL_EXPORT_OUT_H

#include "tool/tool.h"

typedef enum { EXP_MTX, EXP_STATES, EXP_PRISM, EXP_DOT, EXP_DOT_REACH } export_format;

/* One export: what is written and how. */
typedef struct {
    const san_model *m;
    const san_space *sp;
    const char *note;       /* lumped: what, for the formats with comments */
    export_format fmt;
    char part;              /* prism: 't', 's', 'l', 'r' (reward) or 'm' (map) */
    int reward;             /* prism 'r': the reward structure, from 0 */
    int64_t max_nodes;
    san_status st;          /* what the writer returned */
    char err[512];
} export_job;

/* The export into output (NULL or "-": standard output; prism: the
 * base name of its files): 0, or the exit status (said). */
int tool_export_write(export_job *j, const char *output);
/* No file of the export may be the model read (path): checked before
 * the chain is built, for -o FILE and for each of PRISM's files. */
int tool_export_refuse_overwrite(const char *output, export_format fmt, const san_model *m,
                                const char *path);

#endif
