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
#include "san/model.h"
#include "san/analyze.h"
#include "san/analytic.h"
#include "san/sweep.h"
#include "san/props.h"

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
    size_t struct_size;     /* sizeof the struct, set by san_report_run_default:
                               san_report_html refuses runs of another
                               layout (SAN_E_USAGE) */
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

/* Everything 0 or NULL; and struct_size. */
SAN_API void san_report_run_default(san_report_run *r);

typedef struct {
    size_t struct_size;     /* sizeof the struct, set by san_report_page_default:
                               san_report_html refuses a page of another
                               layout (SAN_E_USAGE) */
    const san_study *study; /* NULL: a page of one run */
    const char *title;
    const char *san_version;
    int argc;
    char *const *argv;      /* the `san report` command line */
    int nruns;
    const san_report_run *runs;     /* each filled from san_report_run_default */
} san_report_page;

/* Everything 0 or NULL; and struct_size. */
SAN_API void san_report_page_default(san_report_page *p);

/* Writes the page: the template (report/page.html, .css, .js, built in)
 * with the runs' reports embedded, verbatim, as one JSON block.  SAN_OK;
 * SAN_E_USAGE with err when p or one of its runs is of another layout
 * (struct_size: fill them with san_report_page_default and
 * san_report_run_default), nothing written; SAN_E_IO with err on a
 * write error (the stream's). */
SAN_API san_status san_report_html(FILE *out, const san_report_page *p, char *err, size_t n);

/* The models a page shows of one analysis: each one's text when it
 * solved at most SAN_REPORT_MAX_TEXTS distinct ones, else the first's
 * text and the list of every generator line (a page of 12 copies of the
 * master/slave model that differ in a constant would bury the study). */
enum { SAN_REPORT_MAX_TEXTS = 4, SAN_REPORT_MAX_MODELS = SAN_REPORT_MAX_TEXTS + 1 };
typedef struct {
    int n;
    char *name[SAN_REPORT_MAX_MODELS];  /* "san gen ms --slaves 2", a path */
    char *text[SAN_REPORT_MAX_MODELS];  /* its .san text */
} san_report_models;

/* The models of analysis a (NULL: a report read back) whose -f json
 * report is json: the model file its first argument names, or the text
 * san_gen writes for each generator line ("command") of the report, a
 * model file's line ("m.san -D K=3") the file's text.  What cannot be
 * had is left out.  Free with san_report_models_free. */
SAN_API void san_report_find_models(const san_study_analysis *a, const char *json,
                                    san_report_models *m);
SAN_API void san_report_models_free(san_report_models *m);
/* The subcommand whose -f json report json is, by two members only it
 * has (doc/output.md): "sweep", "size-buffer", "grain" or "compare";
 * NULL for another report or none. */
SAN_API const char *san_report_kind(const char *json);

/* ---- the reports of the analyses (report/solve_out.c, report/time_out.c) ---- */

/* The formats of a command's report (doc/output.md). */
typedef enum { SAN_REPORT_TEXT, SAN_REPORT_JSON, SAN_REPORT_CSV } san_report_format;

/* The caller's provenance block (doc/output.md: "schema", "meta"),
 * written where each format takes it: JSON just after the opening
 * "{\n  " (members ending with ",\n  "), CSV before the header row, text
 * first.  The command writes its command line and model digests so; a
 * binding passes none. */
typedef void (*san_report_preamble)(FILE *out, san_report_format f, const void *ctx);

/* What the report of a steady state says beyond the analysis itself. */
typedef struct {
    size_t struct_size;     /* sizeof the struct, set by san_solve_report_opts_default: the
                               library refuses options of another
                               layout (SAN_E_USAGE) */
    const char *source;     /* the model's file as named ("file"); NULL: "" */
    double tol;             /* the tolerance asked (its solve opts' tol) */
    int auto_picked;        /* the method was asked as auto (said only of
                               the serial engine: PETSc's KSP is its own) */
    double t_total;         /* seconds of the whole run; < 0: the
                               analysis' own (space and solve) */
    int vector;             /* JSON and CSV: 1 the distribution is part of
                               the report ("vector", vector rows), -1 it
                               would be but the answer is unverified
                               (JSON: null), 0 not */
    int no_marginals;       /* leave the marginals out (every format) */
    int no_throughputs;     /* ... the throughputs */
    int all_replicas;       /* text: a line for every replica that differs
                               (default: their minimum, mean, maximum) */
    san_report_preamble preamble;   /* NULL: no provenance block */
    const void *ctx;        /* preamble's */
} san_solve_report_opts;

/* source "", tol the analysis' default, t_total -1, everything else 0. */
SAN_API void san_solve_report_opts_default(san_solve_report_opts *o);
/* The same without the layout (report/report_opts.c): _new (the
 * defaults), _free, _set with the keys "tol" and "auto_picked" (0, 1),
 * _set_source (copied). */
SAN_API san_solve_report_opts *san_solve_report_opts_new(void);
SAN_API void san_solve_report_opts_free(san_solve_report_opts *o);
SAN_API san_status san_solve_report_opts_set(san_solve_report_opts *o, const char *key,
                                             const char *value, char *msg, size_t n);
SAN_API san_status san_solve_report_opts_set_source(san_solve_report_opts *o,
                                                    const char *source);
/* The report of `san solve` on a's steady state of m (san_analyze with
 * the STEADY kind: the model, the storage, the solver and its accuracy,
 * the results, marginals, throughputs and top states) in format f on
 * out; o NULL: the defaults.  SAN_OK; SAN_E_USAGE when a has no indices
 * (the analysis failed before them); SAN_E_NOMEM when the distribution
 * could not be written (the report is then complete without it). */
SAN_API san_status san_report_solve(FILE *out, san_report_format f, const san_model *m,
                                    const san_analysis *a, const san_solve_report_opts *o);

/* A name the commands give the results they add to a model for their
 * own use (san transient's --initial, san passage's --until): the
 * reports leave them out. */
#define SAN_HIDDEN_RESULT_PREFIX "__san_"

/* What the report of a transient or passage analysis says beyond the
 * analysis itself. */
typedef struct {
    size_t struct_size;     /* sizeof the struct, set by san_time_report_opts_default: the
                               library refuses options of another
                               layout (SAN_E_USAGE) */
    const char *source;     /* the model's file as named ("file"); NULL: "" */
    int passage;            /* san passage's report (the passage block and
                               P(T <= t)); 0: san transient's */
    double eps;             /* the uniformization's eps asked */
    double t_total;         /* seconds of the whole run; < 0: the
                               analysis' own */
    const char *initial;    /* text: how the initial distribution was
                               given ("--initial", "--from"); NULL: the
                               states the reachability function accepts */
    int rewards;            /* text: the accumulated table (rewards asked) */
    int all_replicas;       /* text: a line for every replica */
    int complete;           /* 0: interrupted, the times before the stop only */
    int ntimes_asked;       /* the times asked (< 0: the analysis' count) */
    const double *levels;   /* passage: the percentiles asked, in (0, 1) */
    int nlevels;
    san_report_preamble preamble;   /* NULL: no provenance block */
    const void *ctx;        /* preamble's */
} san_time_report_opts;

/* source "", eps the analysis' default, t_total -1, complete 1,
 * ntimes_asked -1, everything else 0. */
SAN_API void san_time_report_opts_default(san_time_report_opts *o);
/* The same without the layout (report/report_opts.c): _new (the
 * defaults), _free, _set with the keys "passage" (0, 1), "eps",
 * "complete" (0, 1), "ntimes_asked", _set_source and _set_levels
 * (copied). */
SAN_API san_time_report_opts *san_time_report_opts_new(void);
SAN_API void san_time_report_opts_free(san_time_report_opts *o);
SAN_API san_status san_time_report_opts_set(san_time_report_opts *o, const char *key,
                                            const char *value, char *msg, size_t n);
SAN_API san_status san_time_report_opts_set_source(san_time_report_opts *o,
                                                   const char *source);
SAN_API san_status san_time_report_opts_set_levels(san_time_report_opts *o,
                                                   const double *levels, int n);
/* The report of `san transient` (o->passage 0) or `san passage` on a's
 * analysis of m (san_analyze with the TRANSIENT or PASSAGE kind) in
 * format f on out; o NULL: the defaults.  SAN_OK; SAN_E_USAGE when a
 * holds no time analysis. */
SAN_API san_status san_report_transient(FILE *out, san_report_format f, const san_model *m,
                                        const san_analysis *a, const san_time_report_opts *o);

/* The same analysis drawn into file (.svg, .png, .pdf) over t: a
 * curve per result named in ynames (comma-separated; NULL: every
 * result) for a transient, P(T <= t) for a passage; look NULL: the
 * defaults, its title and axis labels defaulting to the model's name,
 * "t" and "value" or "P(T <= t)".  As san_plot_ex: 0; -2 with err (no
 * result named, a bad file name, ...); -1 with err. */
SAN_API int san_report_transient_plot(const char *file, const san_plot_opts *look,
                                      const san_model *m, const san_analysis *a, int passage,
                                      const char *ynames, char *err, size_t errn);

/* ---- san check's report (report/check_text.c, report/check_json.c) ---- */

/* What the report of a model's check says beside the model and its
 * diagnostics. */
typedef struct {
    size_t struct_size;     /* sizeof the struct, set by san_check_report_opts_default: the
                               library refuses options of another
                               layout (SAN_E_USAGE) */
    const san_lumping *lumping;     /* the lumped model the estimates are of,
                                       or NULL (as written) */
    const san_estimate *memory;     /* san_estimate_memory's; NULL: not
                                       estimated */
    const san_audit *audit;         /* san_audit_model's; NULL: not run */
    san_report_preamble preamble;   /* NULL: no provenance block */
    const void *ctx;                /* preamble's */
} san_check_report_opts;

/* Everything NULL. */
SAN_API void san_check_report_opts_default(san_check_report_opts *o);
/* The report of `san check` on m (NULL when it did not load: JSON then
 * says "valid": false and lists the errors) with the diagnostics d, in
 * format f (text or JSON) on out; o NULL: the defaults.  SAN_OK;
 * SAN_E_USAGE for CSV, or text without a model (the diagnostics are the
 * whole report then: san_diag_print). */
SAN_API san_status san_report_check(FILE *out, san_report_format f, const san_model *m,
                                    const san_diag *d, const san_check_report_opts *o);

/* ---- san mw's report (report/mw_out.c) ---- */

typedef struct {
    size_t struct_size;     /* sizeof the struct, set by san_mw_report_opts_default: the
                               library refuses options of another
                               layout (SAN_E_USAGE) */
    const double *san_tt;           /* the SAN's execution_time per row
                                       (NaN: it failed), or NULL: no SAN
                                       columns */
    const double *san_eff;          /* its efficiency, with san_tt */
    san_report_preamble preamble;   /* NULL: no provenance block */
    const void *ctx;                /* preamble's */
} san_mw_report_opts;

/* Everything NULL. */
SAN_API void san_mw_report_opts_default(san_mw_report_opts *o);
/* The report of `san mw`: the master/worker closed form of p for each
 * of the n numbers of workers (in the order given), its optimum and
 * bounds, in format f on out; o NULL: the defaults.  SAN_OK;
 * SAN_E_USAGE when n < 1, or o or p of another layout (struct_size),
 * nothing written; SAN_E_NOMEM. */
SAN_API san_status san_report_mw(FILE *out, san_report_format f, const san_mw_params *p, int n,
                                 const double *workers, const san_mw_report_opts *o);

/* ---- san compare's report (report/compare_out.c) ---- */

typedef struct {
    size_t struct_size;     /* sizeof the struct, set by san_compare_report_opts_default: the
                               library refuses options of another
                               layout (SAN_E_USAGE) */
    san_report_preamble preamble;   /* NULL: no provenance block */
    const void *ctx;                /* preamble's */
} san_compare_report_opts;

/* Everything NULL. */
SAN_API void san_compare_report_opts_default(san_compare_report_opts *o);
/* The report of `san compare` on c (san_compare_run done): the models,
 * then their results and marginals side by side with the differences
 * to the first, in format f on out; o NULL: the defaults.  SAN_OK. */
SAN_API san_status san_report_compare(FILE *out, san_report_format f, const san_compare *c,
                                      const san_compare_report_opts *o);

/* ---- san map's report (report/map_out.c) ---- */

typedef struct {
    size_t struct_size;     /* sizeof the struct, set by san_map_report_opts_default: the
                               library refuses options of another
                               layout (SAN_E_USAGE) */
    int batch;                      /* one pipeline of many: text a row
                                       each, JSON the cases in "cases" */
    san_report_preamble preamble;   /* NULL: no provenance block */
    const void *ctx;                /* preamble's */
} san_map_report_opts;

/* Everything 0. */
SAN_API void san_map_report_opts_default(san_map_report_opts *o);
/* Case k (0 first) of `san map`'s report, c from san_map_case_run, in
 * format f on out (the preamble and the CSV header with the first);
 * a batch ends with san_report_map_end after its n cases (JSON closes
 * the document there; "cases": [] when n is 0).  SAN_OK. */
SAN_API san_status san_report_map_case(FILE *out, san_report_format f, const san_map_case *c,
                                       int k, const san_map_report_opts *o);
SAN_API san_status san_report_map_end(FILE *out, san_report_format f, int n,
                                      const san_map_report_opts *o);

/* ---- san props' report (report/props_out.c) ---- */

typedef struct {
    size_t struct_size;     /* sizeof the struct, set by san_props_report_opts_default: the
                               library refuses options of another
                               layout (SAN_E_USAGE) */
    san_report_preamble preamble;   /* NULL: no provenance block */
    const void *ctx;                /* preamble's */
} san_props_report_opts;

/* Everything NULL. */
SAN_API void san_props_report_opts_default(san_props_report_opts *o);
/* The report of `san props`: the chain of C, then each property of P
 * with its answer ans[i] (san_checker_eval), in format f on out; o
 * NULL: the defaults.  SAN_OK. */
SAN_API san_status san_report_props(FILE *out, san_report_format f, const san_props *P,
                                    const san_checker *C, const san_prop_answer *ans,
                                    const san_props_report_opts *o);

#ifdef __cplusplus
}
#endif

#endif
