/*
 * fuzz_sweep.c - libFuzzer target: bytes as the arguments of `san sweep`
 * over a template, for its range parser (sweep/values.c) and its
 * expansion into variants (sweep/spec.c).
 *
 * The input is a command line, one argument a line (fuzz_args.h):
 * "ms" or "pipeline" (anything else is skipped: a model file would be
 * read from the disk), then flags with value lists ("--slaves\n2..7\n",
 * "--buffer=1,5,10..40:10", "-D\nlambda=1,2").  Every value list goes
 * through san_sweep_values, whose answer must hold: at least one value,
 * at most SWEEP_MAX_VALUES, none empty, and a lone range a..b[:step]
 * gives numbers in [a, b] in increasing order.  When the lists make at
 * most FUZZ_SWEEP_VARIANTS variants of small models (no number above
 * FUZZ_SWEEP_BIG in the values), the whole command goes through
 * san_sweep_init, which expands the variants and compiles each one (no
 * solve): it must succeed with 1..product variants or refuse with a
 * message.  Any other outcome aborts, so that libFuzzer keeps the input.
 * (The front end tabulates the functions of 11 slaves, 3^11 states, in
 * seconds under the fuzzer's sanitizers, and eight variants of 6 slaves
 * in ten: timeouts, the first findings, hence the small bounds.)
 *
 * Build and run: fuzz/run.sh sweep SECONDS.  make check replays the seeds
 * and tests/regress/sweep through fuzz/replay_sweep (fuzz/replay.c).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "san.h"
#include "sweep/sweep_int.h"
#include "fuzz/fuzz_args.h"

#define FUZZ_SWEEP_VARIANTS 4
#define FUZZ_SWEEP_BIG 4.0

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *flag, const char *text)
{
    fprintf(stderr, "fuzz_sweep: %s (%s '%s')\n", what, flag, text);
    abort();
}

/* Is text one range "a..b" or "a..b:step", with nothing else? */
static int lone_range(const char *text, double *a, double *b)
{
    const char *dots = strstr(text, "..");
    if (strpbrk(text, ",;") || !dots || dots - text >= 64)
        return 0;
    /* strtod would read "1..2" as "1." and ".2": the ends are cut first */
    char left[64], *end;
    memcpy(left, text, dots - text);
    left[dots - text] = '\0';
    *a = strtod(left, &end);
    if (end == left || *end)
        return 0;
    *b = strtod(dots + 2, &end);
    return end != dots + 2 && (!*end || *end == ':');
}

/* A lone range's values: numbers from a to b, increasing (the values
 * are printed with 12 digits: a tolerance of 1e-11 relative). */
static void check_range(const char *flag, const char *text, char **v, int n)
{
    double a, b;
    if (!lone_range(text, &a, &b))
        return;
    double tol = 1e-11 * (fabs(a) > fabs(b) ? fabs(a) : fabs(b)) + 1e-300;
    double prev = -INFINITY;
    for (int i = 0; i < n; i++) {
        char *end;
        double x = strtod(v[i], &end);
        if (end == v[i] || *end)
            fail("a range gave a value that is not a number", flag, text);
        if (!(x >= a - tol && x <= b + tol))
            fail("a range gave a value outside its ends", flag, text);
        if (!(x > prev))
            fail("a range's values do not increase", flag, text);
        prev = x;
    }
}

/* Does a value hold a number above FUZZ_SWEEP_BIG (a model too large to
 * compile in milliseconds: --slaves 11, --buffer 100000)? */
static int has_big_number(const char *s)
{
    for (const char *p = s; *p;) {
        if (isdigit((unsigned char)*p) || *p == '.') {
            char *end;
            double x = strtod(p, &end);
            if (end > p) {
                if (!(fabs(x) <= FUZZ_SWEEP_BIG))
                    return 1;
                p = end;
                continue;
            }
        }
        p++;
    }
    return 0;
}

/* One value list through san_sweep_values; its count (0 when refused,
 * -1 when out of memory). */
static int one_list(const char *tmpl, const char *flag, const char *text, int *big)
{
    char **v = NULL;
    char err[512] = "";
    int n = san_sweep_values(flag, text, sweep_list_valued(tmpl, flag), &v, err, sizeof err);
    if (n < 0) {
        if (!err[0])
            fail("a refusal without a message", flag, text);
        return strstr(err, "out of memory") ? -1 : 0;
    }
    if (n < 1 || n > SWEEP_MAX_VALUES)
        fail("a count out of range", flag, text);
    for (int i = 0; i < n; i++) {
        if (!v[i] || !v[i][0])
            fail("an empty value", flag, text);
        *big |= has_big_number(v[i]);
    }
    if (!sweep_list_valued(tmpl, flag))
        check_range(flag, text, v, n);
    san_sweep_values_free(v, n);
    return n;
}

/* Walk the arguments as san sweep does, each value list through
 * one_list; the product of the counts (0 when a list was refused). */
static double all_lists(fuzz_args *a, int *big)
{
    double product = 1;
    for (int i = 1; i < a->argc; i++) {
        const char *arg = a->argv[i], *flag = arg, *text = NULL;
        char name[80];
        if (!strcmp(arg, "-D") && i + 1 < a->argc) {
            text = strchr(a->argv[++i], '=');
            flag = "-D";
        } else if (!strncmp(arg, "-D", 2)) {
            text = strchr(arg, '=');
            flag = "-D";
        } else if (!strncmp(arg, "--", 2)) {
            const char *eq = strchr(arg, '=');
            size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
            snprintf(name, sizeof name, "%.*s", (int)(len < 79 ? len : 79), arg);
            flag = name;
            text = eq ? eq + 1 : i + 1 < a->argc ? a->argv[++i] : NULL;
        }
        if (!text)
            continue;
        int n = one_list(a->argv[0], flag, text + (flag[1] == 'D' && text[0] == '='), big);
        if (n <= 0)
            return 0;
        product *= n;
    }
    return product;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_args a;
    if (fuzz_args_split(&a, data, size) < 0)
        return 0;
    if (strcmp(a.argv[0], "ms") != 0 && strcmp(a.argv[0], "pipeline") != 0) {
        fuzz_args_free(&a);
        return 0;
    }
    int big = 0;
    double product = all_lists(&a, &big);
    if (product >= 1 && product <= FUZZ_SWEEP_VARIANTS && !big) {
        san_sweep s;
        char err[1024] = "";
        int rc = san_sweep_init(&s, a.argc, a.argv, NULL, err, sizeof err);
        if (rc == 0 && (s.nvariants < 1 || s.nvariants > product))
            fail("a sweep with a wrong number of variants", a.argv[0], "");
        if (rc == -2 && !err[0])
            fail("a refused sweep without a message", a.argv[0], "");
        if (rc == 0)
            san_sweep_clear(&s);
    }
    fuzz_args_free(&a);
    return 0;
}
