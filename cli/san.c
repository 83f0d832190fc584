/*
 * san.c - entry point: `san SUBCOMMAND [options]`, in the manner of git.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"

static const cli_command commands[] = {
    { "check", cmd_check, help_check, "validate a model and summarize it" },
    { "print", cmd_print, help_print, "print a model back as normalized .san text" },
    { "solve", cmd_solve, help_solve, "solve a model for its steady state and report" },
    { "transient", cmd_transient, help_transient, "the distribution and indices at given times" },
    { "passage", cmd_passage, help_passage, "first-passage time into a set of states" },
    { "props", cmd_props, help_props, "CSL properties (PRISM's language): S, P, R queries" },
    { "gen",   cmd_gen,   help_gen,   "generate a master/slave or pipeline model" },
    { "import", cmd_import, help_import, "a PRISM CTMC model as .san text" },
    { "sweep", cmd_sweep, help_sweep, "solve every combination of flag values: table, plot" },
    { "size-buffer", cmd_size_buffer, help_size_buffer, "smallest buffer within a tolerance of its limit" },
    { "grain", cmd_grain, help_grain, "granularity indices and the recommended grain" },
    { "report", cmd_report, help_report, "a study's analyses as one self-contained HTML page" },
    { "compare", cmd_compare, help_compare, "models or generator lines side by side" },
    { "mw", cmd_mw, help_mw, "master/worker closed form: time, efficiency, optimum" },
    { "cluster", cmd_cluster, help_cluster, "steady bound of a master/worker run on clusters" },
    { "export", cmd_export, help_export, "the chain or the automata for other tools: mtx, prism, states, dot" },
    { "map",   cmd_map,   help_map,   "map a pipeline onto processors (seed 002), its gen line" },
    { "workrate", cmd_workrate, help_workrate, "master/slave work rate on a grid, best master (seed 003)" },
};
enum { NCOMMANDS = sizeof commands / sizeof commands[0] };

static void usage(FILE *out)
{
    fprintf(out,
        "usage: san [--version] [--help] SUBCOMMAND [options] [MODEL]\n"
        "\n"
        "Stochastic Automata Networks: read .san models (PEPS format), check\n"
        "them, solve them for the steady state, generate design variants.\n"
        "\n"
        "subcommands:\n");
    for (int i = 0; i < NCOMMANDS; i++)
        fprintf(out, "   %-12s %s\n", commands[i].name, commands[i].summary);
    fprintf(out,
        "\n"
        "MODEL is a .san file, or - for standard input.\n"
        "'san help SUBCOMMAND' or 'san SUBCOMMAND --help' describes its options.\n"
        "exit status: 0 success, 2 bad input or usage, 1 other failures.\n");
}

/* "san: 'slove' is not a subcommand; did you mean 'solve'?" */
static int not_a_subcommand(const char *name)
{
    san_suggest s;
    san_suggest_init(&s, name);
    for (int i = 0; i < NCOMMANDS; i++)
        san_suggest_add(&s, commands[i].name);
    san_suggest_add(&s, "help");
    san_suggest_add(&s, "version");
    const char *near = san_suggest_best(&s);
    if (near)
        fprintf(stderr, "san: '%s' is not a subcommand; did you mean '%s'?\n", name, near);
    else
        fprintf(stderr, "san: '%s' is not a subcommand; see 'san --help'\n", name);
    return EXIT_USAGE;
}

static const cli_command *find(const char *name)
{
    for (int i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

/* A standard descriptor the parent closed (`san ... >&-`) is taken by
 * /dev/null opened in the other direction: the first file san opens must
 * not become its standard output, and writes to a closed stdout must
 * still fail (EBADF), so that close_stdout() reports them. */
static void reserve_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++)
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
            int got = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
            if (got >= 0 && got != fd) {    /* a lower one was free: impossible */
                close(got);
                break;
            }
        }
}

/* Every subcommand's report ends here: what is still buffered is written
 * and the first failure of the stream (a full disk, a closed descriptor)
 * is reported once, whoever wrote. */
static int close_stdout(void)
{
    int bad = ferror(stdout);
    errno = 0;
    int rc = fclose(stdout);
    int e = errno ? errno : tool_stdout_errno;
    if (rc == 0 && !bad)
        return 0;
    fprintf(stderr, "san: cannot write standard output: %s\n", e ? strerror(e) : "write error");
    return -1;
}

/* OpenMP threads that sleep between parallel regions instead of spinning,
 * unless the user chose (OMP_WAIT_POLICY or GOMP_SPINCOUNT set).  libgomp
 * reads its environment once, before main, so the process starts itself
 * again with the variable set.  Measured on 2 cores with other work
 * running (load 12, as CI's make check -j2): a transient of an 89,667-state
 * master/slave model took 15.3 s of CPU and 47 s spinning, 1.0 s and 3.9 s
 * sleeping; its steady-state solve 1.5 -> 0.24 s of CPU. */
static void omp_sleep_between_regions(char **argv)
{
#ifdef _OPENMP
    if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT"))
        return;
    if (setenv("OMP_WAIT_POLICY", "passive", 0) != 0)
        return;
    execv("/proc/self/exe", argv);      /* on failure: go on spinning */
#else
    (void)argv;
#endif
}

static int run(int argc, char **argv);

int main(int argc, char **argv)
{
    omp_sleep_between_regions(argv);
    reserve_std_fds();
    tool_signals_init();
    tool_meta_argv(argc, argv);
    int status = run(argc, argv);
    tool_meta_free();
    if (close_stdout() != 0 && status == EXIT_OK)
        status = EXIT_FAIL;
    return status;
}

static int run(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *a = argv[1];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
        usage(stdout);
        return EXIT_OK;
    }
    if (!strcmp(a, "--version") || !strcmp(a, "version")) {
        printf("san %s\n", san_version());
        return EXIT_OK;
    }
    if (!strcmp(a, "help")) {
        if (argc < 3) {
            usage(stdout);
            return EXIT_OK;
        }
        const cli_command *c = find(argv[2]);
        if (!c)
            return not_a_subcommand(argv[2]);
        c->help(stdout);
        return EXIT_OK;
    }
    const cli_command *c = find(a);
    if (!c)
        return not_a_subcommand(a);
    return cli_command_run(c, argc - 1, argv + 1);
}
