/*
 * steady.h - the steady state over the sparse generator (solve.c;
 * internal to libsan since issue 30 item 4: callers outside reach it
 * through san_analyze, which also picks the storage, the classes and
 * the indices).
 */
#ifndef SAN_STEADY_H
#define SAN_STEADY_H

#include "san.h"

/* Solve the chain of sp: the closed class only (transient states get
 * 0).  sol is overwritten (one solve per solution, or its arrays
 * leak).  Returns what san_ctmc_solve returns; SAN_E_USAGE for o of
 * another layout (struct_size), the reason in sol's info. */
san_status an_solve(const san_space *sp, const san_solve_opts *o, san_solution *sol);

#endif
