/*
 * fuzz_frontend.c - libFuzzer target: any bytes as a .san file.
 *
 * The input goes through san_model_load exactly as `san check` sends a file
 * (NUL-terminated copy, a san_diag quoting the source, PEPS warnings on);
 * the diagnostics are printed and a compiled model is printed back as
 * .san text, both to /dev/null, then everything is freed (leaks are bugs:
 * libFuzzer reports them under AddressSanitizer).
 *
 * Build and run: fuzz/run.sh frontend SECONDS
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "san.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!devnull && !(devnull = fopen("/dev/null", "w")))
        abort();
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    if (size)
        memcpy(text, data, size);
    text[size] = '\0';

    san_diag d;
    san_diag_init(&d, "fuzz.san", text, size);
    san_load_opts opt;
    memset(&opt, 0, sizeof opt);
    opt.peps_warnings = 1;
    san_model *m = san_model_load(text, size, &d, &opt);
    san_diag_print(&d, devnull, 0);
    if (m) {
        san_model_print(m, devnull);
        san_model_free(m);
    }
    san_diag_free(&d);
    free(text);
    return 0;
}
