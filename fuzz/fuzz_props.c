/*
 * fuzz_props.c - libFuzzer target: any bytes as a property file.
 *
 * The input goes through san_props_parse as `san props --props FILE`
 * sends it (the constant K given by -D), the diagnostics printed to
 * /dev/null; every property it accepts is checked on a small chain
 * with two closed classes (tests/prism/props_chain.prism, held here as
 * text), with uniformization capped at 10^5 products so that a long
 * time bound is a refusal, not a hang.  An answer outside [0, 1] for a
 * probability is a bug, reported by abort().
 *
 * Build and run: fuzz/run.sh props SECONDS
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "san.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char model[] =
    "ctmc\n"
    "module M\n"
    "  x : [0..3] init 0;\n"
    "  y : [0..2] init 0;\n"
    "  [] x < 3 & y = 0 -> 2 : (x'=x+1);\n"
    "  [] x > 0 & y = 0 -> 1.5 : (x'=x-1);\n"
    "  [go] x = 3 & y = 0 -> 0.5 : (y'=1);\n"
    "  [] x = 0 & y = 0 -> 0.4 : (y'=2);\n"
    "  [] y = 1 & x > 0 -> 1 : (x'=x-1);\n"
    "  [] y = 1 & x < 3 -> 0.7 : (x'=x+1);\n"
    "  [] y = 2 & x < 3 -> 1 : (x'=x+1);\n"
    "  [] y = 2 & x > 0 -> 3 : (x'=x-1);\n"
    "endmodule\n"
    "label \"full\" = x = 3;\n"
    "label \"low\" = x <= 1;\n"
    "rewards \"xr\" true : x; endrewards\n"
    "rewards \"cost\" y = 0 : x; y = 2 : 1; [go] true : 5; endrewards\n";

static FILE *devnull;
static san_model *m;
static san_checker *chk;

static void setup(void)
{
    if (!(devnull = fopen("/dev/null", "w")))
        abort();
    san_diag d;
    san_diag_init(&d, "chain.prism", model, sizeof model - 1);
    char *text = NULL;
    if (san_import_prism_flags("chain.prism", model, sizeof model - 1, NULL, 0, NULL,
                               SAN_IMPORT_PROPS, &text, &d) != SAN_OK)
        abort();
    san_diag_clear(&d);
    san_diag_init(&d, "chain.san", text, strlen(text));
    m = san_model_load(text, strlen(text), &d, NULL);
    san_diag_clear(&d);
    free(text);
    if (!m)
        abort();
    san_props_opts o;
    san_props_opts_default(&o);
    o.max_steps = 1e5;
    san_diag_init(&d, "chain.san", NULL, 0);
    if (san_checker_new(m, &o, &chk, &d) != SAN_OK)
        abort();
    san_diag_clear(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!devnull)
        setup();
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    if (size)
        memcpy(text, data, size);
    text[size] = '\0';
    san_define defs[1] = { { "K", 2, 0 } };
    san_props *P = NULL;
    san_diag d;
    san_diag_init(&d, "fuzz.props", text, size);
    san_status st = san_props_parse(text, size, defs, 1, &P, &d);
    san_diag_print(&d, devnull, 0);
    san_diag_clear(&d);
    for (int i = 0; st == SAN_OK && i < san_props_count(P); i++) {
        san_prop_answer a;
        san_diag_init(&d, "fuzz.props", text, size);
        san_status s2 = san_checker_eval(chk, P, i, &a, &d);
        san_diag_print(&d, devnull, 0);
        san_diag_clear(&d);
        if (s2 == SAN_OK && !strcmp(a.kind, "probability") &&
            !(a.value >= 0 && a.value <= 1))
            abort();
    }
    san_props_free(P);
    free(text);
    return 0;
}
