/*
 * options.c - the one option parser of the command and the help it is
 * described by (options.h), and the option groups the subcommands share.
 */
#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tool/tool.h"
#include "tool/options.h"

/* ------------------------------------------------------------------ */
/* The shared groups (over a san_sweep_opts)                            */
/* ------------------------------------------------------------------ */

const tool_option tool_solver_options[] = {
    TOOL_CHOICE(TOOL_OPT_METHOD, 'm', "method", "M", san_sweep_opts, solve.method,
               "auto, direct (UMFPACK), power, jacobi,\n"
               "gs (Gauss-Seidel/SOR), gmres, bicgstab, iad\n"
               "(aggregation: stiff and nearly decomposable chains),\n"
               "ml (multilevel aggregation; over kron: by automata)", "auto"),
    TOOL_DOUBLE(0, "tol", "X", san_sweep_opts, solve.tol, 1e-300, 1, 0, "a number in (0, 1]",
               "accuracy: every state's flows in balance to X\n"
               "relative, and every block of states (automaton,\n"
               "coupled automata, fast components) within X of the\n"
               "exact coarse solution; see ACCURACY in san(1)", "1e-10"),
    TOOL_INT(0, "max-iter", "N", san_sweep_opts, solve.max_iter, 1, 1e15, "a positive integer",
            "iteration limit of iterative methods", "10000"),
    TOOL_DOUBLE(0, "omega", "W", san_sweep_opts, solve.omega, 1e-6, 2 - 1e-6, 0,
               "a number in (0, 2)", "relaxation of gs (1: Gauss-Seidel)", "1"),
    TOOL_INT(0, "restart", "M", san_sweep_opts, solve.restart, 1, 10000, NULL,
            "GMRES restart length (default: 30, widened up to\n"
            "512 when a cycle does not halve the residual)", NULL),
    TOOL_CHOICE(TOOL_OPT_PRECOND, 0, "precond", "P", san_sweep_opts, solve.precond,
               "ilu0, jacobi or none (gmres, bicgstab)", "ilu0"),
    TOOL_DOUBLE(0, "time-limit", "S", san_sweep_opts, solve.time_limit, 1e-6, 1e9, 0,
               "seconds > 0",
               "stop after S seconds (exploration and solve; an\n"
               "iterative solve stops with its best vector)", NULL),
    TOOL_CHOICE(TOOL_OPT_STORAGE, 0, "storage", "S", san_sweep_opts, storage,
               "auto: the storage of the smaller predicted time,\n"
               "or memory when within 1.5x the time (the report\n"
               "says why);\n"
               "sparse; kron (Q never stored: power, jacobi, gmres,\n"
               "bicgstab, iad, ml; not gs, direct)", "auto"),
    TOOL_CHOICE(TOOL_OPT_LUMP, 0, "lump", "L", san_sweep_opts, lump,
               "auto: interchangeable replicas solved as counts\n"
               "(exact; the report says what was lumped); off:\n"
               "the model as written", "auto"),
    TOOL_END
};

const tool_option tool_limit_options[] = {
    TOOL_BYTES(0, "max-memory", "M", san_sweep_opts, space.max_memory,
              "refuse models needing more (e.g. 4G, 512M, 1T;\n"
              "default 80% of physical memory, divided by the\n"
              "jobs when variants run at once)", NULL),
    TOOL_INT(0, "max-states", "N", san_sweep_opts, space.max_states, 1, 9e18,
            "a positive integer", "refuse more reachable states than N", NULL),
    TOOL_END
};

const tool_option tool_run_options[] = {
    TOOL_GROUP("run:"),
    TOOL_INT('j', "jobs", "N", san_sweep_opts, jobs, 1, 4096, "a positive integer",
            "variants at once (default: one per core)", NULL),
    TOOL_GROUP("solver:"),
    { .kind = TOOL_OPT_INCLUDE, .group = tool_solver_options },
    TOOL_GROUP("limits:"),
    { .kind = TOOL_OPT_INCLUDE, .group = tool_limit_options },
    TOOL_END
};

/* --size WxH: both sides, into the look at dest (a san_plot_opts). */
static int opt_plot_size(const tool_parser *p, const tool_option *o, const char *arg, void *dest)
{
    san_plot_opts *look = dest;
    const char *x = strpbrk(arg, "xX");
    char w[64];
    double a, b;
    (void)o;
    if (!x || x == arg || (size_t)(x - arg) >= sizeof w ||
        (memcpy(w, arg, x - arg), w[x - arg] = '\0', san_parse_double(w, 100, 20000, &a)) ||
        san_parse_double(x + 1, 100, 20000, &b))
        return tool_usage_error(p->cmd, "--size: expected WxH, each from 100 to 20000 (points; "
                               "PNG: pixels at --dpi 96), not '%s'", arg);
    look->width = a;
    look->height = b;
    return 0;
}

const tool_option tool_plot_options[] = {
    TOOL_GROUP("plot:"),
    TOOL_STRING(0, "title", "TEXT", tool_plot, look.title,
               "the plot's title ('' for none)"),
    TOOL_STRING(0, "xlabel", "TEXT", tool_plot, look.xlabel,
               "the x axis' label, with its unit ('' for none)"),
    TOOL_STRING(0, "ylabel", "TEXT", tool_plot, look.ylabel,
               "the y axis' label, with its unit ('' for none)"),
    TOOL_STRING(0, "legend-title", "TEXT", tool_plot, look.legend_title,
               "a heading above the legend's entries"),
    TOOL_FLAG(0, "logx", tool_plot, look.logx, 1,
             "logarithmic x axis, ticks at the decades (a value\n"
             "<= 0 is refused)"),
    TOOL_FLAG(0, "logy", tool_plot, look.logy, 1, "logarithmic y axis, the same"),
    TOOL_CALLBACK(0, "size", "WxH", tool_plot, look, opt_plot_size,
                 "the page: points (SVG, PDF); pixels at --dpi 96\n"
                 "(PNG)"),
    { .kind = TOOL_OPT_DOUBLE, .long_name = "dpi", .argh = "N", .offset = offsetof(tool_plot, look.dpi),
      .lo = 10, .hi = 4800, .help = "PNG: N/96 pixels per point of the page (192: twice\n"
      "the pixels, the same look)", .def = "96" },
    TOOL_FLAG(0, "table", tool_plot, table, 1,
             "the report on standard output too (with --plot it\n"
             "is left out unless --table, --format or -o asks)"),
    TOOL_END
};

const tool_option tool_diag_options[] = {
    TOOL_GROUP("diagnostics:"),
    TOOL_FLAG(0, "no-peps-warnings", tool_diag, no_peps_warnings, 1,
             "do not warn about PEPS left-to-right precedence nor\n"
             "about what PEPS 2003 or GTAexpress read differently"),
    TOOL_FLAG(0, "peps", tool_diag, peers, 1,
             "warn about every occurrence of a construct PEPS 2003\n"
             "or GTAexpress read differently or reject (by default:\n"
             "the first of each, with the count), with the rewrite\n"
             "(san print --dialect peps2003 makes them)"),
    TOOL_END
};

/* ------------------------------------------------------------------ */
/* A table with its includes laid flat                                  */
/* ------------------------------------------------------------------ */

enum { MAX_FLAT = 128 };

typedef struct {
    const tool_option *o;
    size_t off;             /* of the destination, the includes' added */
} flat_opt;

static int flatten(const tool_option *t, size_t base, flat_opt *f, int n)
{
    for (; t && t->kind != TOOL_OPT_END && n < MAX_FLAT; t++) {
        if (t->kind == TOOL_OPT_INCLUDE)
            n = flatten(t->group, base + t->offset, f, n);
        else
            f[n++] = (flat_opt){ t, base + t->offset };
    }
    return n;
}

static int is_option(const tool_option *o)
{
    return o->kind != TOOL_OPT_GROUP && o->kind != TOOL_OPT_INCLUDE && o->kind != TOOL_OPT_END;
}

static int takes_arg(const tool_option *o)
{
    return o->kind != TOOL_OPT_FLAG;
}

/* "--method", or "-D" for an option without a long name. */
static const char *opt_name(const tool_option *o, char *buf, size_t n)
{
    if (o->long_name)
        snprintf(buf, n, "--%s", o->long_name);
    else
        snprintf(buf, n, "-%c", o->short_name);
    return buf;
}

/* ------------------------------------------------------------------ */
/* Values                                                               */
/* ------------------------------------------------------------------ */

static const char *format_names(int mask, char *buf, size_t n)
{
    static const char *const names[] = { "text", "json", "csv" };
    const char *pick[3];
    int k = 0;
    for (int i = 0; i < 3; i++)
        if (mask & (1 << i))
            pick[k++] = names[i];
    buf[0] = '\0';
    for (int i = 0; i < k; i++)
        snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", i == 0 ? "" : i == k - 1 ? " or " : ", ",
                 pick[i]);
    return buf;
}

/* "--tol: expected a number in (0, 1], not '1e-400' (too small: it
 * rounds to 0 ...)": the reason, when the parser gives one. */
static int refuse(const tool_parser *p, const tool_option *o, const char *arg, const char *expect,
                  const char *why)
{
    char name[64];
    return tool_usage_error(p->cmd, "%s: expected %s, not '%s'%s%s%s",
                           opt_name(o, name, sizeof name), expect, arg, why ? " (" : "",
                           why ? why : "", why ? ")" : "");
}

static void store_int(void *dest, int size, double x)
{
    if (size == (int)sizeof(int32_t)) {
        int32_t v = (int32_t)x;
        memcpy(dest, &v, sizeof v);
    } else {
        int64_t v = (int64_t)x;
        memcpy(dest, &v, sizeof v);
    }
}

/* Read arg into dest as the option says: 0, or the exit status of the
 * usage error reported. */
static int apply(const tool_parser *p, const tool_option *o, const char *arg, void *dest)
{
    char buf[128];
    double x;
    switch (o->kind) {
    case TOOL_OPT_FLAG:
        *(int *)dest = o->value;
        return 0;
    case TOOL_OPT_INT:
        if (san_parse_integer(arg, o->lo, o->hi, &x) < 0) {
            snprintf(buf, sizeof buf, "an integer in [%g, %g]", o->lo, o->hi);
            return refuse(p, o, arg, o->expect ? o->expect : buf,
                          san_parse_why(arg, o->lo, o->hi, 1));
        }
        store_int(dest, o->size, x);
        return 0;
    case TOOL_OPT_DOUBLE:
        if (san_parse_double(arg, o->lo, o->hi, &x) < 0 || ((o->open & TOOL_OPEN_LO) && x == o->lo) ||
            ((o->open & TOOL_OPEN_HI) && x == o->hi)) {
            snprintf(buf, sizeof buf, "a number in %c%g, %g%c", o->open & TOOL_OPEN_LO ? '(' : '[',
                     o->lo, o->hi, o->open & TOOL_OPEN_HI ? ')' : ']');
            return refuse(p, o, arg, o->expect ? o->expect : buf,
                          san_parse_why(arg, o->lo, o->hi, 0));
        }
        *(double *)dest = x;
        return 0;
    case TOOL_OPT_BYTES:
        if (san_parse_bytes(arg, &x) < 0)
            return refuse(p, o, arg, o->expect ? o->expect
                                            : "a size from 1 byte to 1e30, like 4G, 512M or 1T",
                          NULL);
        *(double *)dest = x;
        return 0;
    case TOOL_OPT_METHOD:
        if (san_method_parse(arg, (san_method *)dest) < 0)
            return tool_usage_error(p->cmd, "--%s: unknown method '%s' (auto, direct, power, jacobi, "
                                   "gs, gmres, bicgstab, iad, ml)", o->long_name, arg);
        return 0;
    case TOOL_OPT_STORAGE:
        if (!strcmp(arg, "sparse"))
            *(san_storage *)dest = SAN_STORAGE_SPARSE;
        else if (!strcmp(arg, "kron"))
            *(san_storage *)dest = SAN_STORAGE_KRON;
        else if (!strcmp(arg, "auto"))
            *(san_storage *)dest = SAN_STORAGE_AUTO;
        else
            return refuse(p, o, arg, "sparse, kron or auto", NULL);
        return 0;
    case TOOL_OPT_LUMP:
        if (!strcmp(arg, "auto"))
            *(san_lump *)dest = SAN_LUMP_AUTO;
        else if (!strcmp(arg, "off"))
            *(san_lump *)dest = SAN_LUMP_OFF;
        else
            return refuse(p, o, arg, "auto or off", NULL);
        return 0;
    case TOOL_OPT_PRECOND:
        if (!strcmp(arg, "ilu0"))
            *(san_precond *)dest = SAN_PC_ILU0;
        else if (!strcmp(arg, "jacobi"))
            *(san_precond *)dest = SAN_PC_JACOBI;
        else if (!strcmp(arg, "none"))
            *(san_precond *)dest = SAN_PC_NONE;
        else
            return refuse(p, o, arg, "ilu0, jacobi or none", NULL);
        return 0;
    case TOOL_OPT_FORMAT: {
        tool_format f;
        int bit = !strcmp(arg, "text") ? TOOL_FMT_TEXT : !strcmp(arg, "json") ? TOOL_FMT_JSON
                : !strcmp(arg, "csv") ? TOOL_FMT_CSV : 0;
        if (!(bit & o->value) || tool_parse_format(arg, &f, 1) < 0)
            return refuse(p, o, arg, format_names(o->value, buf, sizeof buf), NULL);
        *(tool_format *)dest = f;
        return 0;
    }
    case TOOL_OPT_STRING:
        *(const char **)dest = arg;
        return 0;
    case TOOL_OPT_CALLBACK:
        return o->cb(p, o, arg, dest);
    default:
        return 0;
    }
}

/* ------------------------------------------------------------------ */
/* The parser                                                           */
/* ------------------------------------------------------------------ */

/* The option named name[0..len): exact, else (abbrev) the one long name
 * it begins; *nmatch counts the candidates (> 1: ambiguous). */
static const flat_opt *find_long(const flat_opt *f, int n, const char *name, size_t len,
                                 int abbrev, int *nmatch)
{
    const flat_opt *hit = NULL;
    *nmatch = 0;
    for (int i = 0; i < n; i++)
        if (is_option(f[i].o) && f[i].o->long_name && strlen(f[i].o->long_name) == len &&
            !strncmp(f[i].o->long_name, name, len)) {
            *nmatch = 1;
            return &f[i];
        }
    if (!abbrev)
        return NULL;
    for (int i = 0; i < n; i++)
        if (is_option(f[i].o) && f[i].o->long_name && !strncmp(f[i].o->long_name, name, len)) {
            hit = hit ? hit : &f[i];
            (*nmatch)++;
        }
    return *nmatch == 1 ? hit : NULL;
}

static const flat_opt *find_short(const flat_opt *f, int n, char c)
{
    for (int i = 0; i < n; i++)
        if (is_option(f[i].o) && f[i].o->short_name == c)
            return &f[i];
    return NULL;
}

static int ambiguous(const tool_parser *p, const flat_opt *f, int n, const char *name, size_t len)
{
    char list[512] = "";
    for (int i = 0; i < n; i++)
        if (is_option(f[i].o) && f[i].o->long_name && !strncmp(f[i].o->long_name, name, len))
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s--%s", list[0] ? ", " : "",
                     f[i].o->long_name);
    return tool_usage_error(p->cmd, "--%.*s: ambiguous option (%s)", (int)len, name, list);
}

/* The long option closest to a misspelt one ("metod"), or NULL. */
static const char *closest_long(const flat_opt *f, int n, const char *name)
{
    san_suggest s;
    san_suggest_init(&s, name);
    for (int i = 0; i < n; i++)
        if (is_option(f[i].o) && f[i].o->long_name)
            san_suggest_add(&s, f[i].o->long_name);
    san_suggest_add(&s, "help");
    return san_suggest_best(&s);
}

int tool_template_error(const tool_spec *spec, const char *msg)
{
    static const char tail[] = ": unknown flag";
    const char *at = strstr(msg, tail);
    if (!at || (at[sizeof tail - 1] && at[sizeof tail - 1] != ' ') || strncmp(msg, "--", 2) ||
        (size_t)(at - msg) > 100 || strstr(msg, "did you mean"))
        return tool_usage_error(spec->name, "%s", msg);     /* not that, or one named */
    char flag[128];
    snprintf(flag, sizeof flag, "%.*s", (int)(at - msg - 2), msg + 2);
    flat_opt f[MAX_FLAT];
    const char *near = closest_long(f, flatten(spec->opts, 0, f, 0), flag);
    if (!near)
        return tool_usage_error(spec->name, "%s", msg);
    return tool_usage_error(spec->name, "%s; did you mean --%s (an option of san %s)?", msg, near,
                           spec->name);
}

/* "--metod: unknown option; did you mean --method?" (long options:
 * a short one is a single letter, too short to guess from). */
static int unknown(const tool_parser *p, const flat_opt *f, int n, const char *what)
{
    const char *hint = p->spec->unknown_hint;
    const char *near = what[1] == '-' ? closest_long(f, n, what + 2) : NULL;
    return tool_usage_error(p->cmd, "%s: unknown option%s%s%s%s%s%s", what, hint ? " (" : "",
                           hint ? hint : "", hint ? ")" : "", near ? "; did you mean --" : "",
                           near ? near : "", near ? "?" : "");
}

/* One long option, argv[*i] = "--name[=value]". */
static int parse_long(const tool_parser *p, const flat_opt *f, int n, int argc, char **argv,
                      int *i, char *dest, int *passed)
{
    const char *name = argv[*i] + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    int flags = p->spec->flags, nmatch;
    *passed = 0;
    const flat_opt *hit = len ? find_long(f, n, name, len, flags & TOOL_ABBREV, &nmatch) : NULL;
    nmatch = len ? nmatch : 0;
    if (nmatch > 1)
        return ambiguous(p, f, n, name, len);
    if (!hit) {
        if (flags & TOOL_PASS_UNKNOWN) {
            *passed = 1;
            return 0;
        }
        char what[128];
        snprintf(what, sizeof what, "--%.*s", (int)(len < 100 ? len : 100), name);
        return unknown(p, f, n, what);
    }
    const char *val = NULL;
    char oname[64];
    if (takes_arg(hit->o)) {
        val = eq ? eq + 1 : *i + 1 < argc ? argv[++*i] : NULL;
        if (!val)
            return tool_usage_error(p->cmd, "%s: missing value", opt_name(hit->o, oname, sizeof oname));
    } else if (eq) {
        return tool_usage_error(p->cmd, "%s: takes no value", opt_name(hit->o, oname, sizeof oname));
    }
    return apply(p, hit->o, val, dest + hit->off);
}

/* Short options, argv[*i] = "-x", "-xVALUE", "-qx VALUE". */
static int parse_short(const tool_parser *p, const flat_opt *f, int n, int argc, char **argv,
                       int *i, char *dest, int *passed)
{
    const char *a = argv[*i];
    *passed = 0;
    for (const char *c = a + 1; *c; c++) {
        const flat_opt *hit = find_short(f, n, *c);
        int passes = (p->spec->flags & TOOL_PASS_UNKNOWN) && c == a + 1;
        if (!hit && *c == 'h' && !passes) {            /* -qh: the help */
            tool_help(stdout, p->spec);
            return TOOL_HELP_SHOWN;
        }
        if (!hit) {
            if (passes) {
                *passed = 1;
                return 0;
            }
            char what[8];
            snprintf(what, sizeof what, "-%c", *c);
            return unknown(p, f, n, what);
        }
        if (!takes_arg(hit->o)) {
            int rc = apply(p, hit->o, NULL, dest + hit->off);
            if (rc)
                return rc;
            continue;
        }
        const char *val = c[1] ? c + 1 : *i + 1 < argc ? argv[++*i] : NULL;
        if (!val) {
            char oname[64];
            return tool_usage_error(p->cmd, "%s: missing value", opt_name(hit->o, oname, sizeof oname));
        }
        return apply(p, hit->o, val, dest + hit->off);
    }
    return 0;
}

/* The value of a file option after parsing (the last given wins). */
static const char *file_option(const flat_opt *f, const char *dest)
{
    return *(const char *const *)(dest + f->off);
}

/* Output out of option o against every input: the input options, and
 * the operands when they may be files (those that are options passed
 * through to a template are not); 0, or the exit status. */
static int refuse_overwrite(const tool_parser *p, const tool_option *o, const char *out,
                            const flat_opt *f, int nf, const char *dest, char **ops, int nops)
{
    char name[64];
    opt_name(o, name, sizeof name);
    for (int i = 0; i < nf; i++) {
        const char *in = f[i].o->io == TOOL_IO_INPUT ? file_option(&f[i], dest) : NULL;
        if (in && tool_refuse_overwrite(p->cmd, name, out, in) != 0)
            return EXIT_USAGE;
    }
    for (int i = 0; (p->spec->flags & TOOL_OPERAND_FILES) && i < nops; i++) {
        int passed = ops[i][0] == '-' && ops[i][1];
        int named = p->spec->not_a_file && p->spec->not_a_file(ops[i]);
        if (!passed && !named && tool_refuse_overwrite(p->cmd, name, out, ops[i]) != 0)
            return EXIT_USAGE;
    }
    return 0;
}

/* No output may replace an input: checked once, here, for every command
 * and every output option, before anything is read or written (a slip
 * of --vector onto the model's name used to replace the model). */
static int refuse_overwrites(const tool_parser *p, const flat_opt *f, int nf, const char *dest,
                             char **ops, int nops)
{
    for (int i = 0; i < nf; i++) {
        const char *out = f[i].o->io == TOOL_IO_OUTPUT ? file_option(&f[i], dest) : NULL;
        if (out && refuse_overwrite(p, f[i].o, out, f, nf, dest, ops, nops) != 0)
            return EXIT_USAGE;
    }
    return 0;
}

int tool_parse(const tool_spec *spec, int argc, char **argv, void *dest, char ***rest, int *nrest)
{
    tool_parser p = { spec, spec->name };
    flat_opt f[MAX_FLAT];
    int nf = flatten(spec->opts, 0, f, 0);
    char **r = calloc(argc + 1, sizeof *r);
    int nr = 0, rc = 0, operands = 0;
    *rest = NULL;
    *nrest = 0;
    if (!r) {
        fprintf(stderr, "san %s: out of memory\n", spec->name);
        return EXIT_FAIL;
    }
    for (int i = 1; i < argc && rc == 0; i++) {
        const char *a = argv[i];
        int passed = 0;
        if (operands || a[0] != '-' || !a[1]) {
            r[nr++] = argv[i];
            continue;
        }
        if (!strcmp(a, "--")) {
            operands = 1;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            tool_help(stdout, spec);
            rc = TOOL_HELP_SHOWN;
        } else if (!strcmp(a, "--list-options")) {
            tool_list_options(stdout, spec);
            rc = TOOL_HELP_SHOWN;
        } else {
            int first = i;
            rc = a[1] == '-' ? parse_long(&p, f, nf, argc, argv, &i, dest, &passed)
                             : parse_short(&p, f, nf, argc, argv, &i, dest, &passed);
            if (passed)
                r[nr++] = argv[first];
        }
    }
    if (rc == 0)
        rc = refuse_overwrites(&p, f, nf, dest, r, nr);
    if (rc) {
        free(r);
        return rc;
    }
    *rest = r;
    *nrest = nr;
    return 0;
}

/* ------------------------------------------------------------------ */
/* The help                                                             */
/* ------------------------------------------------------------------ */

enum { HELP_COLUMN = 23, HELP_WIDTH = 79 };

static void help_option(FILE *out, const tool_option *o)
{
    char left[128];
    int k = snprintf(left, sizeof left, "  %s", o->short_name ? "" : "    ");
    if (o->short_name)
        k += snprintf(left + k, sizeof left - k, "-%c%s", o->short_name, o->long_name ? ", " : "");
    if (o->long_name)
        k += snprintf(left + k, sizeof left - k, "--%s", o->long_name);
    if (o->argh)
        k += snprintf(left + k, sizeof left - k, " %s", o->argh);
    fputs(left, out);
    int col = k + 2 > HELP_COLUMN ? k + 2 : HELP_COLUMN;
    fprintf(out, "%*s", col - k, "");
    char buf[128];
    const char *h = o->help ? o->help : "";
    if (o->kind == TOOL_OPT_FORMAT && !o->help)
        h = format_names(o->value, buf, sizeof buf);
    /* the lines of the help, the later ones under the first */
    int last = col;
    for (const char *s = h; *s;) {
        const char *nl = strchr(s, '\n');
        int len = nl ? (int)(nl - s) : (int)strlen(s);
        fprintf(out, "%.*s", len, s);
        last = (s == h ? col : HELP_COLUMN) + len;
        if (!nl)
            break;
        s = nl + 1;
        fprintf(out, "\n%*s", HELP_COLUMN, "");
    }
    if (o->def) {
        int len = (int)strlen(o->def) + 12;     /* " (default: X)" */
        if (last + len + 1 > HELP_WIDTH)
            fprintf(out, "\n%*s(default: %s)", HELP_COLUMN, "", o->def);
        else
            fprintf(out, "%s(default: %s)", *h ? " " : "", o->def);
    }
    fputc('\n', out);
}

void tool_help(FILE *out, const tool_spec *spec)
{
    flat_opt f[MAX_FLAT];
    int n = flatten(spec->opts, 0, f, 0);
    fputs(spec->usage, out);
    if (spec->intro)
        fprintf(out, "\n%s", spec->intro);
    fputc('\n', out);
    const char *heading = NULL;
    for (int i = 0; i < n; i++) {
        const tool_option *o = f[i].o;
        if (o->kind == TOOL_OPT_GROUP) {
            if (!heading || strcmp(heading, o->help))
                fprintf(out, "%s\n", o->help);
            heading = o->help;
        } else {
            help_option(out, o);
        }
    }
    static const tool_option help = { .kind = TOOL_OPT_FLAG, .short_name = 'h',
                                     .long_name = "help", .help = "this help" };
    help_option(out, &help);
    if (spec->extra)
        spec->extra(out);
    if (spec->outro)
        fprintf(out, "\n%s", spec->outro);
}

void tool_list_options(FILE *out, const tool_spec *spec)
{
    flat_opt f[MAX_FLAT];
    int n = flatten(spec->opts, 0, f, 0);
    for (int i = 0; i < n; i++) {
        if (!is_option(f[i].o))
            continue;
        if (f[i].o->short_name)
            fprintf(out, "-%c\n", f[i].o->short_name);
        if (f[i].o->long_name)
            fprintf(out, "--%s\n", f[i].o->long_name);
    }
    fputs("-h\n--help\n", out);
}

/* ------------------------------------------------------------------ */
/* Callbacks                                                            */
/* ------------------------------------------------------------------ */

int tool_opt_define(const tool_parser *p, const tool_option *o, const char *arg, void *dest)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg)
        return tool_usage_error(p->cmd, "-D: expected NAME=NUMBER, not '%s'", arg);
    /* Any finite double, subnormals included; the reason when not (a
     * value that rounds to 0 is not "malformed"). */
    double v;
    if (san_parse_double(eq + 1, -DBL_MAX, DBL_MAX, &v) < 0)
        return tool_usage_error(p->cmd, "-D %.*s: '%s' is %s", (int)(eq - arg), arg, eq + 1,
                               san_parse_why(eq + 1, -DBL_MAX, DBL_MAX, 0));
    tool_meta_define(arg, (size_t)(eq - arg), eq + 1);
    if (tool_define_add(dest, arg, (size_t)(eq - arg), v) < 0) {
        fprintf(stderr, "san %s: out of memory\n", p->cmd);
        return EXIT_FAIL;
    }
    return 0;
}

int tool_opt_string(const tool_parser *p, const tool_option *o, const char *arg, void *dest)
{
    (void)o;
    tool_strings *s = dest;
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 8;
        const char **v = realloc(s->v, cap * sizeof *v);
        if (!v) {
            fprintf(stderr, "san %s: out of memory\n", p->cmd);
            return EXIT_FAIL;
        }
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = arg;
    return 0;
}

int tool_opt_define_text(const tool_parser *p, const tool_option *o, const char *arg, void *dest)
{
    if (!strchr(arg, '='))
        return tool_usage_error(p->cmd, "-D: expected NAME=VALUE");
    int rc = tool_opt_string(p, o, arg, dest);
    const char *eq = strchr(arg, '=');
    if (rc == 0)
        tool_meta_define(arg, (size_t)(eq - arg), eq + 1);
    return rc;
}

void tool_strings_free(tool_strings *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}
