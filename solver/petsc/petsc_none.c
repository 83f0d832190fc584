/*
 * petsc_none.c - the PETSc engine when libsan is built without it.
 */
#include <string.h>
#include "solver/petsc/petsc_solve.h"
#include "solver/analysis/analysis_int.h"

san_status psc_analyze(const san_model *m, const san_analysis_opts *o, san_analysis *a,
                             san_diag *d)
{
    (void)o;
    memset(a, 0, sizeof *a);
    a->m = m;
    san_diag_add(d, SAN_ERROR, 0, 0, "--engine petsc: this san was built without PETSc "
                 "(./configure --with-petsc)");
    return SAN_E_USAGE;
}

san_status psc_chain(const san_model *m, const san_analysis_opts *o, san_analysis *a,
                           psc_dchain **out, san_diag *d)
{
    *out = NULL;
    return psc_analyze(m, o, a, d);
}

void psc_chain_free(psc_dchain *ch, san_analysis *a)
{
    (void)ch;
    (void)a;
}

san_status psc_vector(const void *kept, int (*row)(void *ctx, int64_t index, double p),
                            void *ctx)
{
    (void)kept;
    (void)row;
    (void)ctx;
    return SAN_E_USAGE;
}

void psc_vector_free(void *kept)
{
    (void)kept;
}

int psc_rank(int *size)
{
    if (size)
        *size = 1;
    return 0;
}

int psc_init(void)
{
    return -1;
}
