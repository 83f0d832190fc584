/*
 * mtx_none.c - the Matrix Market export in a build without CHOLMOD
 * (configure --without-cholmod), whose writer mtx.c calls: every other
 * export works; this one says how to get it.
 */
#include "solver/export/export_int.h"

san_status san_export_mtx(const san_space *sp, FILE *out, char *err, size_t n)
{
    return san_export_mtx_note(sp, NULL, out, err, n);
}

san_status san_export_mtx_note(const san_space *sp, const char *note, FILE *out, char *err,
                               size_t n)
{
    (void)sp;
    (void)note;
    (void)out;
    exp_err(err, n, "the Matrix Market format needs CHOLMOD's writer, and this san was built "
            "without it (configure --with-cholmod, with libsuitesparse-dev installed); "
            "--format prism writes the same generator as PRISM's .tra");
    return SAN_E_USAGE;
}
