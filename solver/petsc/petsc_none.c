/*
 * petsc_none.c - the PETSc engine when libsan is built without it.
 */
#include <string.h>
#include "solver/petsc/petsc_solve.h"

san_status psc_analyze(const san_model *m, const san_analysis_opts *o, psc_answer *ans,
                       san_diag *d)
{
    (void)m;
    (void)o;
    memset(ans, 0, sizeof *ans);
    san_diag_add(d, SAN_ERROR, 0, 0, "--engine petsc: this san was built without PETSc "
                 "(./configure --with-petsc)");
    return SAN_E_USAGE;
}

san_status psc_chain(const san_model *m, const san_analysis_opts *o, psc_answer *ans,
                     psc_dchain **out, san_diag *d)
{
    *out = NULL;
    return psc_analyze(m, o, ans, d);
}

double psc_chain_free(psc_dchain *ch)
{
    (void)ch;
    return 0;
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
