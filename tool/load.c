/*
 * load.c - a model file read, parsed and compiled, its diagnostics on
 * stderr (the expressions of --initial and --until as the user wrote them).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tool/tool.h"

/* An expression of the command line (--until 'EXPR') compiled as a result
 * appended to the model text: where it starts there, and the option that
 * gave it, so that its diagnostics point into it and not at a line the
 * model file does not have. */
typedef struct {
    const char *option;     /* "--until" */
    const char *text;       /* the expression as the user wrote it */
    int line, col;          /* its first character in the combined text */
} expr_origin;

/* The line an item falls on within an expression, 1-based; 0: not in it. */
static int line_in_expr(const expr_origin *x, int line)
{
    int lines = 1;
    for (const char *c = x->text; *c; c++)
        lines += *c == '\n';
    return line >= x->line && line < x->line + lines ? line - x->line + 1 : 0;
}

/* Diagnostics of the model, then of each expression under its option's
 * name ("--until:1:4: error: unknown automaton 'queu'", the expression
 * quoted with its caret). */
static void print_diag(const san_diag *d, const expr_origin *xo, int nxo)
{
    if (nxo == 0) {
        san_diag_print(d, stderr, isatty(2));
        return;
    }
    san_diag dm, dx[2];
    san_diag_init(&dm, d->file, d->src, d->srclen);
    for (int i = 0; i < nxo; i++)
        san_diag_init(&dx[i], xo[i].option, xo[i].text, strlen(xo[i].text));
    for (int k = 0; k < d->n; k++) {
        const san_diag_item *it = &d->items[k];
        int i = 0, rel = 0;
        while (i < nxo && !(rel = line_in_expr(&xo[i], it->line)))
            i++;
        if (i == nxo) {
            san_diag_add(&dm, it->sev, it->line, it->col, "%s", it->msg);
            continue;
        }
        int col = rel == 1 ? it->col - xo[i].col + 1 : it->col;
        san_diag_add(&dx[i], it->sev, rel, col < 1 ? 1 : col, "%s", it->msg);
    }
    san_diag_print(&dm, stderr, isatty(2));
    san_diag_clear(&dm);
    for (int i = 0; i < nxo; i++) {
        san_diag_print(&dx[i], stderr, isatty(2));
        san_diag_clear(&dx[i]);
    }
}

static san_model *load_text(const char *name, char *text, size_t len, tool_defines *defs,
                            int *status, int quiet_warnings, const tool_diag *dg,
                            const expr_origin *xo, int nxo);

san_model *tool_load_text(const char *name, char *text, size_t len,
                         tool_defines *defs, int *status, int quiet_warnings,
                         const tool_diag *dg)
{
    return load_text(name, text, len, defs, status, quiet_warnings, dg, NULL, 0);
}

static san_model *load_text(const char *name, char *text, size_t len, tool_defines *defs,
                            int *status, int quiet_warnings, const tool_diag *dg,
                            const expr_origin *xo, int nxo)
{
    for (int i = 0; defs && i < defs->n; i++) {
        char why[2048];
        if (tool_structural_define(text, len, &defs->defs[i], why, sizeof why)) {
            fprintf(stderr, "san: -D %s: %s\n", defs->defs[i].name, why);
            *status = EXIT_USAGE;
            return NULL;
        }
    }
    san_diag d;
    san_diag_init(&d, name, text, len);
    san_load_opts opt;
    san_load_opts_default(&opt);
    opt.peps_warnings = !(dg && dg->no_peps_warnings);
    opt.progress = tool_stderr_is_tty();
    if (defs) {
        opt.defs = defs->defs;
        opt.ndefs = defs->n;
    }
    san_model *m = san_model_load(text, len, &d, &opt);
    if (m && dg && dg->peers)
        san_model_lint_peers(m, text, len, &d);
    if (!m || d.nerrors || !quiet_warnings)
        print_diag(&d, xo, nxo);
    if (m && defs) {
        for (int i = 0; i < defs->n; i++)
            if (!defs->defs[i].used) {
                char why[1024];
                san_model_define_why(m, defs->defs[i].name, defs->defs[i].value, why, sizeof why);
                fprintf(stderr, "san: -D %s: %s\n", defs->defs[i].name, why);
                san_model_free(m);
                m = NULL;
                break;
            }
    }
    if (!m)
        *status = EXIT_USAGE;
    san_diag_clear(&d);
    return m;
}

int tool_read_model(const char *path, double max_input, double max_memory, char **text,
                   size_t *len)
{
    double asked = max_input > 0 ? max_input : SAN_MAX_INPUT_DEFAULT;
    double limit = max_memory > 0 && max_memory < asked ? max_memory : asked;
    char msg[1024];
    san_status st = san_read_input(path, limit, text, len, msg, sizeof msg);
    if (st == SAN_OK) {
        tool_meta_model(path, *text, *len);      /* the report names these bytes */
        return EXIT_OK;
    }
    if (st == SAN_E_INPUT && errno == EFBIG)
        fprintf(stderr, "san: %s; raise %s\n", msg, limit < asked ? "--max-memory" : "--max-input");
    else
        fprintf(stderr, "san: %s\n", msg);
    return tool_exit_status(st);
}

/* The text of a model file as .san: a PRISM model imported, the -D
 * given to the importer (*defs then NULL) and its PEPS lint off (*dg
 * pointed at dq): the user wrote PRISM, what PEPS would read
 * differently is not theirs.  EXIT_OK with text, or the exit status. */
static int read_as_san(const char *path, const char *name, double max_input, double max_memory,
                       tool_defines **defs, const tool_diag **dg, tool_diag *dq, char **text,
                       size_t *len)
{
    int rc = tool_read_model(path, max_input, max_memory, text, len);
    if (rc != EXIT_OK || !san_is_prism_path(path))
        return rc;
    if ((rc = tool_prism_to_san(name, text, len, *defs)) != EXIT_OK) {
        free(*text);
        return rc;
    }
    *defs = NULL;
    *dq = *dg ? **dg : (tool_diag){ 0 };
    dq->no_peps_warnings = 1;
    *dg = dq;
    return EXIT_OK;
}

const char *tool_model_name(const char *path, char *buf, size_t size)
{
    if (!strcmp(path, "-"))
        return "<stdin>";
    if (!san_is_prism_path(path))
        return path;
    snprintf(buf, size, "%s (imported)", path);
    return buf;
}

san_model *tool_load_model_flags(const char *path, tool_defines *defs, int flags, int *status,
                                double max_input, double max_memory, const tool_diag *dg)
{
    char *text;
    size_t len;
    const char *name = strcmp(path, "-") ? path : "<stdin>";
    if ((*status = tool_read_model(path, max_input, max_memory, &text, &len)) != EXIT_OK)
        return NULL;
    int prism = san_is_prism_path(path);
    tool_diag dq = *dg;
    if (prism) {
        *status = tool_prism_to_san_flags(name, &text, &len, defs, flags);
        dq.no_peps_warnings = 1;    /* the importer's text, not the user's */
    }
    char nb[4096];
    san_model *m = NULL;
    if (*status == EXIT_OK)
        m = tool_load_text(tool_model_name(path, nb, sizeof nb), text, len, prism ? NULL : defs,
                          status, 0, &dq);
    free(text);
    return m;
}

/* A model file read as .san (read_as_san), with the name its
 * diagnostics give it.  dg may point at dq: not to be copied. */
typedef struct {
    char *text;
    size_t len;
    const char *name;
    tool_defines *defs;         /* NULL for an imported PRISM model */
    const tool_diag *dg;
    tool_diag dq;
    char nb[4096];              /* the name, when it is built */
} model_source;

static int read_source(model_source *s, const char *path, tool_defines *defs,
                       const tool_diag *dg, double max_input, double max_memory)
{
    s->defs = defs;
    s->dg = dg;
    int rc = read_as_san(path, strcmp(path, "-") ? path : "<stdin>", max_input, max_memory,
                         &s->defs, &s->dg, &s->dq, &s->text, &s->len);
    if (rc == EXIT_OK)
        s->name = tool_model_name(path, s->nb, sizeof s->nb);
    return rc;
}

san_model *tool_load_model(const char *path, tool_defines *defs, int *status,
                          int quiet_warnings, double max_input, double max_memory,
                          const tool_diag *dg)
{
    model_source s;
    if ((*status = read_source(&s, path, defs, dg, max_input, max_memory)) != EXIT_OK)
        return NULL;
    san_model *m = tool_load_text(s.name, s.text, s.len, s.defs, status, quiet_warnings, s.dg);
    free(s.text);
    return m;
}

san_model *tool_load_model_exprs(const char *path, tool_defines *defs, const char *const *names,
                                const char *const *options, const char *const *exprs, int n,
                                int *status, double max_input, double max_memory,
                                const tool_diag *dg)
{
    expr_origin xo[2];
    if (n > 2) {
        fprintf(stderr, "san: internal error: %d command-line expressions\n", n);
        *status = EXIT_FAIL;
        return NULL;
    }
    model_source s;
    if ((*status = read_source(&s, path, defs, dg, max_input, max_memory)) != EXIT_OK)
        return NULL;
    san_load_opts opt;
    san_load_opts_default(&opt);
    if (s.defs) {
        opt.defs = s.defs->defs;
        opt.ndefs = s.defs->n;
    }
    size_t l;
    char *t = NULL;
    san_text_pos at[2];
    san_status st = n > 0 ? san_text_with_results(s.text, s.len, &opt, names, exprs, n, &t, &l,
                                                  at)
                          : SAN_E_MODEL;
    if (st == SAN_E_MODEL) {    /* no expression, or the model itself is wrong */
        san_model *m = tool_load_text(s.name, s.text, s.len, s.defs, status, 0, s.dg);
        free(s.text);
        return m;
    }
    free(s.text);
    if (st != SAN_OK) {
        *status = EXIT_FAIL;
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        xo[i].option = options[i];
        xo[i].text = exprs[i];
        xo[i].line = at[i].line;
        xo[i].col = at[i].col;
    }
    san_model *m = load_text(s.name, t, l, s.defs, status, 0, s.dg, xo, n);
    free(t);
    return m;
}

const san_expr *tool_state_expr(const char *cmd, const san_model *m, const char *opt,
                               const char *name, const char *text, int *status)
{
    for (int i = 0; i < san_model_results(m); i++)
        if (!strcmp(san_model_result_name(m, i), name)) {
            if (!san_model_result_derived(m, i))
                return san_model_result_expr(m, i);
            *status = tool_usage_error(cmd, "%s '%s': names a result or thr(), values of the "
                                      "solution; a state selection reads the state only", opt,
                                      text);
            return NULL;
        }
    return NULL;
}
