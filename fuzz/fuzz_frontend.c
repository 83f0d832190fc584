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
#include "fuzz/fuzz_load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text;
    san_model *m = fuzz_load(data, size, &text);
    if (m) {
        san_model_print(m, devnull);
        san_model_free(m);
    }
    free(text);
    return 0;
}
