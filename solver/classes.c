/*
 * classes.c - the structure of the chain: strongly connected components
 * (Tarjan's algorithm, iterative so that long chains cannot overflow the
 * stack), closed classes, and the isolated pockets a full reachability
 * function may admit by mistake.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "space.h"

/* comp[i] = component of state i; returns the number of components,
 * or -1 when out of memory. */
static int64_t tarjan(const san_csr *q, int32_t *comp)
{
    int64_t n = q->n;
    int32_t *low = malloc(n * sizeof *low), *num = malloc(n * sizeof *num);
    int32_t *stack = malloc(n * sizeof *stack), *call = malloc(n * sizeof *call);
    int64_t *edge = malloc(n * sizeof *edge);
    if (!low || !num || !stack || !call || !edge) {
        free(low); free(num); free(stack); free(call); free(edge);
        return -1;
    }
    for (int64_t i = 0; i < n; i++)
        num[i] = -1;
    int32_t counter = 0, sp = 0, ncomp = 0;
    for (int64_t root = 0; root < n; root++) {
        if (num[root] >= 0)
            continue;
        int cp = 0;
        call[cp++] = (int32_t)root;
        num[root] = low[root] = counter++;
        edge[root] = q->rowptr[root];
        stack[sp++] = (int32_t)root;
        comp[root] = -1;
        while (cp > 0) {
            int32_t v = call[cp - 1];
            if (edge[v] < q->rowptr[v + 1]) {
                int32_t w = q->col[edge[v]++];
                if (w == v)
                    continue;
                if (num[w] < 0) {
                    num[w] = low[w] = counter++;
                    edge[w] = q->rowptr[w];
                    stack[sp++] = w;
                    comp[w] = -1;
                    call[cp++] = w;
                } else if (comp[w] < 0 && num[w] < low[v]) {
                    low[v] = num[w];    /* w is on the stack */
                }
                continue;
            }
            cp--;
            if (cp > 0 && low[v] < low[call[cp - 1]])
                low[call[cp - 1]] = low[v];
            if (low[v] == num[v]) {
                int32_t w;
                do {
                    w = stack[--sp];
                    comp[w] = ncomp;
                } while (w != v);
                ncomp++;
            }
        }
    }
    free(low); free(num); free(stack); free(call); free(edge);
    return ncomp;
}

/* Name up to a few states of component c, for messages. */
static void name_states(const san_space *sp, const int32_t *comp, int32_t c, char *buf, size_t n)
{
    int *s = malloc((sp->m->naut + 1) * sizeof *s);
    size_t used = 0;
    int shown = 0;
    buf[0] = '\0';
    for (int64_t i = 0; s && i < sp->n && shown < 3; i++) {
        if (comp[i] != c)
            continue;
        char one[1024];
        san_state_decode(sp->m, sp->index[i], s);
        san_state_name(sp->m, s, one, sizeof one);
        int w = snprintf(buf + used, n - used, "%s(%s)", shown ? ", " : "", one);
        if (w < 0 || (size_t)w >= n - used)
            break;
        used += w;
        shown++;
    }
    free(s);
}

/* Remove the states of dropped components (nothing enters them), and
 * renumber the others in place. */
static int compact(san_space *sp, const char *drop)
{
    int64_t n = sp->n, k = 0;
    int32_t *newid = malloc(n * sizeof *newid);
    if (!newid)
        return -1;
    for (int64_t i = 0; i < n; i++)
        newid[i] = drop[i] ? -1 : (int32_t)k++;
    san_csr *q = &sp->q;
    int64_t p = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t a = q->rowptr[i], b = q->rowptr[i + 1];
        if (drop[i])
            continue;
        int64_t row = newid[i];
        sp->index[row] = sp->index[i];
        q->rowptr[row] = p;
        for (int64_t t = a; t < b; t++) {
            q->col[p] = newid[q->col[t]];
            q->val[p++] = q->val[t];
        }
    }
    q->rowptr[k] = p;
    q->n = sp->n = k;
    free(newid);
    return 0;
}

int space_check_classes(san_space *sp, san_diag *d)
{
    int64_t n = sp->n;
    const san_csr *q = &sp->q;
    int32_t *comp = malloc(n * sizeof *comp);
    if (!comp)
        return -1;
    int64_t nc = tarjan(q, comp);
    if (nc < 0) {
        free(comp);
        return -1;
    }
    /* closed: no edge leaves; entered: some edge comes in from outside */
    char *open = calloc(nc, 1), *entered = calloc(nc, 1);
    int64_t *size = calloc(nc, sizeof *size);
    if (!open || !entered || !size) {
        free(comp); free(open); free(entered); free(size);
        return -1;
    }
    for (int64_t i = 0; i < n; i++) {
        size[comp[i]]++;
        for (int64_t t = q->rowptr[i]; t < q->rowptr[i + 1]; t++)
            if (comp[q->col[t]] != comp[i]) {
                open[comp[i]] = 1;
                entered[comp[q->col[t]]] = 1;
            }
    }
    int64_t nclosed = 0, largest = -1;
    int tie = 0;
    for (int64_t c = 0; c < nc; c++) {
        if (open[c])
            continue;
        nclosed++;
        if (largest < 0 || size[c] > size[largest]) {
            largest = c;
            tie = 0;
        } else if (size[c] == size[largest]) {
            tie = 1;
        }
    }
    int rc = 0;
    if (nclosed > 1 && !sp->m->partial && !tie) {
        /* Isolated pockets: closed classes nothing enters, other than the
         * largest closed class.  They are declared by the function but
         * cannot be reached from the rest of the chain. */
        int all_isolated = 1;
        for (int64_t c = 0; c < nc; c++)
            if (!open[c] && c != largest && entered[c])
                all_isolated = 0;
        if (all_isolated) {
            char *drop = calloc(n, 1);
            if (!drop) {
                rc = -1;
                goto out;
            }
            for (int64_t c = 0; c < nc; c++) {
                if (open[c] || c == largest)
                    continue;
                char names[2048];
                name_states(sp, comp, (int32_t)c, names, sizeof names);
                san_diag_add(d, SAN_WARNING, 0, 0, "dropped an isolated pocket of %lld state%s that "
                             "the reachability function admits but no other state reaches: %s%s",
                             (long long)size[c], size[c] == 1 ? "" : "s", names,
                             size[c] > 3 ? ", ..." : "");
                sp->dropped += size[c];
            }
            for (int64_t i = 0; i < n; i++)
                drop[i] = !open[comp[i]] && comp[i] != largest;
            /* renumber comp alongside the states */
            int64_t k = 0;
            for (int64_t i = 0; i < n; i++)
                if (!drop[i])
                    comp[k++] = comp[i];
            rc = compact(sp, drop);
            free(drop);
            if (rc)
                goto out;
            n = sp->n;
            nclosed = 1;
        }
    }
    if (nclosed != 1) {
        char msg[4096];
        size_t used = 0;
        int shown = 0;
        for (int64_t c = 0; c < nc && shown < 5; c++) {
            if (open[c])
                continue;
            char names[1024];
            name_states(sp, comp, (int32_t)c, names, sizeof names);
            int w = snprintf(msg + used, sizeof msg - used, "\n  class %d: %lld state%s, e.g. %.300s",
                             ++shown, (long long)size[c], size[c] == 1 ? "" : "s", names);
            if (w > 0 && (size_t)w < sizeof msg - used)
                used += w;
        }
        san_diag_add(d, SAN_ERROR, 0, 0, "the chain has %lld closed classes; a steady state needs "
                     "exactly one (check the reachability function and the transitions):%s",
                     (long long)nclosed, msg);
        rc = -2;
        goto out;
    }
    sp->in_closed = malloc(n ? n : 1);
    if (!sp->in_closed) {
        rc = -1;
        goto out;
    }
    for (int64_t i = 0; i < n; i++) {
        sp->in_closed[i] = !open[comp[i]];
        sp->nclosed += sp->in_closed[i];
    }
out:
    free(comp);
    free(open);
    free(entered);
    free(size);
    return rc;
}
