/*
 * export_int.h - what the writers of solver/export/ share (internal).
 */
#ifndef SAN_EXPORT_INT_H
#define SAN_EXPORT_INT_H

#include <stdint.h>
#include <stdio.h>
#include "san.h"

/* The states in export order: order[r] is the space's number of the
 * state of export number r (malloc'd; NULL when out of memory). */
int64_t *exp_order(const san_space *sp);

/* Q with its rows and columns in export numbering, each row's columns
 * ascending (malloc'd; 0, or -1 when out of memory). */
int exp_permuted(const san_space *sp, san_csr *pq);

/* name made a PRISM identifier into buf: letters, digits and '_', not
 * starting with a digit; "P[3]" -> "P_3". */
char *exp_ident(const char *name, char *buf, size_t n);

/* snprintf into err when err is not NULL. */
void exp_err(char *err, size_t n, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
