/*
 * fuzz_solve.c - libFuzzer target: the front end plus a capped solve.
 *
 * Any bytes as a .san file; a model that compiles and whose product space
 * has at most FUZZ_MAX_STATES states goes through san_analyze, the
 * pipeline of `san solve` (same cap on reachable states, 256 MB memory
 * cap, auto method, 2000 iterations, 1 s); everything is freed.
 * Larger models are skipped so that each input takes milliseconds.
 *
 * Build and run: fuzz/run.sh solve SECONDS
 */
#include "fuzz/fuzz_load.h"

#define FUZZ_MAX_STATES 4000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text;
    san_model *m = fuzz_load(data, size, &text);
    int64_t product;
    if (!m || !san_model_product(m, &product) || product > FUZZ_MAX_STATES) {
        san_model_free(m);
        free(text);
        return 0;
    }

    san_analysis_opts ao;
    san_analysis_opts_default(&ao);
    ao.space.max_states = FUZZ_MAX_STATES;
    ao.space.max_memory = 256.0 * 1024 * 1024;
    ao.solve.max_iter = 2000;
    ao.solve.time_limit = 1.0;
    ao.ntop = 10;
    san_diag d;
    san_diag_init(&d, "fuzz.san", NULL, 0);
    san_analysis *a = san_analysis_new();
    if (a)
        san_analyze(m, &ao, a, &d);     /* the pipeline of san solve */
    san_diag_print(&d, devnull, 0);
    san_diag_clear(&d);
    san_analysis_free(a);
    san_model_free(m);
    free(text);
    return 0;
}
