/*
 * status.c - the names of the statuses (san.h).
 */
#include "san.h"

const char *san_status_name(san_status st)
{
    switch (st) {
    case SAN_OK:            return "ok";
    case SAN_E_MODEL:       return "model";
    case SAN_E_USAGE:       return "usage";
    case SAN_E_NOMEM:       return "out of memory";
    case SAN_E_LIMIT:       return "limit";
    case SAN_E_NOTCONV:     return "not converged";
    case SAN_E_INTERRUPTED: return "interrupted";
    case SAN_E_NUMERIC:     return "numerical failure";
    case SAN_E_IO:          return "input/output";
    case SAN_E_INPUT:       return "input";
    }
    return "?";
}
