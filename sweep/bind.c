/*
 * bind.c - size-buffer and grain in one call each, their report as the
 * JSON document the command prints (without its provenance block): what
 * a binding (the Python package) calls, so that it returns the command's
 * numbers and names without mirroring the structures that hold them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "sweep/sweep_int.h"

/* The report written by write(obj) into a malloc'd string. */
static san_status to_string(void (*write)(const void *obj, FILE *out), const void *obj,
                            char **json, char *err, size_t n)
{
    size_t len = 0;
    FILE *f = open_memstream(json, &len);
    if (!f) {
        sweep_err(err, n, "out of memory");
        return SAN_E_NOMEM;
    }
    write(obj, f);
    if (fclose(f) != 0) {
        free(*json);
        *json = NULL;
        sweep_err(err, n, "out of memory");
        return SAN_E_NOMEM;
    }
    return SAN_OK;
}

static void write_sizing(const void *obj, FILE *out)
{
    san_size_buffer_write(obj, SAN_SWEEP_JSON, NULL, NULL, out);
}

static void write_grain(const void *obj, FILE *out)
{
    san_grain_write(obj, SAN_SWEEP_JSON, NULL, NULL, out);
}

san_status san_size_buffer_json(int argc, char **argv, const char *index, double within,
                                long max_buffer, const san_sweep_opts *o, char **json,
                                char *err, size_t n)
{
    *json = NULL;
    /* the ranges of the command's --within and --max-buffer */
    if (!(within >= 1e-12 && within <= 10)) {
        sweep_err(err, n, "within: expected a relative tolerance in [1e-12, 10], not %g", within);
        return SAN_E_USAGE;
    }
    if (max_buffer < 2 || max_buffer > 1000000) {
        sweep_err(err, n, "max_buffer: expected a size in [2, 1000000], not %ld", max_buffer);
        return SAN_E_USAGE;
    }
    san_size_buffer_opts so;
    san_size_buffer_opts_default(&so);
    so.index = index && *index ? index : NULL;
    so.within = within;
    so.max_buffer = max_buffer;
    so.diag = o;
    san_size_buffer b;
    san_status st = san_size_buffer_init(&b, argc, argv, &so, err, n);
    if (st != SAN_OK)
        return st;
    st = san_size_buffer_run(&b, o, err, n);
    if (st == SAN_OK)
        st = to_string(write_sizing, &b, json, err, n);
    san_size_buffer_free(&b);
    return st;
}

san_status san_grain_json(int argc, char **argv, const char *by, double busy,
                          const san_sweep_opts *o, char **json, char *err, size_t n)
{
    *json = NULL;
    if (!(busy >= 0 && busy < 1)) {     /* the command's --busy */
        sweep_err(err, n, "busy: expected a fraction in [0, 1), not %g", busy);
        return SAN_E_USAGE;
    }
    san_grain g;
    san_status st = san_grain_init_opts(&g, argc, argv, o, err, n);
    if (st != SAN_OK)
        return st;
    if (by && *by)
        st = san_grain_by(&g, by, err, n);
    if (st == SAN_OK)
        st = san_grain_run(&g, o, busy, err, n);
    if (st == SAN_OK)
        st = to_string(write_grain, &g, json, err, n);
    san_grain_free(&g);
    return st;
}
