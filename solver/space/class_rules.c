/*
 * class_rules.c - the rule for several closed classes and its messages
 * (class_rules.h): a leaf of solver/space/.
 */
#include <stdio.h>
#include "solver/space/class_rules.h"
#include "lang/model_int.h"

int64_t space_class_keep(const san_model *m, const int64_t *size, const char *entered,
                         const char *open, int64_t nc, int64_t *nclosed, int *drop)
{
    int64_t largest = -1, n = 0;
    int tie = 0;
    for (int64_t c = 0; c < nc; c++) {
        if (open && open[c])
            continue;
        n++;
        if (largest < 0 || size[c] > size[largest]) {
            largest = c;
            tie = 0;
        } else if (size[c] == size[largest]) {
            tie = 1;
        }
    }
    int pockets = n > 1 && !m->partial && !tie;
    for (int64_t c = 0; pockets && c < nc; c++)
        if (!(open && open[c]) && c != largest && entered[c])
            pockets = 0;
    *nclosed = n;
    *drop = pockets;
    return largest;
}

void space_say_pocket(san_diag *d, int64_t size, const char *names, int shown)
{
    san_diag_add(d, SAN_WARNING, 0, 0, "dropped an isolated pocket of %lld state%s that "
                 "the reachability function admits but no other state reaches: %s%s",
                 (long long)size, size == 1 ? "" : "s", names, size > shown ? ", ..." : "");
}

void space_class_line(char *msg, size_t cap, size_t *used, int k, int64_t size,
                      const char *names)
{
    int w = snprintf(msg + *used, cap - *used, "\n  class %d: %lld state%s, e.g. %.300s", k,
                     (long long)size, size == 1 ? "" : "s", names);
    if (w > 0 && (size_t)w < cap - *used)
        *used += w;
    else
        msg[*used] = '\0';
}

void space_say_classes(san_diag *d, int64_t nclosed, int more, const char *note,
                       const char *lines)
{
    san_diag_add(d, SAN_ERROR, 0, 0, "the chain has %s%lld closed classes; a steady state needs "
                 "exactly one (%s%scheck the reachability function and the transitions):%s",
                 more ? "more than " : "", (long long)nclosed, note ? note : "",
                 note ? "; or " : "", lines);
}
