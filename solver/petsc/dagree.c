/*
 * dagree.c - how a failure on one rank becomes every rank's status
 * (dist.h): each phase of the distributed analysis begins with
 * dagree(), so that no rank waits in a collective another has left.
 * A leaf of solver/petsc/.
 */
#include <stdio.h>
#include <string.h>
#include "base/services.h"
#include "solver/petsc/dist.h"

san_status dagree(const dctx *c, san_status st, const char *msg, san_diag *d)
{
    char buf[1024];
    if (st == SAN_OK && c->interrupt && *c->interrupt) {
        st = SAN_E_INTERRUPTED;
        snprintf(buf, sizeof buf, "interrupted (Ctrl-C on rank %d)", c->rank);
        msg = buf;
    } else if (st == SAN_OK && c->deadline > 0 && san_now() > c->deadline) {
        st = SAN_E_INTERRUPTED;
        snprintf(buf, sizeof buf, "time limit of %g s reached before the answer (on rank "
                 "%d); raise --time-limit", c->time_limit, c->rank);
        msg = buf;
    }
    int mine = st != SAN_OK ? c->rank : c->size, first = c->size;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD);
    if (first == c->size)
        return SAN_OK;
    struct {
        int st;
        char msg[1024];
    } w;
    memset(&w, 0, sizeof w);
    if (c->rank == first) {
        w.st = (int)st;
        snprintf(w.msg, sizeof w.msg, "%s", msg ? msg : "");
    }
    MPI_Bcast(&w, (int)sizeof w, MPI_BYTE, first, PETSC_COMM_WORLD);
    if (w.msg[0])
        san_diag_add(d, SAN_ERROR, 0, 0, "%s", w.msg);
    return (san_status)w.st;
}
