/*
 * gen_line.c - a model from a --gen line ('TEMPLATE FLAGS...'), a -D of a
 * structural constant given to the template as its flag.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tool/tool.h"

/* Split a --gen argument on blanks (quotes group words). */
static int split_words(char *s, char ***argv)
{
    int n = 0, cap = 8;
    char **v = malloc(cap * sizeof *v);
    while (v && *s) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s)
            break;
        char q = (*s == '\'' || *s == '"') ? *s++ : 0;
        char *w = s;
        while (*s && (q ? *s != q : (*s != ' ' && *s != '\t')))
            s++;
        if (*s)
            *s++ = '\0';
        if (n + 1 >= cap) {
            char **p = realloc(v, (cap *= 2) * sizeof *v);
            if (!p)
                break;
            v = p;
        }
        v[n++] = w;
    }
    if (v)
        v[n] = NULL;
    *argv = v;
    return n;
}

/* -D on a structural constant of the --gen line's template whose flag
 * takes the constant's value (-D N_slaves=5: --slaves 5) is not a
 * definition but a flag: appended to the line (after the user's, so it
 * wins), and left out of *kept (the others, shared, not copied).
 * Returns the new argv (malloc'd; its flag and value strings in *vals,
 * malloc'd), or NULL when out of memory. */
static char **structural_flags(const char *cmd, const char *tmpl, char **argv, int *argc,
                               tool_defines *defs, tool_defines *kept, char **vals)
{
    int n = defs ? defs->n : 0;
    char **v = malloc((*argc + 2 * n + 1) * sizeof *v);
    if (!v)
        return NULL;
    memcpy(v, argv, *argc * sizeof *v);
    *kept = (tool_defines){ 0 };
    kept->defs = n ? malloc(n * sizeof *kept->defs) : NULL;
    if (n && !kept->defs) {
        free(v);
        return NULL;
    }
    int k = *argc, used = 0;
    for (int i = 0; i < n; i++) {
        int scalar;
        const char *flag = san_gen_structural(tmpl, defs->defs[i].name, &scalar);
        if (!flag || !scalar || asprintf(&vals[used], "%.17g", defs->defs[i].value) < 0) {
            kept->defs[kept->n++] = defs->defs[i];
            continue;
        }
        fprintf(stderr, "san %s: -D %s=%s sets the structure of the model: generated with %s %s\n",
                cmd, defs->defs[i].name, vals[used], flag, vals[used]);
        v[k++] = (char *)flag;
        v[k++] = vals[used++];
    }
    v[k] = NULL;
    *argc = k;
    return v;
}

/* argv as one line, words joined by blanks, a word with a blank in
 * double quotes (split_words reads it back); in a static buffer, cut at
 * its size (a line of a few flags). */
static const char *joined(int argc, char **argv)
{
    static char line[4096];
    size_t n = 0;
    line[0] = '\0';
    for (int i = 0; i < argc && n < sizeof line; i++) {
        const char *q = strpbrk(argv[i], " \t") ? "\"" : "";
        int w = snprintf(line + n, sizeof line - n, "%s%s%s%s", i ? " " : "", q, argv[i], q);
        n += w > 0 ? (size_t)w : 0;
    }
    return line;
}

san_model *tool_load_gen(const char *cmd, const char *gen, tool_defines *defs, int *status,
                        const tool_diag *dg)
{
    char *copy = strdup(gen), **argv = NULL;
    int argc = copy ? split_words(copy, &argv) : 0;
    char err[512] = "";
    char *text = NULL;
    tool_defines kept = { 0 };
    char **vals = calloc((defs ? defs->n : 0) + 1, sizeof *vals);
    char **full = argc > 0 && vals ? structural_flags(cmd, argv[0], argv, &argc, defs, &kept, vals)
                                   : NULL;
    if (full) {
        free(argv);
        argv = full;
        defs = &kept;
    }
    if (argc > 0)
        san_gen(argc, argv, &text, NULL, err, sizeof err);
    /* the provenance names the line generated: with a structural -D,
     * the regenerated one (its text is what the digest is of) */
    if (text)
        tool_meta_gen(full ? joined(argc, argv) : gen, text, strlen(text));
    for (int i = 0; vals && vals[i]; i++)
        free(vals[i]);
    free(vals);
    if (!text) {
        fprintf(stderr, "san %s: --gen: %s\n", cmd,
                argc > 0 ? err : "expected a template, e.g. 'ms --slaves 3'");
        free(copy);
        free(argv);
        *status = EXIT_USAGE;
        return NULL;
    }
    san_model *m = tool_load_text("<gen>", text, strlen(text), defs, status, 0, dg);
    free(kept.defs);
    free(text);
    free(copy);
    free(argv);
    return m;
}
