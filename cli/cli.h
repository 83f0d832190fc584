/*
 * cli.h - the `san` command: a thin layer of subcommands over libsan.
 * Each subcommand is one file cli/cmd_NAME.c with a main-like entry point
 * and a table of its options (tool/options.h) that its parser and its
 * help are made from; the helpers they share (model loading, output
 * files, provenance, signals) are the internal library tool/ (tool.h).
 */
#ifndef SAN_CLI_H
#define SAN_CLI_H

#include <stdio.h>
#include "tool/tool.h"

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);      /* argv[0] is the subcommand */
    void (*help)(FILE *out);
    const char *summary;
} cli_command;
/* c run as main() runs it (argv[0] its name): --help or -h before any
 * "--" shows its help on stdout instead.  The exit status. */
int cli_command_run(const cli_command *c, int argc, char **argv);
/* `san sweep|size-buffer|grain|compare ...` (argv[0] "san") run as
 * main() would run it in a child: standard input empty, standard output
 * and error collected into *out and *err (malloc'd), the provenance its
 * own command line (cli/captured.c).  Its exit status; -1 when it could
 * not be set up or argv[1] is another subcommand. */
int cli_run_captured(int argc, char **argv, char **out, char **err);

/* Subcommands. */
int cmd_check(int argc, char **argv);
void help_check(FILE *out);
int cmd_print(int argc, char **argv);
void help_print(FILE *out);
int cmd_solve(int argc, char **argv);
void help_solve(FILE *out);
int cmd_transient(int argc, char **argv);
void help_transient(FILE *out);
int cmd_passage(int argc, char **argv);
void help_passage(FILE *out);
int cmd_gen(int argc, char **argv);
void help_gen(FILE *out);
int cmd_import(int argc, char **argv);
void help_import(FILE *out);
int cmd_sweep(int argc, char **argv);
void help_sweep(FILE *out);
int cmd_report(int argc, char **argv);
void help_report(FILE *out);
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
int cmd_export(int argc, char **argv);
void help_export(FILE *out);
int cmd_map(int argc, char **argv);
void help_map(FILE *out);
int cmd_workrate(int argc, char **argv);
int cmd_props(int argc, char **argv);
void help_props(FILE *out);
void help_workrate(FILE *out);

#endif
