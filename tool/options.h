/*
 * options.h - declarative option tables, in the manner of git's
 * parse-options: each subcommand describes its options once, in a
 * static table (names, kind, destination, help text, default), and one
 * parser reads the command line from it while one generator writes the
 * --help text from it.  Option groups that several subcommands share
 * (the solver, the limits, the run of a sweep) are tables of their own,
 * included by the subcommands' tables.
 *
 * Destinations are offsets into the subcommand's own argument structure
 * (offsetof), so that the tables are constant data that the help can be
 * printed from without any state.  An included group adds the offset of
 * the structure it works on (san_sweep_opts for the shared groups).
 *
 * The parser takes long options (--tol 1e-8, --tol=1e-8), short ones
 * (-m gs, -mgs, clusters -qf json), "--" to end the options; what is not
 * an option (and, for the commands that pass template flags through,
 * what is not one of theirs) is left to the caller in order.
 */
#ifndef SAN_TOOL_OPTIONS_H
#define SAN_TOOL_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

typedef enum {
    CLI_OPT_END = 0,
    CLI_OPT_GROUP,          /* a section heading of the help ("solver:");
                               a heading equal to the one before is not
                               repeated (a table may add to an included
                               group) */
    CLI_OPT_INCLUDE,        /* a shared table, at an offset */
    CLI_OPT_FLAG,           /* int: set to value, no argument */
    CLI_OPT_INT,            /* a whole number in [lo, hi]; int, long or int64_t */
    CLI_OPT_DOUBLE,         /* a number in [lo, hi] (open ends: open) */
    CLI_OPT_BYTES,          /* double: a size, "4G", "512M", "1T" */
    CLI_OPT_METHOD,         /* san_method */
    CLI_OPT_STORAGE,        /* san_storage */
    CLI_OPT_LUMP,           /* san_lump */
    CLI_OPT_PRECOND,        /* san_precond */
    CLI_OPT_FORMAT,         /* cli_format, among the formats in value */
    CLI_OPT_STRING,         /* const char *: the argument itself */
    CLI_OPT_CALLBACK        /* cb(parser, option, argument, destination) */
} cli_opt_kind;

/* A file option's direction: the parser refuses an output that is the
 * same file as an input (an input option, or an operand with
 * CLI_OPERAND_FILES) before the command reads or writes anything. */
enum { CLI_IO_NONE = 0, CLI_IO_INPUT, CLI_IO_OUTPUT };

/* Open ends of a CLI_OPT_DOUBLE range. */
enum { CLI_OPEN_LO = 1, CLI_OPEN_HI = 2 };

/* Formats a CLI_OPT_FORMAT accepts (a mask). */
enum { CLI_FMT_TEXT = 1, CLI_FMT_JSON = 2, CLI_FMT_CSV = 4 };

typedef struct cli_option cli_option;
typedef struct cli_parser cli_parser;

/* A callback: 0, or the exit status of a usage error it reported. */
typedef int (*cli_opt_cb)(const cli_parser *p, const cli_option *o, const char *arg,
                          void *dest);

struct cli_option {
    cli_opt_kind kind;
    char short_name;        /* 'm', or 0 */
    const char *long_name;  /* "method" (no dashes), or NULL */
    const char *argh;       /* the argument in the help: "X"; NULL: none */
    size_t offset;          /* of the destination in the caller's structure */
    int size;               /* CLI_OPT_INT: sizeof the destination */
    double lo, hi;          /* CLI_OPT_INT, CLI_OPT_DOUBLE: the range */
    int open;               /* CLI_OPT_DOUBLE: CLI_OPEN_LO | CLI_OPEN_HI */
    int value;              /* CLI_OPT_FLAG: the value set; FORMAT: the mask */
    const char *expect;     /* what a usage error says is expected ("a
                               positive integer"); NULL: from the range */
    const char *help;       /* lines separated by '\n'; CLI_OPT_GROUP: title */
    const char *def;        /* the default shown in the help; NULL: none */
    cli_opt_cb cb;
    const cli_option *group;/* CLI_OPT_INCLUDE */
    int io;                 /* CLI_OPT_STRING: CLI_IO_INPUT, CLI_IO_OUTPUT */
};

#define CLI_MEMBER_SIZE(T, f) ((int)sizeof(((T *)0)->f))

#define CLI_END { .kind = CLI_OPT_END }
#define CLI_GROUP(title) { .kind = CLI_OPT_GROUP, .help = (title) }
#define CLI_INCLUDE(table, T, f) { .kind = CLI_OPT_INCLUDE, .group = (table), \
    .offset = offsetof(T, f) }
#define CLI_FLAG(s, l, T, f, v, h) { .kind = CLI_OPT_FLAG, .short_name = (s), \
    .long_name = (l), .offset = offsetof(T, f), .value = (v), .help = (h) }
#define CLI_INT(s, l, a, T, f, lo_, hi_, exp, h, d) { .kind = CLI_OPT_INT, \
    .short_name = (s), .long_name = (l), .argh = (a), .offset = offsetof(T, f), \
    .size = CLI_MEMBER_SIZE(T, f), .lo = (lo_), .hi = (hi_), .expect = (exp), \
    .help = (h), .def = (d) }
#define CLI_DOUBLE(s, l, a, T, f, lo_, hi_, op, exp, h, d) { .kind = CLI_OPT_DOUBLE, \
    .short_name = (s), .long_name = (l), .argh = (a), .offset = offsetof(T, f), \
    .lo = (lo_), .hi = (hi_), .open = (op), .expect = (exp), .help = (h), .def = (d) }
#define CLI_BYTES(s, l, a, T, f, h, d) { .kind = CLI_OPT_BYTES, .short_name = (s), \
    .long_name = (l), .argh = (a), .offset = offsetof(T, f), .help = (h), .def = (d) }
#define CLI_CHOICE(k, s, l, a, T, f, h, d) { .kind = (k), .short_name = (s), \
    .long_name = (l), .argh = (a), .offset = offsetof(T, f), .help = (h), .def = (d) }
/* -f, --format FMT among the formats of mask; h NULL: "text, json or csv" */
#define CLI_FORMAT(T, f, mask, h) { .kind = CLI_OPT_FORMAT, .short_name = 'f', \
    .long_name = "format", .argh = "FMT", .offset = offsetof(T, f), .value = (mask), \
    .help = (h), .def = "text" }
#define CLI_STRING(s, l, a, T, f, h) { .kind = CLI_OPT_STRING, .short_name = (s), \
    .long_name = (l), .argh = (a), .offset = offsetof(T, f), .help = (h) }
/* A file the command writes (-o, --vector, --plot) or reads (--from). */
#define CLI_OUTPUT(s, l, a, T, f, h) { .kind = CLI_OPT_STRING, .short_name = (s), \
    .long_name = (l), .argh = (a), .offset = offsetof(T, f), .help = (h), \
    .io = CLI_IO_OUTPUT }
#define CLI_INPUT(s, l, a, T, f, h) { .kind = CLI_OPT_STRING, .short_name = (s), \
    .long_name = (l), .argh = (a), .offset = offsetof(T, f), .help = (h), \
    .io = CLI_IO_INPUT }
#define CLI_CALLBACK(s, l, a, T, f, fn, h) { .kind = CLI_OPT_CALLBACK, .short_name = (s), \
    .long_name = (l), .argh = (a), .offset = offsetof(T, f), .cb = (fn), .help = (h) }

/* --max-input SIZE into a double (bytes) of T: the cap on a model
 * file's size, for the commands that read one. */
#define CLI_MAX_INPUT(T, f) CLI_BYTES(0, "max-input", "M", T, f, \
    "refuse a model file larger than M bytes (e.g.\n" \
    "1G; default 256M; --max-memory when smaller)", NULL)

/* Shared groups (tool/options.c), over a san_sweep_opts: include them with
 * CLI_INCLUDE(table, your_args, your_san_sweep_opts_member). */
extern const cli_option cli_solver_options[];   /* --method, --tol, --max-iter,
                                                   --omega, --restart, --precond,
                                                   --time-limit, --storage */
extern const cli_option cli_limit_options[];    /* --max-memory, --max-states */
extern const cli_option cli_run_options[];      /* --jobs, then the two above */
/* Over a cli_plot (cli.h): --title, --xlabel, --ylabel, --legend-title,
 * --logx, --logy, --size, --dpi, --table; for every command that
 * plots, so that they read and behave alike. */
extern const cli_option cli_plot_options[];

/* The diagnostic flags of every subcommand that reads a model (check,
 * print, solve, transient, passage, export, sweep, compare, size-buffer,
 * grain), over a cli_diag (cli.h): CLI_INCLUDE(cli_diag_options, your_args,
 * your_cli_diag_member). */
extern const cli_option cli_diag_options[];     /* --no-peps-warnings, --peps */

/* Parser flags. */
enum {
    CLI_PASS_UNKNOWN = 1,   /* leave unknown options to the caller, in order
                               (template flags); otherwise they are errors */
    CLI_ABBREV = 2,         /* accept unambiguous prefixes of long names */
    CLI_OPERAND_FILES = 4   /* operands may be files the command reads (a
                               model): no output may be one of them, but
                               for those spec->not_a_file names */
};

/* What a subcommand's help and parser are made of. */
typedef struct {
    const char *name;       /* "solve": messages say "san solve: ..." */
    const char *usage;      /* "usage: san solve [options] MODEL\n..." */
    const char *intro;      /* paragraphs after the usage (may be NULL) */
    const cli_option *opts;
    void (*extra)(FILE *out);       /* printed after the options (may be NULL) */
    const char *outro;      /* examples, exit status (may be NULL) */
    int flags;              /* CLI_PASS_UNKNOWN, CLI_ABBREV */
    const char *unknown_hint;       /* after "unknown option '--x'" (may be NULL) */
    /* an operand that is a name and never a file (a template: `san sweep
     * ms ... -o ms` writes ms whatever the directory holds); NULL: none */
    int (*not_a_file)(const char *operand);
} cli_spec;

struct cli_parser {
    const cli_spec *spec;
    const char *cmd;        /* spec->name */
};

/* Returned by cli_parse when --help (or --list-options) was answered. */
enum { CLI_HELP_SHOWN = -1 };

/* Parse argv[1..argc) (argv[0] is the subcommand) into the structure
 * at dest.  The arguments that are not options of the table (operands,
 * and unknown options with CLI_PASS_UNKNOWN) go to *rest, in order,
 * NULL-terminated (malloc'd; free it), their count to *nrest.  Returns
 * 0; CLI_HELP_SHOWN after printing the help; or the exit status of a
 * usage error, reported as "san CMD: --opt: expected ..., not 'x'". */
int cli_parse(const cli_spec *spec, int argc, char **argv, void *dest, char ***rest,
              int *nrest);

/* A usage error of a template that the command passed its unknown
 * options to (CLI_PASS_UNKNOWN): reported as cli_usage_error does, with
 * "did you mean" the command's own closest option when the template
 * found none of its flags close to an unknown one ("--metod: unknown
 * flag" in san sweep: --method). */
int cli_template_error(const cli_spec *spec, const char *msg);

/* The whole help of a subcommand: usage, intro, options by group, extra,
 * outro. */
void cli_help(FILE *out, const cli_spec *spec);

/* Every option name of a table, one a line ("-m", "--method"): what
 * --list-options prints (shell completion, tests). */
void cli_list_options(FILE *out, const cli_spec *spec);

/* The callbacks of -D: NAME=NUMBER into a cli_defines (check, print,
 * solve), NAME=VALUE into a cli_strings (compare). */
int cli_opt_define(const cli_parser *p, const cli_option *o, const char *arg, void *dest);
int cli_opt_define_text(const cli_parser *p, const cli_option *o, const char *arg, void *dest);

/* A growing list of strings (pointers into argv); cli_opt_string, the
 * callback of a repeatable option, adds each. */
typedef struct {
    const char **v;
    int n, cap;
} cli_strings;
int cli_opt_string(const cli_parser *p, const cli_option *o, const char *arg, void *dest);
void cli_strings_free(cli_strings *s);

#endif
