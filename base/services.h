/*
 * services.h - the services every layer of libsan uses (internal): the clock,
 * the progress line, the memory budget, the parsing of numbers and
 * sizes, the JSON and CSV writers, OpenMP pragmas.  Nothing here knows
 * about models, chains or solvers; every other folder may use it.
 * (Diagnostics, the status codes and reading a file are public: san.h.)
 */
#ifndef SAN_BASE_SERVICES_H
#define SAN_BASE_SERVICES_H

#include <stdint.h>
#include <stdio.h>
#include "san.h"

/* OpenMP pragmas that vanish cleanly (no -Wunknown-pragmas) without it. */
#ifdef _OPENMP
#define SAN_OMP(x) _Pragma(#x)
#else
#define SAN_OMP(x)
#endif

/* ---- budget.c ---- */
/* The bytes a run may use: --max-memory (max_memory) when given (> 0),
 * else san_default_max_memory(); every layer's limit starts here. */
double base_budget(double max_memory);

/* ---- clock.c ---- */
/* san_now(), the clock, is public (san/base.h). */

/* A progress line on stderr, redrawn in place at most every interval
 * seconds: for work that takes seconds (exploration, iterations,
 * sweeps).  Callers show it only when stderr is a terminal. */
typedef struct {
    int on;                 /* print at all */
    double interval;        /* seconds between redraws */
    double last;            /* time of the last redraw */
    int open;               /* a line is on the screen */
} base_progress;
void base_progress_init(base_progress *p, int on, double interval);
/* Redraws with printf-style text when the interval has passed (or
 * force); returns 1 when it drew. */
int base_progress_draw(base_progress *p, int force, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Clears the line (erase 1) or ends it with a newline (erase 0). */
void base_progress_end(base_progress *p, int erase);

/* ---- parse.c ---- */
/* san_parse_double, san_parse_integer, san_parse_why, san_parse_bytes
 * and san_format_bytes: public (san/base.h). */

/* ---- opt_set.c ---- */
/* A field of an options struct that a keyed setter writes (the
 * san_*_opts_set of include/: a binding sets options by name, never by
 * layout).  A table ends with a NULL key. */
typedef enum { BASE_OPT_NUMBER, BASE_OPT_INTEGER, BASE_OPT_WORD } base_opt_kind;
typedef enum { BASE_OPT_DOUBLE, BASE_OPT_INT, BASE_OPT_LONG, BASE_OPT_INT64 } base_opt_store;
typedef struct {
    const char *key;
    base_opt_kind kind;
    base_opt_store store;   /* the field's C type */
    size_t off;             /* offsetof the field */
    double lo, hi;          /* NUMBER, INTEGER: the range */
    int zero_ok;            /* 0 too ("no limit") */
    const char *const *words;   /* WORD: the field is the index of the word */
    int (*parse)(const char *s, int *out);  /* WORD: or this parser (0: ok) */
} base_opt;
/* Set obj's field named key from the text value: SAN_OK, or SAN_E_USAGE
 * with msg ("unknown option 'tl' (did you mean 'tol'?)", "tol: expected
 * a number in [1e-300, 1], not 'x' (not a number)"). */
san_status base_opt_set(const base_opt *tab, void *obj, const char *key, const char *value,
                        char *msg, size_t n);
/* Options a caller filled against another layout (issue 30 item 4):
 * every public options struct starts with struct_size, which its
 * _default (init) sets; an entry taking one asks this first, so that a
 * program built against another libsan is refused rather than read
 * wrong.  0 when got == want; else 1 with msg "the WHAT options are not
 * libsan's (struct_size GOT, expected WANT): fill them with INIT".
 * BASE_OPTS_FOREIGN(o, ...) passes o's struct_size and size. */
int base_opts_foreign(size_t got, size_t want, const char *what, const char *init, char *msg,
                      size_t n);
#define BASE_OPTS_FOREIGN(o, what, init, msg, n) \
    base_opts_foreign((o)->struct_size, sizeof *(o), (what), (init), (msg), (n))

/* ---- out.c ---- */
/* san_json_string, san_json_num, san_json_size, san_csv_field: public
 * (san/base.h), for the command's reports. */

/* ---- outfile.c ---- */
/* Output files (san_out_open, _commit, _discard, _cleanup): public
 * (san/base.h), for the command's signal handlers and its outputs. */

#endif
