/*
 * load.c - the front end's entry: text -> syntax tree (parser.y) ->
 * compiled model (sema.c), under one recovery point for out of memory
 * (oom.h).
 */
#include <stdlib.h>
#include <string.h>
#include "lang/ast.h"
#include "lang/sema.h"
#include "lang/oom.h"
#include "lang/lexer_extra.h"
#include "lang/model_int.h"
#include "base/services.h"

/* Parse and compile, the load's recovery point set (oom.h): an
 * allocation that fails anywhere in the front end comes back here. */
static san_status compile(const char *text, size_t len, san_diag *d, const san_load_opts *opt,
                          ast_file *f, lang_oom *oom, base_progress *progress, san_model **out)
{
    oom->cleanup = NULL;
    if (setjmp(oom->env)) {
        if (oom->cleanup)
            oom->cleanup(oom->ctx);
        san_diag_add(d, SAN_ERROR, 0, 0, "out of memory while compiling the model");
        return SAN_E_NOMEM;
    }
    f->oom = oom;
    f->progress = progress;
    ast_parse(f, text, len, d);
    if (d->nerrors == 0)
        *out = sema_run(f, d, opt, progress);
    return *out ? SAN_OK : SAN_E_MODEL;
}

san_status san_model_compile(const char *text, size_t len, const san_load_opts *opt,
                             san_model **out, san_diag *d)
{
    *out = NULL;
    char msg[192];
    if (opt && BASE_OPTS_FOREIGN(opt, "load", "san_load_opts_default", msg, sizeof msg)) {
        san_diag_add(d, SAN_ERROR, 0, 0, "%s", msg);
        return SAN_E_USAGE;
    }
    lang_oom oom;
    ast_file *f = calloc(1, sizeof *f);
    if (!f) {
        san_diag_add(d, SAN_ERROR, 0, 0, "out of memory while compiling the model");
        return SAN_E_NOMEM;
    }
    /* a second in silence, then where the load is (big models) */
    base_progress progress;
    base_progress_init(&progress, opt && opt->progress, 1.0);
    san_status st = compile(text, len, d, opt, f, &oom, &progress, out);
    base_progress_end(&progress, 1);
    f->progress = NULL;
    if (st != SAN_OK) {
        ast_file_free(f);
        free(f);
        return st;
    }
    f->oom = NULL;          /* the recovery point is gone with the load */
    (*out)->syntax = f;
    return SAN_OK;
}

san_model *san_model_load(const char *text, size_t len, san_diag *d,
                          const san_load_opts *opt)
{
    san_model *m;
    san_model_compile(text, len, opt, &m, d);
    return m;
}
