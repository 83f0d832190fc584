/*
 * export_out.c - san export's files: the library's writers picked by
 * format, each file through tool_write_output (atomic), PRISM's set of
 * them named as PRISM's -importmodel looks for them.
 */
#include <stdlib.h>
#include <string.h>
#include "tool/export_out.h"


/* The note as DOT comments: `//` lines are DOT's anywhere, even before
 * the graph (Graphviz's manual, "The DOT Language"). */
static void dot_note(const char *note, FILE *out)
{
    for (const char *p = note; p && *p;) {
        const char *nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        fprintf(out, "// %.*s\n", len, p);
        p += len + (nl != NULL);
    }
}

/* 0, or -1 when the library's writer failed (write_file says why). */
static int write_one(const void *ctx, FILE *out)
{
    export_job *j = (export_job *)ctx;
    switch (j->fmt) {
    case EXP_MTX:
        j->st = san_export_mtx_note(j->sp, j->note, out, j->err, sizeof j->err);
        break;
    case EXP_STATES: j->st = san_export_states(j->sp, out); break;
    case EXP_DOT:
        dot_note(j->note, out);
        j->st = san_export_dot_automata(j->m, out);
        break;
    case EXP_DOT_REACH:
        dot_note(j->note, out);
        j->st = san_export_dot_space(j->sp, j->max_nodes, out, j->err, sizeof j->err);
        break;
    case EXP_PRISM:
        j->st = j->part == 't' ? san_export_prism_tra(j->sp, out, j->err, sizeof j->err)
              : j->part == 's' ? san_export_prism_sta(j->sp, out)
              : j->part == 'l' ? san_export_prism_lab(j->sp, out)
              : j->part == 'r' ? san_export_prism_srew(j->sp, j->reward, out, j->err,
                                                       sizeof j->err)
                               : san_export_prism_map(san_space_model(j->sp), out);
        break;
    }
    return j->st == SAN_OK ? 0 : -1;
}

/* One file; the writer's failure wins over the file's success (the file
 * then keeps what it held: tool_write_output discards a failed write). */
static int write_file(export_job *j, const char *path)
{
    j->st = SAN_OK;
    j->err[0] = '\0';
    int rc = tool_write_output(path, write_one, j);
    if (j->st != SAN_OK) {
        fprintf(stderr, "san export: %s\n", j->err[0] ? j->err : san_status_name(j->st));
        return tool_exit_status(j->st);
    }
    return rc;
}

/* File k of a PRISM export of nrew reward structures (k < 3 + nrew + 1):
 * the chain (.tra, .sta, .lab), one state rewards file per reward
 * structure, numbered from 1 as PRISM's -importmodel BASE.all looks for
 * them, and the map of the names; malloc'd, NULL when out of memory.
 * The part of the file into j when j is not NULL. */
static char *prism_path(const char *base, int nrew, int k, export_job *j)
{
    static const char *const chain[] = { "tra", "sta", "lab" };
    char *path;
    int len;
    if (k < 3) {                    /* the chain */
        if (j)
            j->part = "tsl"[k];
        len = asprintf(&path, "%s.%s", base, chain[k]);
    } else if (k < 3 + nrew) {      /* reward structure k - 3, file k - 2 */
        if (j) {
            j->part = 'r';
            j->reward = k - 3;
        }
        len = asprintf(&path, "%s%d.srew", base, k - 2);
    } else {                        /* the names */
        if (j)
            j->part = 'm';
        len = asprintf(&path, "%s.map.csv", base);
    }
    return len < 0 ? NULL : path;
}

static int write_prism(export_job *j, const char *base)
{
    const int nrew = san_export_prism_nrewards(san_space_model(j->sp));
    int rc = EXIT_OK;
    for (int k = 0; k < 3 + nrew + 1 && rc == EXIT_OK; k++) {
        char *path = prism_path(base, nrew, k, j);
        if (!path)
            return EXIT_FAIL;
        rc = write_file(j, path);
        free(path);
    }
    return rc;
}

int tool_export_refuse_overwrite(const char *output, export_format fmt, const san_model *m,
                                const char *path)
{
    if (fmt != EXP_PRISM)
        return tool_refuse_overwrite("export", "--output", output, path);
    const int nrew = san_export_prism_nrewards(m);
    int rc = EXIT_OK;
    for (int k = 0; k < 3 + nrew + 1 && rc == EXIT_OK; k++) {
        char *file = prism_path(output, nrew, k, NULL);
        if (!file)
            return EXIT_FAIL;
        rc = tool_refuse_overwrite("export", "--output", file, path);
        free(file);
    }
    return rc;
}

int tool_export_write(export_job *j, const char *output)
{
    return j->fmt == EXP_PRISM ? write_prism(j, output) : write_file(j, output);
}
