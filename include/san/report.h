/*
 * san/report.h - a design study as one self-contained HTML page
 * (report/): the study file that lists the analyses, and the page that
 * shows their JSON reports as plots and tables (doc/report.md).
 */
#ifndef SAN_PUBLIC_REPORT_H
#define SAN_PUBLIC_REPORT_H

#include <stdio.h>
#include <stddef.h>
#include "san/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One analysis of a study: a `san` subcommand run with its arguments,
 * and what the page draws of its report. */
typedef struct {
    char *name;             /* the section's name: [sync-vs-async] */
    int line;               /* where the section starts in the study file */
    char *title;            /* NULL: the name */
    char *note;             /* a paragraph shown above the figures, or NULL */
    char *kind;             /* sweep, size-buffer, grain, compare */
    int nargs;
    char **args;            /* the words after the kind, as a shell splits them */
    char *x;                /* sweep: the parameter on the x axis, or NULL */
    char *plot;             /* the indices plotted, comma-separated, or NULL */
    char *series;           /* sweep: the parameters that make the curves, or NULL */
    char *log;              /* "x", "y", "xy" or NULL */
} san_study_analysis;

typedef struct {
    char *path;
    char *text;             /* the study file as read */
    size_t len;
    char *title;            /* NULL: the file's name */
    char *note;
    int n;
    san_study_analysis *a;
} san_study;

/* Reads and checks a study file.  SAN_E_MODEL with "FILE:LINE:COL:
 * what was expected" in err for a bad file, SAN_E_INPUT when it cannot be
 * read.  san_study_free releases what it holds, after a failure too. */
SAN_API san_status san_study_load(const char *path, san_study *st, char *err, size_t n);
SAN_API san_status san_study_parse(const char *path, const char *text, size_t len,
                                   san_study *st, char *err, size_t n);
SAN_API void san_study_free(san_study *st);

/* One analysis as run: the study's entry and its outcome. */
typedef struct {
    const san_study_analysis *a;
    int argc;
    char *const *argv;      /* the command line that ran ("san", kind, args..., "-f", "json") */
    int status;             /* its exit status */
    double seconds;
    const char *json;       /* its standard output: the -f json report (may be empty) */
    const char *log;        /* its standard error: warnings, errors */
    int nmodels;
    const char *const *model_name;  /* "ms --mode sync --slaves 2", a path */
    const char *const *model_text;  /* the .san text it solved */
} san_report_run;

typedef struct {
    const san_study *study; /* NULL: a page of one run */
    const char *title;
    const char *san_version;
    int argc;
    char *const *argv;      /* the `san report` command line */
    int nruns;
    const san_report_run *runs;
} san_report_page;

/* Writes the page: the template (report/page.html, .css, .js, built in)
 * with the runs' reports embedded, verbatim, as one JSON block.  0, or
 * -1 on a write error (the stream's). */
SAN_API int san_report_html(FILE *out, const san_report_page *p);

#ifdef __cplusplus
}
#endif

#endif
