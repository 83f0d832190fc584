/*
 * petsc_none.c - the PETSc engine when libsan is built without it.
 */
#include <stdio.h>
#include "petsc_solve.h"

int san_petsc_stationary(const san_csr *qt, double *x, const char *options, double tol,
                         long max_iter, san_petsc_stats *st, char *msg, size_t msglen)
{
    snprintf(msg, msglen, "--engine petsc: this san was built without PETSc "
             "(./configure --with-petsc)");
    return -1;
}

int san_petsc_rank(int *size)
{
    if (size)
        *size = 1;
    return 0;
}

int san_petsc_init(void)
{
    return -1;
}
