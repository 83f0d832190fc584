/*
 * tool.h - the command's helpers (libsantool, never installed): option
 * words, -D definitions, model loading, output files, provenance,
 * number lists, signals; over the public API only (include/), under the
 * subcommands of cli/.
 */
#ifndef SAN_TOOL_H
#define SAN_TOOL_H

#include <stdio.h>
#include "san.h"

/* Exit statuses, the same for every subcommand. */
enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

/* The one place where a status becomes an exit status: the user's
 * errors (the model, the usage, a limit the user set) exit 2, the rest
 * (not converged, out of memory, interrupted, ...) 1. */
int tool_exit_status(san_status st);
/* --petsc-matrix's word: a san_engine_matrix, or -1. */
int tool_engine_matrix(const char *word);

/* Output formats shared by the subcommands that report. */
/* FMT_UNSET: no --format given (the commands that plot leave their
 * report out of standard output then; see tool_plot_table). */
typedef enum { FMT_UNSET = -1, FMT_TEXT, FMT_JSON, FMT_CSV } tool_format;
int tool_parse_format(const char *s, tool_format *f, int allow_csv);

/* A list of numbers a flag takes (tool/numbers.c). */
typedef struct {
    double *v;
    int n, cap;
} tool_numbers;
/* x at the end: 0, or -1 out of memory. */
int tool_numbers_add(tool_numbers *l, double x);
void tool_numbers_sort(tool_numbers *l);
/* x added, l sorted again (kept if already there): 0, or -1. */
int tool_numbers_insert(tool_numbers *l, double x);
void tool_numbers_free(tool_numbers *l);
/* --time's LIST ("0.5,1,0..10:0.5") into l, ascending, each once: 0, or
 * -1 with why; *old set when a range was written a..b/step (the old
 * spelling, read for now: the caller warns). */
int tool_numbers_times(const char *list, tool_numbers *l, int *old, char *why, size_t n);
/* --percentiles' LIST ("50,90,99", percents in (0, 100)) into l as
 * levels in (0, 1), ascending: 0, or -1. */
int tool_numbers_percents(const char *list, tool_numbers *l);

/* Report a usage error for a subcommand: "san CMD: msg" + hint; returns 2. */
int tool_usage_error(const char *cmd, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* -D NAME=VALUE accumulation. */
typedef struct {
    san_define *defs;
    int n, cap;
} tool_defines;
/* NAME (its first len bytes) = v; -1 when out of memory. */
int  tool_define_add(tool_defines *d, const char *name, size_t len, double v);
void tool_defines_free(tool_defines *d);

/* Is -D d a structural constant of a model written by `san gen` (its
 * header records the command: N_slaves of ms is its --slaves)?  1 with
 * the message in why ("... regenerate it with --slaves 5: san gen ms
 * ..."), else 0.  tool_load_text refuses such a -D with that message;
 * tool_load_gen regenerates with the flag instead, when the flag takes
 * the constant's value. */
int tool_structural_define(const char *text, size_t len, const san_define *d, char *why,
                          size_t n);

/* What the diagnostic flags of every model-reading subcommand ask
 * (tool_diag_options): zero is the default, warnings on. */
typedef struct {
    int no_peps_warnings;   /* --no-peps-warnings */
    int peers;              /* --peps: san_model_lint_peers as well */
} tool_diag;

/* The warnings a sweep kept (san_sweep.warnings) on stderr, those
 * already printed left out: seen (NULL-terminated, malloc'd, may be
 * NULL at first) collects what was printed across sweeps (compare);
 * free it with tool_seen_free. */
void tool_print_sweep_warnings(const san_sweep *s, char ***seen);
void tool_seen_free(char **seen);

/* Read a model's text ("-" = stdin) with san_read_input, under the
 * input limit: max_input (0: the default), or max_memory when that is
 * set and smaller.  EXIT_OK, or the exit status after printing
 * "san: FILE: is a directory" (2 for what the user can fix, 1 for an
 * I/O failure), with the option to raise when the file is too large. */
int tool_read_model(const char *path, double max_input, double max_memory, char **text,
                   size_t *len);
/* Read (tool_read_model), parse and compile a model file, printing the
 * diagnostics on stderr.  On failure returns NULL and sets *status to the
 * exit status to use (2 for bad input, 1 for I/O failure). */
/* The name diagnostics give a model's text: "<stdin>" for "-"; of a
 * PRISM model "PATH (imported)", since the lines and columns are those
 * of the .san text imported from it (`san import prism` prints it). */
const char *tool_model_name(const char *path, char *buf, size_t size);
/* As tool_load_model, a PRISM model imported with the importer's flags
 * (SAN_IMPORT_PROPS: the results its properties read, its constants and
 * state rewards); warnings shown. */
san_model *tool_load_model_flags(const char *path, tool_defines *defs, int flags, int *status,
                                double max_input, double max_memory, const tool_diag *dg);
san_model *tool_load_model(const char *path, tool_defines *defs, int *status,
                          int quiet_warnings, double max_input, double max_memory,
                          const tool_diag *dg);
/* A model with hidden results appended (names[i] = (exprs[i])): the
 * expressions of --initial and --until are compiled by the model's own
 * rules this way, each then the expression of the result of that name.
 * Errors in them are reported under the option that gave each
 * (options[i], e.g. "--until:1:4: error: ..." quoting the expression).
 * At most 2 expressions.  Read as tool_read_model reads. */
san_model *tool_load_model_exprs(const char *path, tool_defines *defs, const char *const *names,
                                const char *const *options, const char *const *exprs, int n,
                                int *status, double max_input, double max_memory,
                                const tool_diag *dg);
/* The expression of the hidden result name that option opt (text)
 * selects states by: NULL with a usage error in *status when it names a
 * result or thr() (values of the solution, the same in every state:
 * evaluated per state NaN, selecting nothing), or NULL without one. */
const san_expr *tool_state_expr(const char *cmd, const san_model *m, const char *opt,
                               const char *name, const char *text, int *status);
/* A PRISM model's text (*text, *len; san_is_prism_path) replaced by its
 * .san translation, the constants given by defs (tool/prism.c).
 * EXIT_OK, or the exit status after printing the diagnostics. */
int tool_prism_to_san(const char *name, char **text, size_t *len, const tool_defines *defs);
/* The same with san_import_prism_flags's flags (san props: the hidden
 * results of SAN_IMPORT_PROPS). */
int tool_prism_to_san_flags(const char *name, char **text, size_t *len, const tool_defines *defs,
                           unsigned flags);
/* The same from text already in memory (generated models). */
san_model *tool_load_text(const char *name, char *text, size_t len,
                         tool_defines *defs, int *status, int quiet_warnings,
                         const tool_diag *dg);

/* The same from a --gen argument: 'TEMPLATE FLAGS...' split on blanks
 * (quotes group words), generated by san_gen; a bad line is a usage
 * error of subcommand cmd. */
san_model *tool_load_gen(const char *cmd, const char *gen, tool_defines *defs, int *status,
                        const tool_diag *dg);

/* The interrupt flag of the command, for the library's interrupt
 * fields (tool/signals.c): installs the one SIGINT handler on the first
 * call.  The first Ctrl-C sets the flag (and, with grace_s > 0, ends the
 * process grace_s seconds later if the work has not stopped); a second
 * one ends the process at once, saying "san CMD: interrupted". */
volatile int *tool_interrupt(const char *cmd, int grace_s);
/* The grace of a single solve after its first Ctrl-C: every step of a
 * solve looks at the flag between passes, and a pass over 10^6-10^7
 * states (a transposition, the partitions, an ILU(0) factorization, an
 * aggregation check) takes seconds on a loaded machine: with one second
 * of grace, Ctrl-C 5 to 40 s into a 2 M-state solve exited 130 with no
 * answer; a second Ctrl-C still ends the process at once. */
#define TOOL_SOLVE_GRACE 10
/* Has the interrupt flag been set (0 when tool_interrupt was never
 * called)? */
int tool_interrupted(void);
/* The handlers every subcommand has, installed first thing by main():
 * SIGTERM, SIGHUP, SIGPIPE and (until tool_interrupt) SIGINT remove the
 * temporary files being written (san_out_cleanup), then end the process
 * as the signal would have; SIGXFSZ is ignored, so that a file over
 * `ulimit -f` fails with EFBIG like any failed write.  Signals the parent
 * left ignored (nohup) stay ignored. */
void tool_signals_init(void);

/* Does stderr go to a terminal (progress is shown only then)? */
int tool_stderr_is_tty(void);

/* A figure of a report where NaN stands for "not computed" (a failed
 * variant, the gain of a first row): null; any other value as
 * san_json_num writes it ("inf" included). */
void tool_json_figure(FILE *out, double v);

/* The plot options every command that plots takes (tool_plot_options in
 * tool/options.c): the look, and --table. */
typedef struct {
    san_plot_opts look;
    int table;              /* --table: the report on standard output
                               even with --plot */
} tool_plot;
void tool_plot_init(tool_plot *p);
/* A look option without --plot FILE is a usage error of cmd: 0, or the
 * exit status after saying so. */
int tool_plot_check(const char *cmd, const char *file, const tool_plot *p);
/* Does the report go to standard output?  Always without a plot; with
 * one (file) only when asked: --table, or asked (--format or -o given):
 * a plot is what was wanted, not a screenful of table. */
int tool_plot_table(const char *file, const tool_plot *p, int asked);
/* A plot's exit status from san_plot_ex's return: -2 (the user's) 2. */
int tool_plot_status(int rc);

/* Write through writer() to path ("-" or NULL: standard output) with
 * the output module of libsan (san_out_open: a temporary file renamed
 * over a regular file, devices written as they are, ...).  writer
 * returns 0, or -1 after saying why on stderr; then, or when a Ctrl-C
 * came during the write, the target keeps what it held.  Returns an
 * exit status.  A failure of standard output is reported by main(). */
int tool_write_output(const char *path, int (*writer)(const void *ctx, FILE *out),
                     const void *ctx);
/* Output out of option ("--vector") against input in: when writing out
 * would overwrite the file in names (san_out_overwrites: the same file,
 * links followed), the usage error naming both, and its exit status;
 * else 0.  Every output is checked so before anything is written (the
 * option parser does it for the options it knows as files). */
int tool_refuse_overwrite(const char *cmd, const char *option, const char *out, const char *in);
/* Does an output path name standard output ("-", /dev/stdout, /dev/fd/1,
 * /proc/self/fd/1: the report's stream, where a table of another format
 * would not belong)? */
int tool_names_stdout(const char *path);
/* Why standard output failed when tool_write_output found it (0: it did
 * not): main() closes the stream after the error is gone from errno. */
extern int tool_stdout_errno;

/* The SHA-256 of len bytes as 64 lowercase hex digits and a NUL
 * (tool/sha256.c): the provenance of a report names the model read by
 * the digest `sha256sum` prints. */
void tool_sha256_hex(const void *data, size_t len, char hex[65]);

/* The provenance of every report (tool/meta.c; doc/output.md): what was
 * run, on which bytes, and how it was solved.  Recorded as the run
 * learns it: the command line by main(), each -D by the option parser,
 * each model read by tool_read_model (its SHA-256) or tool_load_gen (its
 * line).  The rest comes from the subcommand with its report. */
typedef struct {
    const char *method;     /* the method used, or asked (sweeps); NULL:
                               nothing was solved */
    double tol;             /* --tol; 0: none */
    const char *storage;    /* sparse, kron, or as asked (auto); NULL */
    int converged;          /* 1, 0; -1: nothing solved (null) */
} tool_run;
/* The run of a command that solves several models (sweep, compare,
 * grain, size-buffer): the method, tolerance and storage asked (each
 * row has the method used), converged when every model did. */
tool_run tool_run_asked(const san_sweep_opts *o, int converged);
void tool_meta_argv(int argc, char **argv);
void tool_meta_model(const char *path, const char *text, size_t len);
void tool_meta_gen(const char *line, const char *text, size_t len);
void tool_meta_define(const char *name, size_t len, const char *value);
void tool_meta_free(void);
/* JSON: the members "schema" and "meta", written after "{\n  " and
 * ending with ",\n  " for the report's own members (r NULL: a
 * command that solves nothing).  CSV: "# key: value" lines before the
 * header row.  Text: a two-line "# " header. */
void tool_meta_json(FILE *out, const tool_run *r);
void tool_meta_csv(FILE *out, const tool_run *r);
void tool_meta_text(FILE *out);
/* The three above as the library's reports take them (a
 * san_report_preamble; run: a tool_run, or NULL). */
void tool_provenance(FILE *out, san_report_format f, const void *run);
/* The same for the reports of several solves (san_sweep_preamble:
 * sweep, grain, size-buffer; run a tool_run). */
void tool_sweep_provenance(FILE *out, san_sweep_format f, const void *run);
/* --format's value as the library's reports name it. */
san_report_format tool_report_format(tool_format f);
/* --quiet of the subcommands that have it: no text header (the JSON and
 * CSV keep their provenance, which a reader skips). */
void tool_meta_quiet(void);

/* san sweep's names checked against the variants' before the run
 * (tool/sweep_checks.c): --index's list into names (malloc'd), --plot's
 * file, --x, --y and --series.  0, or the exit status (said). */
int tool_sweep_check_index(const san_sweep *s, const char *list, char ***names, int *n);
int tool_sweep_check_plot(const san_sweep *s, const char *plot, const char *x, const char *y,
                         const char *series);

/* Every exit 1 says why on stderr, --quiet or not: the failed rows of a
 * sweep (grain, compare, size-buffer) are named there too, each with
 * its error ("san sweep: variant slaves=3 failed: ..."), the first
 * three, then a count.  tool_say_failed: one (what: "variant", label
 * may be NULL), counted in *said; returns EXIT_FAIL.  _end: the count
 * of those not shown.  _variants: every failed row of s; EXIT_FAIL
 * when one did, else EXIT_OK. */
int tool_say_failed(const char *cmd, const char *what, const char *label, const char *error,
                   int *said);
void tool_say_failed_end(const char *cmd, const char *what, int said);
int tool_say_failed_variants(const char *cmd, const san_sweep *s);

/* --from FILE (tool/from.c), for transient and passage: a distribution
 * as --vector writes it, read against m (the model as written): each
 * row's index a state of m, its names (when given) those of that
 * state, its probability a number in [0, 1]; a file without a row is
 * an error.  EXIT_OK, or the exit status after saying why on stderr
 * with the file's line ("san CMD: --from FILE:LINE: ..."). */
typedef struct {
    int64_t *idx;
    double *p;
    int64_t n, cap;
} tool_from;
int tool_read_from(const char *cmd, const char *path, const san_model *m, tool_from *v);
void tool_from_free(tool_from *v);

/* --vector FILE (tool/vector.c), for solve and transient: the states of sp
 * in the order of their global index (malloc'd; NULL after saying so,
 * as "san CMD: ...", when out of memory), and the CSV writer that
 * tool_write_output calls with a tool_vector: 0, or -1 after saying why
 * (out of memory, a Ctrl-C during the write). */
typedef struct {
    const san_space *sp;
    const double *pi;
    const char *cmd;        /* "solve", "transient": named in messages */
} tool_vector;
int64_t *tool_vector_order(const san_space *sp, const char *cmd);
int tool_vector_write(const void *ctx, FILE *out);

/* The same CSV from an answer spread over MPI ranks (--engine petsc):
 * tool_write_output's writer on rank 0, with a tool_engine_vector; every
 * rank must then call tool_engine_vector_done (collective: the other
 * ranks send their parts, and rank 0 releases them if the file could
 * not be opened).  0 or -1 as above. */
typedef struct {
    const san_analysis *a;
    const char *cmd;
    int called;             /* the writer ran (san_engine_vector done) */
} tool_engine_vector;
int tool_engine_vector_write(const void *ctx, FILE *out);
void tool_engine_vector_done(tool_engine_vector *v);

#endif
