/*
 * class_rules.h - what a chain of several closed classes becomes, and
 * how that is said, for every engine (internal to libsan): the serial
 * class check (classes.c) and the distributed one (solver/petsc/
 * dclasses.c) find the classes their own way and decide and speak here.
 */
#ifndef SAN_SPACE_CLASS_RULES_H
#define SAN_SPACE_CLASS_RULES_H

#include <stddef.h>
#include <stdint.h>
#include "san.h"

/* Over the components c < nc (open[c]: transient, skipped; open NULL:
 * every one closed) of size[c] states, entered[c] when a state outside
 * leads into it: the largest closed class, which is the chain's; their
 * count in *nclosed; *drop 1 when the others are isolated pockets to
 * drop: nothing enters them, the reachability function is a full one
 * (it admits the states, nothing reaches them) and no other class is as
 * large as the largest.  -1 when there is no closed class. */
int64_t space_class_keep(const san_model *m, const int64_t *size, const char *entered,
                         const char *open, int64_t nc, int64_t *nclosed, int *drop);

/* The warning for a dropped pocket of size states, named (shown of
 * them) in names: "(A:a2 B:b0), (A:a3 B:b0)". */
void space_say_pocket(san_diag *d, int64_t size, const char *names, int shown);

/* "\n  class K: N states, e.g. NAMES" appended to msg (of cap bytes, used
 * so far: *used); cut, not appended, when it does not fit. */
void space_class_line(char *msg, size_t cap, size_t *used, int k, int64_t size,
                      const char *names);

/* The refusal of a chain of nclosed closed classes (more: at least that
 * many), with its class lines; note, when not NULL, says what the
 * engine would do instead, before the usual advice. */
void space_say_classes(san_diag *d, int64_t nclosed, int more, const char *note,
                       const char *lines);

#endif
