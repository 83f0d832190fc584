/*
 * cli.h - the `san` command: a thin layer of subcommands over libsan.
 * Each subcommand is one file cli/cmd_NAME.c with a main-like entry point
 * and a table of its options (cli/options.h) that its parser and its
 * help are made from; model loading and output helpers live in
 * cli/opts.c, the one SIGINT handler in cli/signals.c.
 */
#ifndef SAN_CLI_H
#define SAN_CLI_H

#include <stdio.h>
#include "san.h"

/* Exit statuses, the same for every subcommand. */
enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

/* The one place where a status becomes an exit status: the user's
 * errors (the model, the usage, a limit the user set) exit 2, the rest
 * (not converged, out of memory, interrupted, ...) 1. */
int cli_exit_status(san_status st);

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);      /* argv[0] is the subcommand */
    void (*help)(FILE *out);
    const char *summary;
} cli_command;

/* Output formats shared by the subcommands that report. */
typedef enum { FMT_TEXT, FMT_JSON, FMT_CSV } cli_format;
int cli_parse_format(const char *s, cli_format *f, int allow_csv);

/* Report a usage error for a subcommand: "san CMD: msg" + hint; returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* -D NAME=VALUE accumulation. */
typedef struct {
    san_define *defs;
    int n, cap;
} cli_defines;
int  cli_define_add(cli_defines *d, const char *arg);   /* 0 ok, -1 bad */
void cli_defines_free(cli_defines *d);

/* Read, parse and compile a model file ("-" = stdin), printing the
 * diagnostics on stderr.  On failure returns NULL and sets *status to the
 * exit status to use (2 for bad input, 1 for I/O failure). */
san_model *cli_load_model(const char *path, cli_defines *defs, int *status,
                          int quiet_warnings);
/* The same from text already in memory (generated models). */
san_model *cli_load_text(const char *name, char *text, size_t len,
                         cli_defines *defs, int *status, int quiet_warnings);

/* The interrupt flag of the command, for the library's interrupt
 * fields (cli/signals.c): installs the one SIGINT handler on the first
 * call.  The first Ctrl-C sets the flag (and, with grace_s > 0, ends the
 * process grace_s seconds later if the work has not stopped); a second
 * one ends the process at once, saying "san CMD: interrupted". */
volatile int *cli_interrupt(const char *cmd, int grace_s);

/* Does stderr go to a terminal (progress is shown only then)? */
int cli_stderr_is_tty(void);

/* JSON string output with escaping. */
void cli_json_string(FILE *out, const char *s);

/* "slaves=2, mode=async": the parameters of variant v that vary (more
 * than one value, applicable to v), but axis except (-1: none); the
 * template's name (or "model") when none does.  malloc'd; NULL when out
 * of memory. */
char *cli_sweep_label(const san_sweep *s, int v, int except);

/* Write through writer() to path (stdout when NULL or "-"): into a
 * temporary file renamed at the end, so that a failure or an interrupt
 * never leaves a partial file behind.  Returns an exit status. */
int cli_write_output(const char *path, void (*writer)(const void *ctx, FILE *out),
                     const void *ctx);

/* Subcommands. */
int cmd_check(int argc, char **argv);
void help_check(FILE *out);
int cmd_print(int argc, char **argv);
void help_print(FILE *out);
int cmd_solve(int argc, char **argv);
void help_solve(FILE *out);
int cmd_gen(int argc, char **argv);
void help_gen(FILE *out);
int cmd_sweep(int argc, char **argv);
void help_sweep(FILE *out);
int cmd_size_buffer(int argc, char **argv);
void help_size_buffer(FILE *out);
int cmd_grain(int argc, char **argv);
void help_grain(FILE *out);
int cmd_compare(int argc, char **argv);
void help_compare(FILE *out);
int cmd_mw(int argc, char **argv);
void help_mw(FILE *out);
int cmd_cluster(int argc, char **argv);
void help_cluster(FILE *out);

#endif
