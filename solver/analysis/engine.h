/*
 * engine.h - the steady state on another engine (PETSc over MPI),
 * internal to the pipeline (analyze.c, solve.c).
 */
#ifndef SAN_ENGINE_H
#define SAN_ENGINE_H

#include "san.h"

typedef struct {
    int ranks;
    double rank_bytes;
    int note_saved;
    char note[256];
} san_engine_out;

typedef struct {
    const char *options;        /* PETSc options */
    san_engine_out *out;
} san_engine_ctx;

/* san_solve, with the first guess from the engine e (NULL: san_solve). */
san_status san_solve_engine(const san_space *sp, const san_solve_opts *o, const san_engine_ctx *e,
                            san_solution *sol);

#endif
