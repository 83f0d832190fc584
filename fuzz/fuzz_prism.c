/*
 * fuzz_prism.c - libFuzzer target: any bytes as a PRISM model.
 *
 * The input goes through san_import_prism as `san import prism` sends a
 * file, its undefined constants given the value 2 by -D (the first
 * eight names a model of the seeds leaves undefined: N, c, t, n, ...);
 * the diagnostics are printed to /dev/null.  The .san text of an
 * accepted model must compile: a model the importer writes and the
 * front end refuses is a bug of the importer, reported by abort().
 *
 * Build and run: fuzz/run.sh prism SECONDS
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
    /* the open constants of the seeds, each 2 when the model has it: an
     * input without it is refused for the unknown -D, so only the ones
     * the text names are passed */
    static const char *const names[] = { "N", "c", "t", "n", "MAX_COUNT", "N1", "N2", "N3" };
    san_define defs[8];
    int nd = 0;
    for (int i = 0; i < 8; i++)
        if (memmem(text, size, names[i], strlen(names[i])))
            defs[nd++] = (san_define){ names[i], 2, 0 };
    san_diag d;
    san_diag_init(&d, "fuzz.prism", text, size);
    char *out = NULL;
    san_status st = san_import_prism("fuzz.prism", text, size, defs, nd, NULL, &out, &d);
    san_diag_print(&d, devnull, 0);
    san_diag_clear(&d);
    if (st == SAN_OK) {
        size_t len = strlen(out);
        san_diag e;
        san_diag_init(&e, "fuzz.san", out, len);
        san_load_opts opt;
        san_load_opts_default(&opt);
        san_model *m = san_model_load(out, len, &e, &opt);
        /* a model too large to compile is not the importer's fault */
        int toolarge = 0;
        for (int i = 0; i < e.n; i++)
            toolarge |= strstr(e.items[i].msg, "too") != NULL ||
                        strstr(e.items[i].msg, "limit") != NULL;
        if (!m && !toolarge) {
            san_diag_print(&e, stderr, 0);
            fputs(out, stderr);
            abort();
        }
        san_diag_clear(&e);
        san_model_free(m);
        free(out);
    }
    free(text);
    return 0;
}
