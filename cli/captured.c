/*
 * captured.c - the analyses of a study (san report: sweep, size-buffer,
 * grain, compare) run inside this process as if each ran in a child of
 * it: its standard output and error collected, its exit status
 * returned.
 *
 * Why not a child: no fork of a process that may hold gigabytes, no exec
 * of /proc/self/exe.  The descriptors, not the streams, are redirected,
 * so that every writer (the library's too) lands where a child's would
 * and the bytes are the ones the command prints when typed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "cli/cli.h"

/* The whole of an open file, from its start, as a string. */
static char *slurp_fd(int fd)
{
    if (lseek(fd, 0, SEEK_SET) < 0)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (len + 1 >= cap) {
            char *g = realloc(buf, cap *= 2);
            if (!g) {
                free(buf);
                return NULL;
            }
            buf = g;
        }
        ssize_t k = read(fd, buf + len, cap - len - 1);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        len += k;
    }
    if (buf)
        buf[len] = '\0';
    return buf;
}

/* The subcommands a study runs (report/study.c checks the kind). */
static const cli_command kinds[] = {
    { "sweep", cmd_sweep, help_sweep, NULL },
    { "size-buffer", cmd_size_buffer, help_size_buffer, NULL },
    { "grain", cmd_grain, help_grain, NULL },
    { "compare", cmd_compare, help_compare, NULL },
};

int cli_run_captured(int argc, char **argv, char **out, char **err)
{
    const cli_command *c = NULL;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0] && argc > 1; k++)
        c = !strcmp(kinds[k].name, argv[1]) ? &kinds[k] : c;
    *out = *err = NULL;
    if (!c)
        return -1;
    int fd[3] = { open("/dev/null", O_RDONLY), memfd_create("san-out", MFD_CLOEXEC),
                    memfd_create("san-err", MFD_CLOEXEC) };
    int saved[3] = { -1, -1, -1 }, status = -1, ok = fd[0] >= 0 && fd[1] >= 0 && fd[2] >= 0;
    fflush(NULL);
    for (int i = 0; i < 3 && ok; i++)
        ok = (saved[i] = fcntl(i, F_DUPFD_CLOEXEC, 3)) >= 0 && dup2(fd[i], i) == i;
    if (ok) {
        tool_meta_free();
        tool_meta_argv(argc, argv);
        status = cli_command_run(c, argc - 1, argv + 1);
        if (fflush(stdout) != 0 || ferror(stdout)) {    /* as main()'s close_stdout */
            fprintf(stderr, "san: cannot write standard output: %s\n", strerror(errno));
            status = status ? status : EXIT_FAIL;
        }
        clearerr(stdout);
        clearerr(stdin);
        fflush(stderr);
        tool_meta_free();
    }
    for (int i = 0; i < 3; i++)
        if (saved[i] >= 0) {
            dup2(saved[i], i);
            close(saved[i]);
        }
    if (status >= 0) {
        *out = slurp_fd(fd[1]);
        *err = slurp_fd(fd[2]);
    }
    for (int i = 0; i < 3; i++)
        if (fd[i] >= 0)
            close(fd[i]);
    return status;
}
