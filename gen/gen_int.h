/*
 * gen_int.h - internal declarations of the model generators (gen/).
 *
 * A template turns command-line flags into .san text.  The pieces every
 * template needs live in gen.c: a growable text buffer with printf-append,
 * the flag scanner (--flag VALUE and --flag=VALUE), parsers for numbers and
 * comma-separated lists that produce messages naming the flag, and the
 * header comment that records the command line.
 */
#ifndef SAN_GEN_INT_H
#define SAN_GEN_INT_H

#include <stddef.h>
#include <stdio.h>

/* Upper bounds that keep the parameter structures flat (no allocation).
 * 40 stages are the most whose smallest model fits the solver's 64-bit
 * state indices.  Alike slaves are written as replicas, which the solver
 * lumps (issue 28): 3 * C(N+2, 2) states for N of them, so 1,024 slaves
 * are in reach; slaves written one by one (other rates, --expanded) are
 * still refused past 38 by the size check (gen_check_size). */
enum { GEN_MAX_SLAVES = 1024, GEN_MAX_STAGES = 40, GEN_MAX_PHASES = 64 };

/* The ranges of the template flags, chosen so that every quantity the
 * templates derive is finite and representable (issue 15):
 *  - times and rates, in any unit, within 12 orders of magnitude of 1:
 *    every derived rate (1/(TT*N), k/T, 1/sum(T/P)) is then a finite,
 *    normal double, and the ratio of two rates stays within 1e24, past
 *    which no answer has a correct digit anyway;
 *  - probabilities 0, or at least 1e-12 from 0 and from 1 (pi, and NB up
 *    to 1e12 packs per slice): pi_c = 1 - pi keeps its digits;
 *  - structural counts (buffer positions, replicas, slices, a queue's
 *    capacity) up to 10^6: one automaton of a million states compiles in
 *    about a second;
 *  - the product space within the 64-bit state indices of the solver
 *    (gen_big_fits): past them no model can be explored or even scanned. */
#define GEN_TIME_MIN 1e-12
#define GEN_TIME_MAX 1e12
#define GEN_PROB_EPS 1e-12
#define GEN_MAX_COUNT 1000000L
/* The items of a job (pipeline --items): only a number in a formula,
 * N - 1 items at the steady throughput. */
#define GEN_MAX_ITEMS 1000000000000L

/* ---- text buffer ---- */

typedef struct {
    char *s;
    size_t len, cap;
    int oom;                /* an allocation failed: the text is incomplete */
} gbuf;

void gbuf_printf(gbuf *b, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The text, handed over to the caller (NULL after an allocation failure). */
char *gbuf_take(gbuf *b);
void gbuf_free(gbuf *b);

/* ---- errors ---- */

void gen_err(char *err, size_t n, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- flags ---- */

/* Called once per flag with its value; returns 0 when handled, -1 after
 * writing a message into err, GEN_UNKNOWN when the flag is not the
 * template's.  Called first with val NULL (flag written without '='):
 * GEN_SWITCH when the flag takes no value and is now set (--expanded),
 * else 0 or GEN_UNKNOWN without effect. */
enum { GEN_UNKNOWN = 1, GEN_SWITCH = 2 };
typedef int (*gen_flag_fn)(void *ctx, const char *flag, const char *val,
                           char *err, size_t n);

/* Walk argv[1..argc) (argv[0] is the template name).  Every flag but a
 * switch takes a value.  Returns 0, or -1 with err set (unknown flag,
 * with the closest of the template's flags, NULL-terminated in known;
 * missing value, a stray argument, or whatever fn reported). */
int gen_scan_flags(int argc, char **argv, gen_flag_fn fn, void *ctx,
                   const char *const *known, char *err, size_t n);

/* Value parsers.  Each returns 0, or -1 with a message that names the
 * flag, the range and the reason: "--slaves: must be an integer in
 * [1, 64] (got 0: too small)". */
int gen_int(const char *flag, const char *val, long min, long max,
            long *out, char *err, size_t n);
int gen_real(const char *flag, const char *val, double lo, double hi, double *out,
             char *err, size_t n);
/* A time or a rate: [GEN_TIME_MIN, GEN_TIME_MAX]. */
int gen_time(const char *flag, const char *val, double *out, char *err, size_t n);
/* 0 (none), or a time. */
int gen_time_or_zero(const char *flag, const char *val, double *out, char *err, size_t n);
/* 0, or [GEN_PROB_EPS, 1 - GEN_PROB_EPS]. */
int gen_prob(const char *flag, const char *val, double *out,
             char *err, size_t n);
/* "1,2.5,3": at most max items, each a time. */
int gen_time_list(const char *flag, const char *val, double *out, int max,
                  int *count, char *err, size_t n);
/* "1,2,3": at most maxitems items, each an integer in [min, max]. */
int gen_int_list(const char *flag, const char *val, long min, long max, long *out,
                 int maxitems, int *count, char *err, size_t n);

/* --explain, the switch every template takes: GEN_SWITCH after setting
 * *on, -1 with err when given a value, GEN_UNKNOWN for another flag. */
int gen_explain_flag(const char *flag, const char *val, int *on, char *err, size_t n);

/* ---- output helpers ---- */

/* The text is compact by default: the model, the command line that wrote
 * it and where its names are explained, no more (issue 16: the text of
 * `san gen ms --slaves 7` at most a quarter of its first form).  The
 * templates write the explained text, a header with the derivation of
 * every value and a comment on most lines; without --explain they replace
 * the header by gen_provenance and strip the comments of the rest, so
 * the two texts are the same model by construction. */

/* "// generated by: san gen ms --mode async ...": the command line, with
 * control characters replaced so that it cannot end the comment.  Read
 * back by `san solve -D` (tool/defines.c) to name the flag of a structural
 * constant: every text has it in its first lines. */
void gen_cmdline_comment(gbuf *b, int argc, char **argv);
/* The compact header: the command line, the version, and where the
 * identifiers and results are explained (--explain, doc/indices.md). */
void gen_provenance(gbuf *b, int argc, char **argv);
/* One line of code, its comment aligned on a common column: gen_line(b, "N, number of slaves", "  N_slaves = %ld;", n). */
void gen_line(gbuf *b, const char *comment, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* The compact text: from offset `from` on, every comment goes, with the
 * line when the comment was all of it, and with the spaces before it.
 * SAN has no string literals, so "//" always starts a comment. */
void gen_strip_comments(gbuf *b, size_t from);
/* A template's text in two parts, over the template's own parameters t:
 * the --explain header (the derivation of every value, size being the
 * product-space formula) and the body (identifiers, events, reach,
 * network, results). */
typedef struct {
    void (*header)(gbuf *b, const void *t, const char *size, int argc, char **argv);
    void (*body)(gbuf *b, const void *t);
} gen_writer;
/* The model text of a template: w's header under explain, else
 * gen_provenance, then w's body with its comments stripped unless
 * explain.  Takes size (NULL: out of memory, or err already set by its
 * writer); hands it to *out_size when that is not NULL and the text was
 * written, frees it otherwise.  NULL with err on failure. */
char *gen_write(const gen_writer *w, const void *t, int explain, char *size, int argc,
                char **argv, char **out_size, char *err, size_t n);
/* A number as the header comments show it: 12 significant digits. */
const char *gen_fmt(char *buf, size_t n, double v);
/* A number as it is written into the model's code: the shortest form
 * that reads back as the same double (0.9999999999999 stays below 1). */
const char *gen_fmt_exact(char *buf, size_t n, double v);

/* ---- exact sizes ---- */

/* A product of small factors, exact up to GEN_BIG_LIMBS * 9 digits (the
 * product-space formulas exceed 64 bits long before a model is too big
 * to write down). */
enum { GEN_BIG_LIMBS = 256 };
typedef struct {
    unsigned limb[GEN_BIG_LIMBS];   /* base 1e9, least significant first */
    int n;
    int overflow;                   /* past the limbs: only log10 is kept */
    double log10;
} gen_big;

void gen_big_one(gen_big *b);
void gen_big_mul(gen_big *b, unsigned long f);
/* Decimal digits, or "about 1e+N" after an overflow. */
void gen_big_str(const gen_big *b, char *buf, size_t n);
/* Does it fit the solver's 64-bit state indices (<= INT64_MAX)? */
int gen_big_fits(const gen_big *b);
/* The count for a message: exact up to 19 digits, else "about 1.2e+45". */
void gen_big_short(const gen_big *b, char *buf, size_t n);
/* An error when the product space does not fit: "the product space
 * FORMULA states is past ...; lower FLAGS". */
int gen_check_size(const gen_big *b, const char *formula, const char *flags,
                   char *err, size_t n);

/* ---- templates ---- */

/* Each returns the model text (malloc'd) and, when size is not NULL, the
 * product-space formula with its value substituted (malloc'd), e.g.
 * "3 * 3^N * (K+1) = 3 * 3^2 * (3+1) = 108"; NULL with err on bad flags. */
char *gen_ms(int argc, char **argv, char **size, char *err, size_t n);
char *gen_pipeline(int argc, char **argv, char **size, char *err, size_t n);
void gen_ms_help(FILE *out);
void gen_pipeline_help(FILE *out);

/* The dispatcher behind san_gen, with the size formula as well
 * (dispatch.c). */
char *gen_run(int argc, char **argv, char **size, char *err, size_t n);

#endif
