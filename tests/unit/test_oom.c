/*
 * test_oom.c - the front end out of memory at every allocation.
 *
 * lang/oom.h: an allocation that fails jumps back to the load, which
 * frees what the passes built and returns SAN_E_NOMEM.  For each model
 * below, the k-th allocation of the load is made to fail, for k = 0, 1,
 * 2, ... until a load succeeds: every failing load must return
 * SAN_E_NOMEM with a diagnostic saying so and no model; the sanitizer
 * build (scripts/ci-sanitize.sh) checks that nothing leaks or is freed
 * twice on the way.  The last load must give the same model as one
 * without failures (the same number of automata, events and states).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "san.h"
#include "lang/oom.h"
#include "tests/unit/check.h"
#include "lang/model_int.h"

static const char *const models[] = {
    /* replicas, blocks, functions, synchronized events, results */
    "identifiers\n  N = [0..3]; R = 2; lambda = 3; mu = 6;\n"
    "  f = lambda * (nb using < R);\n"
    "events\n  loc Acq (f)\n  loc Rel (mu)\n  syn all (1)\n"
    "reachability = (nb using <= R);\n"
    "network rs (continuous)\n"
    "  aut P[N]\n    stt sleeping to(using) Acq to(sleeping) all\n"
    "    stt using to(sleeping) Rel\n"
    "results\n  full = nb using == R;\n  avg = nb using;\n",
    /* a block of states with positional destinations, routing */
    "identifiers\n  K = [0..5]; p = 0.3;\n"
    "events\n  loc up (2) loc dn (3) syn go (1)\n"
    "reachability = 1;\n"
    "network q (continuous)\n"
    "  aut Q\n    stt s[K] to(++) up to(--) dn\n"
    "  aut S\n    stt a to(b) go(p) to(a) go(1 - p)\n    stt b to(a) go\n"
    "results\n  empty = st Q == s[0];\n",
    /* the lookups of lang/symtab.c and their tables' growth: a domain of
     * values out of order (found by bisection), identifiers needing
     * others declared after them (resolved bottom up), a PEPS reading to
     * sample, an event's automaton list to match, copies of a local
     * event, an automaton of more states than are scanned by name */
    "identifiers\n  D = [0, 2, 5..7];\n  c0 = c1 + 1; c1 = c2 * 2; c2 = 1;\n"
    "  f = 1 + 2 * (st B == s9);\n"
    "events\n  loc a (c0)\n  syn g (f) A[D] B\n  loc e[D] (1)\n"
    "reachability = 1;\n"
    "network m (continuous)\n"
    "  aut A[D]\n    stt x to(y) g\n    stt y to(x) a\n"
    "  aut B\n    stt s0 to(s1) g\n    stt s1 to(s2) e[5]\n    stt s2 to(s3) e[5]\n"
    "    stt s3 to(s4) e[5]\n    stt s4 to(s5) e[5]\n    stt s5 to(s6) e[5]\n"
    "    stt s6 to(s7) e[5]\n    stt s7 to(s8) e[5]\n    stt s8 to(s9) e[5]\n"
    "    stt s9 to(s0) e[5] to(s9) g\n"
    "results\n  r = st A[5] == y;\n  q = nb y;\n",
};

static void one_model(const char *text)
{
    /* the PEPS readings too: they compile and sample expressions */
    san_load_opts opt;
    san_load_opts_default(&opt);
    opt.peps_warnings = 1;
    san_diag d;
    san_diag_init(&d, "<test>", text, strlen(text));
    san_model *ref = NULL;
    CHECK(san_model_compile(text, strlen(text), &opt, &ref, &d) == SAN_OK && ref,
          "the model compiles");
    san_diag_clear(&d);
    if (!ref)
        return;
    long k = 0, failed = 0;
    for (;; k++) {
        san_model *m = NULL;
        san_diag_init(&d, "<test>", text, strlen(text));
        lang_oom_inject(k);
        san_status st = san_model_compile(text, strlen(text), &opt, &m, &d);
        lang_oom_inject(-1);
        if (st == SAN_OK) {
            CHECK(m && m->naut == ref->naut && m->nev == ref->nev &&
                  !strcmp(m->product_str, ref->product_str),
                  "allocation %ld: the model loaded after the failures is the same", k);
            san_model_free(m);
            san_diag_clear(&d);
            break;
        }
        failed++;
        CHECK(st == SAN_E_NOMEM && !m, "allocation %ld fails: status %d, model %p", k,
              (int)st, (void *)m);
        int said = 0;
        for (int i = 0; i < d.n; i++)
            said |= strstr(d.items[i].msg, "out of memory") != NULL;
        CHECK(said, "allocation %ld fails: the diagnostic says out of memory", k);
        san_diag_clear(&d);
        if (k > 100000) {
            CHECK(0, "the load never succeeds");
            break;
        }
    }
    CHECK(failed > 10, "the loads failed at %ld allocations before one succeeded", failed);
    san_model_free(ref);
}

int main(void)
{
    for (size_t i = 0; i < sizeof models / sizeof *models; i++)
        one_model(models[i]);
    printf("%d passed, %d failed\n", n_pass, n_fail);
    return n_fail ? 1 : 0;
}
