/*
 * fuzz_solve.c - libFuzzer target: the front end plus a capped solve.
 *
 * Any bytes as a .san file; a model that compiles and whose product space
 * has at most FUZZ_MAX_STATES states is explored (same cap on reachable
 * states, 256 MB memory cap), solved (auto method, 2000 iterations, 1 s)
 * and its indices computed, as `san solve` does; everything is freed.
 * Larger models are skipped so that each input takes milliseconds.
 *
 * Build and run: fuzz/run.sh solve SECONDS
 */
#include "fuzz_load.h"

#define FUZZ_MAX_STATES 4000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text;
    san_model *m = fuzz_load(data, size, &text);
    if (!m || !m->product_fits || m->product > FUZZ_MAX_STATES) {
        san_model_free(m);
        free(text);
        return 0;
    }

    san_space_opts po;
    memset(&po, 0, sizeof po);
    po.max_states = FUZZ_MAX_STATES;
    po.max_memory = 256.0 * 1024 * 1024;
    san_diag d;
    san_diag_init(&d, "fuzz.san", NULL, 0);
    san_space sp;
    int rc = san_space_build(m, &po, &sp, &d);
    san_diag_print(&d, devnull, 0);
    san_diag_free(&d);
    if (rc == 0) {
        san_solve_opts so;
        san_solve_opts_default(&so);
        so.max_iter = 2000;
        so.time_limit = 1.0;
        san_solution sol;
        rc = san_solve(&sp, &so, &sol);
        if (rc >= 0) {
            san_diag_init(&d, "fuzz.san", NULL, 0);
            san_solution_indices(&sp, &sol, 10, &d);
            san_diag_print(&d, devnull, 0);
            san_diag_free(&d);
        }
        san_solution_free(m, &sol);
        san_space_free(&sp);
    }
    san_model_free(m);
    free(text);
    return 0;
}
