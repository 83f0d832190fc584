/*
 * eval.c - the analytic models as templates of san sweep and san
 * compare: a line names a model and its flags; its evaluation gives
 * named results, as a solved SAN does.  The dispatcher, on top of the
 * models and of their results (results.c).
 */
#include <string.h>
#include "analytic/analytic_int.h"

static const struct {
    const char *name;
    san_status (*line)(int, char **, san_analytic_results *, char *, size_t);
} models[] = {
    { "mw", analytic_mw_line },
    { "cluster", analytic_cluster_line },
};
enum { NMODELS = sizeof models / sizeof models[0] };

int san_analytic_is_model(const char *name)
{
    for (int i = 0; name && i < NMODELS; i++)
        if (!strcmp(name, models[i].name))
            return 1;
    return 0;
}

san_status san_analytic_eval(int argc, char **argv, san_analytic_results *out, char *err,
                             size_t n)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; argc > 0 && i < NMODELS; i++)
        if (!strcmp(argv[0], models[i].name)) {
            san_status st = models[i].line(argc, argv, out, err, n);
            if (st != SAN_OK)
                san_analytic_results_free(out);
            return st;
        }
    analytic_err(err, n, "'%s' is not an analytic model (mw, cluster)", argc > 0 ? argv[0] : "");
    return SAN_E_USAGE;
}
