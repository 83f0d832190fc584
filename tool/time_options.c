/*
 * time_options.c - the option tables of san transient and san passage:
 * one set shared (the initial distribution, the numerics, the limits, the
 * output), each command's own around it.
 */
#include <string.h>
#include "tool/time_options.h"

#define TR_COMMON_OPTIONS                                                                    \
    TOOL_GROUP("initial distribution (default: uniform over the states the\n"                  \
              "reachability function accepts):"),                                           \
    TOOL_STRING(0, "initial", "'EXPR'", tr_args, initial,                                     \
               "uniform over the reachable states where EXPR is\n"                            \
               "non-zero (the syntax of the model's results)"),                               \
    TOOL_INPUT(0, "from", "FILE", tr_args, from,                                             \
               "a distribution as `san solve --vector` writes it\n"                           \
               "(index first, probability last)"),                                            \
    TOOL_GROUP("numerics:"),                                                                  \
    TOOL_DOUBLE(0, "eps", "X", tr_args, eps, 1e-300, 1e-3, 0, "a number in (0, 1e-3]",          \
               "Poisson mass cut per interval (Fox-Glynn); every\n"                            \
               "probability is within the sum of the cuts, reported", "1e-13"),                \
    TOOL_DOUBLE(0, "max-steps", "N", tr_args, max_steps, 1, 1e15, 0, "a number >= 1",          \
               "refuse when uniformization needs more products\n"                             \
               "(stiff: a large rate times a long time)", "1e8"),                             \
    TOOL_CHOICE(TOOL_OPT_STORAGE, 0, "storage", "S", tr_args, storage,                          \
               "auto, sparse or kron (the tensor descriptor)", "auto"),                       \
    TOOL_CHOICE(TOOL_OPT_LUMP, 0, "lump", "L", tr_args, lump,                                   \
               "auto: interchangeable replicas as counts, exact\n"                            \
               "(transient from a --from vector unequal across\n"                             \
               "replicas: as written, a note says so; the report\n"                           \
               "says what was lumped); off: the model as written", "auto"),                    \
    TOOL_STRING(0, "engine", "E", tr_args, engine,                                             \
               "serial (default), or petsc: each rank of\n"                                   \
               "mpirun -n P explores and stores its part of the\n"                            \
               "chain and of every vector (./configure --with-petsc)"),                       \
    TOOL_STRING(0, "petsc-matrix", "M", tr_args, petsc_matrix,                                 \
               "--engine petsc: aij, shell or auto, as for solve"),                          \
    TOOL_GROUP("limits:"),                                                                    \
    TOOL_DOUBLE(0, "time-limit", "S", tr_args, time_limit, 1e-6, 1e9, 0, "seconds > 0",          \
               "stop after S seconds", NULL),                                                 \
    TOOL_BYTES(0, "max-memory", "M", tr_args, max_memory,                                     \
              "refuse models needing more (e.g. 4G, 512M)", NULL),                             \
    TOOL_INT(0, "max-states", "N", tr_args, max_states, 1, 9e18, "a positive integer",           \
            "refuse more reachable states than N", NULL),                                     \
    TOOL_MAX_INPUT(tr_args, max_input),                                                       \
    TOOL_GROUP("model:"),                                                                     \
    TOOL_CALLBACK('D', NULL, "NAME=VALUE", tr_args, defs, tool_opt_define,                      \
                 "override a constant identifier"),                                           \
    TOOL_INCLUDE(tool_diag_options, tr_args, diag),                                            \
    TOOL_GROUP("output:"),                                                                    \
    TOOL_FORMAT(tr_args, fmt, TOOL_FMT_TEXT | TOOL_FMT_JSON | TOOL_FMT_CSV, NULL),                 \
    TOOL_FLAG('q', "quiet", tr_args, quiet, 1,                                                 \
             "no progress on stderr, no provenance header (text)"),                              \
    TOOL_FLAG(0, "all-replicas", tr_args, all_replicas, 1,                                      \
             "text: a marginals line for each replica that differs\n"                           \
             "from the others (default: their minimum, mean and\n"                             \
             "maximum; JSON and CSV list each)"),                                              \
    TOOL_OUTPUT(0, "plot", "FILE", tr_args, plot,                                              \
               "plot over t into FILE (.svg, .png, .pdf): results\n"                          \
               "(transient; --y picks them) or P(T <= t) (passage)")

static const tool_option transient_options[] = {
    TOOL_GROUP("times:"),
    TOOL_STRING('t', "time", "LIST", tr_args, times,
               "times, e.g. 0.5,1,2 or 0..10:0.5 (a..b:step), or both\n"
               "separated by commas"),
    TOOL_FLAG(0, "rewards", tr_args, rewards, 1,
             "also the integrals over [0, t]: accumulated results,\n"
             "expected time in each local state, expected firings"),
    TR_COMMON_OPTIONS,
    TOOL_OUTPUT(0, "vector", "FILE", tr_args, vector,
               "write pi at the last time (CSV, as solve --vector;\n"
               "not - with --format json or csv)"),
    TOOL_STRING(0, "y", "NAMES", tr_args, ynames,
               "--plot: the results to draw, comma separated\n"
               "(default: every result)"),
    TOOL_INCLUDE(tool_plot_options, tr_args, look),
    TOOL_END
};

static const tool_option passage_options[] = {
    TOOL_GROUP("target:"),
    TOOL_STRING('u', "until", "'EXPR'", tr_args, until,
               "the target: the reachable states where EXPR is non-zero"),
    TOOL_STRING('t', "time", "LIST", tr_args, times,
               "the distribution P(T <= t) at these times (as transient)"),
    TOOL_DOUBLE(0, "within", "T", tr_args, within, 0, 1e300, 0, "a number >= 0",
               "the probability of reaching the target by time T", NULL),
    TOOL_STRING('p', "percentiles", "LIST", tr_args, percentiles,
               "percentiles of T, e.g. 50,90,99 (percent)"),
    TOOL_DOUBLE(0, "tol", "X", tr_args, tol, 1e-300, 1, 0, "a number in (0, 1]",
               "accuracy of the mean's solve (the regenerative chain\n"
               "solved as `solve` does, under its contract, on the\n"
               "generator's rows: kron builds them when they fit;\n"
               "without: the uniformization series to X)", "1e-12"),
    TR_COMMON_OPTIONS,
    TOOL_INCLUDE(tool_plot_options, tr_args, look),
    TOOL_END
};

const tool_spec transient_spec = {
    .name = "transient",
    .usage = "usage: san transient [options] --time LIST MODEL\n",
    .intro =
        "The distribution of the chain at the given times from an initial\n"
        "distribution, by uniformization with Fox-Glynn truncation (steady state\n"
        "detected), over the sparse generator or the tensor descriptor; the\n"
        "results, marginals and throughputs at each time.\n",
    .opts = transient_options,
    .outro = "Exit status: 0 done, 2 bad model, usage or a limit, 1 failed or interrupted.\n",
    .flags = TOOL_ABBREV | TOOL_OPERAND_FILES,
};

const tool_spec passage_spec = {
    .name = "passage",
    .usage = "usage: san passage [options] --until 'EXPR' MODEL\n",
    .intro =
        "The first-passage time T from the initial distribution into the states\n"
        "where EXPR holds: the probability of reaching them at all, the mean of\n"
        "T, and P(T <= t) at given times (the target made absorbing).\n",
    .opts = passage_options,
    .outro = "Exit status: 0 done, 2 bad model, usage or a limit, 1 failed or interrupted.\n",
    .flags = TOOL_ABBREV | TOOL_OPERAND_FILES,
};

void help_transient(FILE *out)
{
    tool_help(out, &transient_spec);
}

void help_passage(FILE *out)
{
    tool_help(out, &passage_spec);
}

void tr_args_init(tr_args *A)
{
    memset(A, 0, sizeof *A);
    A->fmt = FMT_UNSET;
    tool_plot_init(&A->look);
    A->eps = 1e-13;
    A->max_steps = 1e8;
    A->within = -1;
    A->tol = 1e-12;
}
