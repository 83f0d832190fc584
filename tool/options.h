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
    TOOL_OPT_END = 0,
    TOOL_OPT_GROUP,          /* a section heading of the help ("solver:");
                               a heading equal to the one before is not
                               repeated (a table may add to an included
                               group) */
    TOOL_OPT_INCLUDE,        /* a shared table, at an offset */
    TOOL_OPT_FLAG,           /* int: set to value, no argument */
    TOOL_OPT_INT,            /* a whole number in [lo, hi]; int, long or int64_t */
    TOOL_OPT_DOUBLE,         /* a number in [lo, hi] (open ends: open) */
    TOOL_OPT_BYTES,          /* double: a size, "4G", "512M", "1T" */
    TOOL_OPT_METHOD,         /* san_method */
    TOOL_OPT_STORAGE,        /* san_storage */
    TOOL_OPT_LUMP,           /* san_lump */
    TOOL_OPT_PRECOND,        /* san_precond */
    TOOL_OPT_FORMAT,         /* tool_format, among the formats in value */
    TOOL_OPT_STRING,         /* const char *: the argument itself */
    TOOL_OPT_CALLBACK        /* cb(parser, option, argument, destination) */
} tool_opt_kind;

/* A file option's direction: the parser refuses an output that is the
 * same file as an input (an input option, or an operand with
 * TOOL_OPERAND_FILES) before the command reads or writes anything. */
enum { TOOL_IO_NONE = 0, TOOL_IO_INPUT, TOOL_IO_OUTPUT };

/* Open ends of a TOOL_OPT_DOUBLE range. */
enum { TOOL_OPEN_LO = 1, TOOL_OPEN_HI = 2 };

/* Formats a TOOL_OPT_FORMAT accepts (a mask). */
enum { TOOL_FMT_TEXT = 1, TOOL_FMT_JSON = 2, TOOL_FMT_CSV = 4 };

typedef struct tool_option tool_option;
typedef struct tool_parser tool_parser;

/* A callback: 0, or the exit status of a usage error it reported. */
typedef int (*tool_opt_cb)(const tool_parser *p, const tool_option *o, const char *arg,
                          void *dest);

struct tool_option {
    tool_opt_kind kind;
    char short_name;        /* 'm', or 0 */
    const char *long_name;  /* "method" (no dashes), or NULL */
    const char *argh;       /* the argument in the help: "X"; NULL: none */
    size_t offset;          /* of the destination in the caller's structure */
    int size;               /* TOOL_OPT_INT: sizeof the destination */
    double lo, hi;          /* TOOL_OPT_INT, TOOL_OPT_DOUBLE: the range */
    int open;               /* TOOL_OPT_DOUBLE: TOOL_OPEN_LO | TOOL_OPEN_HI */
    int value;              /* TOOL_OPT_FLAG: the value set; FORMAT: the mask */
    const char *expect;     /* what a usage error says is expected ("a
                               positive integer"); NULL: from the range */
    const char *help;       /* lines separated by '\n'; TOOL_OPT_GROUP: title */
    const char *def;        /* the default shown in the help; NULL: none */
    tool_opt_cb cb;
    const tool_option *group;/* TOOL_OPT_INCLUDE */
    int io;                 /* TOOL_OPT_STRING: TOOL_IO_INPUT, TOOL_IO_OUTPUT */
};

#define TOOL_MEMBER_SIZE(T, f) ((int)sizeof(((T *)0)->f))

#define TOOL_END { .kind = TOOL_OPT_END }
#define TOOL_GROUP(title) { .kind = TOOL_OPT_GROUP, .help = (title) }
#define TOOL_INCLUDE(table, T, f) { .kind = TOOL_OPT_INCLUDE, .group = (table), \
    .offset = offsetof(T, f) }
#define TOOL_FLAG(s, l, T, f, v, h) { .kind = TOOL_OPT_FLAG, .short_name = (s), \
    .long_name = (l), .offset = offsetof(T, f), .value = (v), .help = (h) }
#define TOOL_INT(s, l, a, T, f, lo_, hi_, exp, h, d) { .kind = TOOL_OPT_INT, \
    .short_name = (s), .long_name = (l), .argh = (a), .offset = offsetof(T, f), \
    .size = TOOL_MEMBER_SIZE(T, f), .lo = (lo_), .hi = (hi_), .expect = (exp), \
    .help = (h), .def = (d) }
#define TOOL_DOUBLE(s, l, a, T, f, lo_, hi_, op, exp, h, d) { .kind = TOOL_OPT_DOUBLE, \
    .short_name = (s), .long_name = (l), .argh = (a), .offset = offsetof(T, f), \
    .lo = (lo_), .hi = (hi_), .open = (op), .expect = (exp), .help = (h), .def = (d) }
#define TOOL_BYTES(s, l, a, T, f, h, d) { .kind = TOOL_OPT_BYTES, .short_name = (s), \
    .long_name = (l), .argh = (a), .offset = offsetof(T, f), .help = (h), .def = (d) }
#define TOOL_CHOICE(k, s, l, a, T, f, h, d) { .kind = (k), .short_name = (s), \
    .long_name = (l), .argh = (a), .offset = offsetof(T, f), .help = (h), .def = (d) }
/* -f, --format FMT among the formats of mask; h NULL: "text, json or csv" */
#define TOOL_FORMAT(T, f, mask, h) { .kind = TOOL_OPT_FORMAT, .short_name = 'f', \
    .long_name = "format", .argh = "FMT", .offset = offsetof(T, f), .value = (mask), \
    .help = (h), .def = "text" }
#define TOOL_STRING(s, l, a, T, f, h) { .kind = TOOL_OPT_STRING, .short_name = (s), \
    .long_name = (l), .argh = (a), .offset = offsetof(T, f), .help = (h) }
/* A file the command writes (-o, --vector, --plot) or reads (--from). */
#define TOOL_OUTPUT(s, l, a, T, f, h) { .kind = TOOL_OPT_STRING, .short_name = (s), \
    .long_name = (l), .argh = (a), .offset = offsetof(T, f), .help = (h), \
    .io = TOOL_IO_OUTPUT }
#define TOOL_INPUT(s, l, a, T, f, h) { .kind = TOOL_OPT_STRING, .short_name = (s), \
    .long_name = (l), .argh = (a), .offset = offsetof(T, f), .help = (h), \
    .io = TOOL_IO_INPUT }
#define TOOL_CALLBACK(s, l, a, T, f, fn, h) { .kind = TOOL_OPT_CALLBACK, .short_name = (s), \
    .long_name = (l), .argh = (a), .offset = offsetof(T, f), .cb = (fn), .help = (h) }

/* --max-input SIZE into a double (bytes) of T: the cap on a model
 * file's size, for the commands that read one. */
#define TOOL_MAX_INPUT(T, f) TOOL_BYTES(0, "max-input", "M", T, f, \
    "refuse a model file larger than M bytes (e.g.\n" \
    "1G; default 256M; --max-memory when smaller)", NULL)

/* Shared groups (tool/options.c), over a san_sweep_opts: include them with
 * TOOL_INCLUDE(table, your_args, your_san_sweep_opts_member). */
extern const tool_option tool_solver_options[];   /* --method, --tol, --max-iter,
                                                   --omega, --restart, --precond,
                                                   --time-limit, --storage */
extern const tool_option tool_limit_options[];    /* --max-memory, --max-states */
extern const tool_option tool_run_options[];      /* --jobs, then the two above */
/* Over a tool_plot (cli.h): --title, --xlabel, --ylabel, --legend-title,
 * --logx, --logy, --size, --dpi, --table; for every command that
 * plots, so that they read and behave alike. */
extern const tool_option tool_plot_options[];

/* The diagnostic flags of every subcommand that reads a model (check,
 * print, solve, transient, passage, export, sweep, compare, size-buffer,
 * grain), over a tool_diag (cli.h): TOOL_INCLUDE(tool_diag_options, your_args,
 * your_cli_diag_member). */
extern const tool_option tool_diag_options[];     /* --no-peps-warnings, --peps */

/* Parser flags. */
enum {
    TOOL_PASS_UNKNOWN = 1,   /* leave unknown options to the caller, in order
                               (template flags); otherwise they are errors */
    TOOL_ABBREV = 2,         /* accept unambiguous prefixes of long names */
    TOOL_OPERAND_FILES = 4   /* operands may be files the command reads (a
                               model): no output may be one of them, but
                               for those spec->not_a_file names */
};

/* What a subcommand's help and parser are made of. */
typedef struct {
    const char *name;       /* "solve": messages say "san solve: ..." */
    const char *usage;      /* "usage: san solve [options] MODEL\n..." */
    const char *intro;      /* paragraphs after the usage (may be NULL) */
    const tool_option *opts;
    void (*extra)(FILE *out);       /* printed after the options (may be NULL) */
    const char *outro;      /* examples, exit status (may be NULL) */
    int flags;              /* TOOL_PASS_UNKNOWN, TOOL_ABBREV */
    const char *unknown_hint;       /* after "unknown option '--x'" (may be NULL) */
    /* an operand that is a name and never a file (a template: `san sweep
     * ms ... -o ms` writes ms whatever the directory holds); NULL: none */
    int (*not_a_file)(const char *operand);
} tool_spec;

struct tool_parser {
    const tool_spec *spec;
    const char *cmd;        /* spec->name */
};

/* Returned by tool_parse when --help (or --list-options) was answered. */
enum { TOOL_HELP_SHOWN = -1 };

/* Parse argv[1..argc) (argv[0] is the subcommand) into the structure
 * at dest.  The arguments that are not options of the table (operands,
 * and unknown options with TOOL_PASS_UNKNOWN) go to *rest, in order,
 * NULL-terminated (malloc'd; free it), their count to *nrest.  Returns
 * 0; TOOL_HELP_SHOWN after printing the help; or the exit status of a
 * usage error, reported as "san CMD: --opt: expected ..., not 'x'". */
int tool_parse(const tool_spec *spec, int argc, char **argv, void *dest, char ***rest,
              int *nrest);

/* A usage error of a template that the command passed its unknown
 * options to (TOOL_PASS_UNKNOWN): reported as tool_usage_error does, with
 * "did you mean" the command's own closest option when the template
 * found none of its flags close to an unknown one ("--metod: unknown
 * flag" in san sweep: --method). */
int tool_template_error(const tool_spec *spec, const char *msg);

/* The whole help of a subcommand: usage, intro, options by group, extra,
 * outro. */
void tool_help(FILE *out, const tool_spec *spec);

/* Every option name of a table, one a line ("-m", "--method"): what
 * --list-options prints (shell completion, tests). */
void tool_list_options(FILE *out, const tool_spec *spec);

/* The callbacks of -D: NAME=NUMBER into a tool_defines (check, print,
 * solve), NAME=VALUE into a tool_strings (compare). */
int tool_opt_define(const tool_parser *p, const tool_option *o, const char *arg, void *dest);
int tool_opt_define_text(const tool_parser *p, const tool_option *o, const char *arg, void *dest);

/* A growing list of strings (pointers into argv); tool_opt_string, the
 * callback of a repeatable option, adds each. */
typedef struct {
    const char **v;
    int n, cap;
} tool_strings;
int tool_opt_string(const tool_parser *p, const tool_option *o, const char *arg, void *dest);
void tool_strings_free(tool_strings *s);

#endif
