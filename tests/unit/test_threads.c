/*
 * test_threads.c - the generators on several threads at once give the
 * text one thread gives (issue 29: a static buffer in gen/ms.c made 1 to
 * 145 of 1,600 texts differ under 4 threads, one slave firing at
 * another's rate).  4 threads x 400 generations of master/slave models
 * with a time per slave and of pipelines, each compared with the text
 * generated alone, before the threads start.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/check.h"
#include "san.h"

#define NCASES 8
#define NTHREADS 4
#define ROUNDS 400

static char *serial[NCASES];

/* Case k: its argv (at most 16 words) in words[]. */
static int case_args(int k, char words[16][160], char **argv)
{
    int n = 0;
    char cm[160] = "", tp[160] = "";
    long slaves = 3 + k;
    for (long i = 1; i <= slaves; i++) {
        char x[24];
        snprintf(x, sizeof x, "%s%.3g", i > 1 ? "," : "", 0.5 + 0.1 * (double)(i + k));
        strcat(cm, x);
        snprintf(x, sizeof x, "%s%.3g", i > 1 ? "," : "", 0.01 * (double)(i + 1));
        strcat(tp, x);
    }
    if (k % 4 == 3) {
        const char *a[] = { "pipeline", "--mode", "async", "--stages", "1,2,0.5,3",
                            "--replicas", "1,2,1,2", "--buffer", k < 4 ? "2" : "3" };
        for (int i = 0; i < 9; i++)
            snprintf(words[n++], 160, "%s", a[i]);
    } else {
        const char *a[] = { "ms", "--mode", k % 2 ? "sync" : "async", "--slaves" };
        for (int i = 0; i < 4; i++)
            snprintf(words[n++], 160, "%s", a[i]);
        snprintf(words[n++], 160, "%ld", slaves);
        snprintf(words[n++], 160, "--compute-time");
        snprintf(words[n++], 160, "%s", cm);
        snprintf(words[n++], 160, "--pack-time");
        snprintf(words[n++], 160, "%s", tp);
        if (k % 4 == 0) {
            snprintf(words[n++], 160, "--buffer");
            snprintf(words[n++], 160, "%d", 2 + k);
        }
    }
    for (int i = 0; i < n; i++)
        argv[i] = words[i];
    return n;
}

static char *generate(int k)
{
    char words[16][160], *argv[16], err[256], *text = NULL;
    int argc = case_args(k, words, argv);
    if (san_gen(argc, argv, &text, NULL, err, sizeof err) != SAN_OK) {
        fprintf(stderr, "case %d: %s\n", k, err);
        return NULL;
    }
    return text;
}

static void *worker(void *arg)
{
    long id = (long)arg, differ = 0;
    for (int r = 0; r < ROUNDS; r++) {
        int k = (int)((r + id * 3) % NCASES);
        char *t = generate(k);
        if (!t || strcmp(t, serial[k]))
            differ++;
        free(t);
    }
    return (void *)differ;
}

int main(void)
{
    for (int k = 0; k < NCASES; k++) {
        serial[k] = generate(k);
        CHECK(serial[k] != NULL, "case %d generates alone", k);
        if (!serial[k])
            return 1;
    }
    /* the per-slave rates are written, the case the race broke */
    CHECK(strstr(serial[0], "r_pack_3") != NULL, "case 0 has a pack rate per slave");
    pthread_t th[NTHREADS];
    for (long i = 0; i < NTHREADS; i++)
        CHECK(pthread_create(&th[i], NULL, worker, (void *)i) == 0, "thread %ld starts", i);
    long differ = 0;
    for (int i = 0; i < NTHREADS; i++) {
        void *v;
        pthread_join(th[i], &v);
        differ += (long)v;
    }
    CHECK(differ == 0, "%ld of %d texts made on %d threads differ from the serial text",
          differ, NTHREADS * ROUNDS, NTHREADS);
    for (int k = 0; k < NCASES; k++)
        free(serial[k]);
    printf("%d passed, %d failed\n", n_pass, n_fail);
    return n_fail > 0;
}
