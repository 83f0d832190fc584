/*
 * model_text.h - a C test's model from its text: compiled with no
 * defines, the diagnostics printed when it does not compile, which is a
 * failed CHECK (check.h, included first).
 */
#ifndef SAN_TEST_MODEL_TEXT_H
#define SAN_TEST_MODEL_TEXT_H

#include <stdio.h>
#include <string.h>
#include "san.h"

static san_model *test_model(const char *name, const char *text)
{
    san_diag d;
    san_diag_init(&d, name, text, strlen(text));
    san_load_opts opt;
    san_load_opts_default(&opt);
    san_model *m = san_model_load(text, strlen(text), &d, &opt);
    if (!m)
        san_diag_print(&d, stderr, 0);
    san_diag_clear(&d);
    CHECK(m != NULL, "%s: does not compile", name);
    return m;
}

#endif
