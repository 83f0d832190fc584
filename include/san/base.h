/*
 * san/base.h - the ground every other part stands on: the status codes,
 * diagnostics with positions, the version, reading a file, and the
 * SAN_API mark of what libsan exports.
 */
#ifndef SAN_PUBLIC_BASE_H
#define SAN_PUBLIC_BASE_H

#include <stdint.h>
#include <stdio.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What libsan exports: with -fvisibility=hidden (configure does it)
 * everything else stays inside the library. */
#if defined(__GNUC__) && !defined(SAN_STATIC_ONLY)
#define SAN_API __attribute__((visibility("default")))
#else
#define SAN_API
#endif

/* An old name kept for callers of an earlier interface (libsan.so.1):
 * the compiler warns where it is used. */
#if defined(__GNUC__)
#define SAN_DEPRECATED __attribute__((deprecated))
#else
#define SAN_DEPRECATED
#endif

/* ------------------------------------------------------------------ */
/* Status: the one vocabulary of failure                                */
/* ------------------------------------------------------------------ */

/* What every public entry point that can fail returns; the explanation
 * is in a san_diag or a message of the call.  The command line turns a
 * status into an exit code in one place (tool/status.c): the user's errors
 * (model, usage, a limit the user set) exit 2, the others 1. */
typedef enum {
    SAN_OK = 0,
    SAN_E_MODEL,            /* the model is wrong (a position says where) */
    SAN_E_USAGE,            /* bad options or arguments */
    SAN_E_NOMEM,            /* out of memory */
    SAN_E_LIMIT,            /* over --max-memory or --max-states */
    SAN_E_NOTCONV,          /* not converged: the best answer is kept */
    SAN_E_INTERRUPTED,      /* interrupted, or --time-limit reached */
    SAN_E_NUMERIC,          /* a numerical failure: breakdown, overflow */
    SAN_E_IO,               /* a file could not be read or written */
    SAN_E_INPUT             /* the model input cannot be used: no such
                               file, a directory, no permission, over the
                               input limit (the user's to fix, unlike an
                               I/O error) */
} san_status;

/* "ok", "model", "usage", "out of memory", ... */
SAN_API const char *san_status_name(san_status st);

/* ------------------------------------------------------------------ */
/* Diagnostics                                                          */
/* ------------------------------------------------------------------ */

typedef enum { SAN_NOTE, SAN_WARNING, SAN_ERROR } san_severity;

typedef struct {
    san_severity sev;
    int line, col;          /* 1-based; 0 when the message has no position */
    char *msg;
} san_diag_item;

typedef struct {
    const char *file;       /* name shown in messages ("<stdin>" for -) */
    const char *src;        /* the source text, to quote lines; may be NULL */
    size_t srclen;
    san_diag_item *items;
    int n, cap;
    int nerrors, nwarnings;
    int max_errors;         /* stop collecting past this many errors */
    int heap;               /* 1: made by san_diag_new (san_diag_free
                               frees d itself only then) */
} san_diag;

/* A caller's san_diag: san_diag_init, and san_diag_clear releases its
 * messages (d itself is the caller's: libsan.so.1 called this
 * san_diag_free, now the name of the heap one's release below). */
SAN_API void san_diag_init(san_diag *d, const char *file, const char *src, size_t len);
SAN_API void san_diag_clear(san_diag *d);
SAN_API void san_diag_add(san_diag *d, san_severity sev, int line, int col,
                  const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/* The same on the heap, for callers that do not see the layout (the
 * Python binding): san_diag_new (file and src are not copied: they
 * must outlive d; NULL when out of memory), san_diag_free (its items
 * and d; san_diag_delete is its old name; on a caller's own diag, made
 * by san_diag_init, it only clears it, as libsan.so.1's san_diag_free
 * did: a program written for that library keeps working when rebuilt).  san_diag_count: the
 * messages kept; san_diag_message: the k-th (0-based; NULL past the
 * end), its severity and its 1-based line and column (0: no position)
 * into the pointers that are not NULL; san_diag_file: the name given. */
SAN_API san_diag *san_diag_new(const char *file, const char *src, size_t len);
SAN_API void san_diag_free(san_diag *d);
SAN_API SAN_DEPRECATED void san_diag_delete(san_diag *d);
SAN_API int san_diag_count(const san_diag *d);
SAN_API const char *san_diag_file(const san_diag *d);
SAN_API const char *san_diag_message(const san_diag *d, int k, san_severity *sev, int *line,
                                     int *col);
/* Print as FILE:LINE:COL: error: msg, then the source line and a caret. */
SAN_API void san_diag_print(const san_diag *d, FILE *out, int color);

/* ------------------------------------------------------------------ */
/* Versions and utilities                                               */
/* ------------------------------------------------------------------ */

SAN_API const char *san_version(void);

/* The cap on a model's size when none is given: a model is text, and
 * the largest real ones are a few MB; without a cap, `san check
 * /dev/zero` grew its buffer until memory ran out. */
#define SAN_MAX_INPUT_DEFAULT (256.0 * 1024 * 1024)

/* The one reader of model input, for every command and caller: the
 * whole of path ("-": standard input, a FIFO, a device: read to its
 * end) into *text, NUL-terminated (NULs inside are kept and counted in
 * *len, for the lexer to report), malloc'd.  At most max_bytes (0:
 * SAN_MAX_INPUT_DEFAULT); a regular file over it is refused before a
 * byte is read.  Returns SAN_OK; SAN_E_INPUT with msg "PATH: no such
 * file", "PATH: is a directory", "PATH: permission denied" or "PATH:
 * larger than the input limit of 256 MiB"; SAN_E_IO ("PATH: " and the
 * system's words) when reading fails; SAN_E_NOMEM. */
SAN_API san_status san_read_input(const char *path, double max_bytes, char **text, size_t *len,
                                  char *msg, size_t n);
/* The same without a message: NULL with errno set (EFBIG over the
 * default limit). */
SAN_API char *san_read_file(const char *path, size_t *len);

/* The writers of machine-readable output (base/out.c), one for every
 * report (doc/output.md): a JSON string with its escapes; a JSON number
 * with 17 significant digits (it reads back to the same double), and
 * the strings "inf", "-inf" and "nan" for what JSON has no number for
 * (null is kept for "not computed", which the callers write); a CSV
 * field, quoted when it must be. */
SAN_API void san_json_string(FILE *out, const char *s);
SAN_API void san_json_num(FILE *out, double v);
SAN_API void san_csv_field(FILE *out, const char *s);
/* A product size, exact and approximate, in one shape in every report:
 * {"digits": "1234...", "approx": 1.234e+56} (digits: the decimal
 * digits; approx: the nearest double, "inf" past the largest). */
SAN_API void san_json_size(FILE *out, const char *digits);

/* Seconds on the monotonic clock (base/clock.c): the one clock of the
 * library and of the command. */
SAN_API double san_now(void);

/* Numbers and sizes as users type them (base/parse.c), one parser for
 * every subcommand and every caller of the library.  Each takes the
 * whole string and returns 0, or -1 when it is not what is asked. */
/* A number in [lo, hi]. */
SAN_API int san_parse_double(const char *s, double lo, double hi, double *out);
/* A whole number in [lo, hi]. */
SAN_API int san_parse_integer(const char *s, double lo, double hi, double *out);
/* Why san_parse_double (whole 0) or san_parse_integer (whole 1) refuses
 * s with this range, for a message: "not a number", "infinite, or too large ...",
 * "too small: it rounds to 0 ...", "too small", "too large", "not a
 * whole number"; NULL when it is accepted.  A subnormal (1e-308) is a
 * number like any other: accepted when in the range. */
SAN_API const char *san_parse_why(const char *s, double lo, double hi, int whole);
/* A range of numbers as every flag that takes a list writes it
 * (base/range.c): a..b (step 1) or a..b:step, ends in [lo, hi], step > 0;
 * a..b/step (san transient's old spelling) is read too, old_spelling set
 * for the caller's warning.  count: the number of points (a double: it
 * may be past any limit the caller sets); san_range_at(r, i) the i-th,
 * the last one b.  0, or -1 with why (a message naming the range). */
typedef struct {
    double a, b, step;
    double count;
    int old_spelling;
} san_range;
SAN_API int san_parse_range(const char *s, double lo, double hi, san_range *r, char *why,
                            size_t n);
SAN_API double san_range_at(const san_range *r, long i);
/* A size in bytes: "4G", "512M", "100k", "1T", "1e9", "2GB", "2GiB"
 * (k, M, G, T are powers of 1024). */
SAN_API int san_parse_bytes(const char *s, double *out);
/* A size for people, in the unit that shows it: "512 B", "1.50 KiB",
 * "24.0 MiB", "6.00 GiB" (three significant digits, never "0.00 GiB");
 * returns buf.  The one way sizes are written in messages and reports. */
SAN_API const char *san_format_bytes(double bytes, char *buf, size_t n);

/* "Did you mean" (base/suggest.c): the closest of a list of names to a
 * word that is none of them, for the model's diagnostics and the
 * command's usage errors alike.  Offer each name with san_suggest_add;
 * san_suggest_best is the first of the closest within a distance that
 * grows with the word's length (one edit up to 5 letters, two up to 8,
 * then a quarter of it), or NULL. */
typedef struct {
    const char *word;
    const char *best;       /* a name offered (not copied) */
    int dist;
} san_suggest;
SAN_API void san_suggest_init(san_suggest *s, const char *word);
SAN_API void san_suggest_add(san_suggest *s, const char *name);
SAN_API const char *san_suggest_best(const san_suggest *s);
/* Insertions, deletions, substitutions and swaps of neighbours turning a
 * into b; max + 1 as soon as it is known to exceed max. */
SAN_API int san_edit_distance(const char *a, const char *b, int max);

/* ------------------------------------------------------------------ */
/* Output files (base/outfile.c)                                        */
/* ------------------------------------------------------------------ */

/* Every file libsan and the command write goes through these (san(1),
 * OUTPUT FILES).  A regular file is written into a temporary file of
 * its directory and renamed over it at the end, keeping its mode: a
 * failure or a signal leaves the old file; a device, a FIFO, "-" (and
 * /dev/stdout, /dev/fd/N) are written as they are; a symbolic link is
 * followed to the file it names; a file with several hard links is
 * copied into in place at the end, so that the links stay. */
typedef struct san_out san_out;
/* Start writing path ("-" or NULL: standard output); NULL with errno. */
SAN_API san_out *san_out_open(const char *path);
/* The stream to write to. */
SAN_API FILE *san_out_file(const san_out *o);
/* Flush, make durable and put in place; 0, or -1 with errno (the target
 * then holds what it held before, but for the hard-link copy).  Frees o
 * either way; standard output stays open. */
SAN_API int san_out_commit(san_out *o);
/* Give up: the temporary file goes, the target stays as it was.  Frees o. */
SAN_API void san_out_discard(san_out *o);
/* Would writing out ("-" or NULL: standard output) overwrite the file
 * in ("-": standard input) names?  1 when both name one regular file
 * (the same device and inode, through symbolic and hard links), else 0
 * (a path where nothing exists yet included): a command checks each of
 * its outputs against each of its inputs before it writes anything, so
 * that a slip of -o onto the model's name cannot replace the model. */
SAN_API int san_out_overwrites(const char *out, const char *in);
/* Remove every temporary file this process is writing: for signal
 * handlers (async-signal-safe), which then end the process. */
SAN_API void san_out_cleanup(void);

#ifdef __cplusplus
}
#endif
#endif
