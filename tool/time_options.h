/*
 * time_options.h - the options of san transient and san passage
 * (time_options.c), read by one driver (cmd_transient.c).
 */
#ifndef TOOL_TIME_OPTIONS_H
#define TOOL_TIME_OPTIONS_H

#include "tool/tool.h"
#include "tool/options.h"

typedef struct {
    san_storage storage;
    san_lump lump;
    double time_limit, max_memory, max_input;
    int64_t max_states;
    tool_format fmt;
    const char *times, *initial, *from, *until, *vector, *percentiles, *plot, *ynames;
    const char *engine, *petsc_matrix;
    double eps, max_steps, within, tol;
    int rewards, quiet, all_replicas;
    tool_defines defs;
    tool_plot look;
    tool_diag diag;
} tr_args;

extern const tool_spec transient_spec, passage_spec;
/* Zeros, and the defaults the tables' help states. */
void tr_args_init(tr_args *A);

#endif
