/*
 * output.c - output files: written atomically through the library's
 * output module, never over an input.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tool/tool.h"

int tool_refuse_overwrite(const char *cmd, const char *option, const char *out, const char *in)
{
    if (!san_out_overwrites(out, in))
        return 0;
    return tool_usage_error(cmd, "%s '%s' is the input '%s' (the same file): writing it would "
                           "destroy the input; give another file", option, out ? out : "-",
                           !strcmp(in, "-") ? "standard input" : in);
}

int tool_stdout_errno;

int tool_names_stdout(const char *path)
{
    return !strcmp(path, "-") || !strcmp(path, "/dev/stdout") || !strcmp(path, "/dev/fd/1")
        || !strcmp(path, "/proc/self/fd/1");
}

int tool_write_output(const char *path, int (*writer)(const void *ctx, FILE *out),
                     const void *ctx)
{
    int to_stdout = !path || !strcmp(path, "-");
    san_out *o = san_out_open(path);
    if (!o) {
        fprintf(stderr, "san: cannot write '%s': %s\n", to_stdout ? "-" : path, strerror(errno));
        return EXIT_FAIL;
    }
    /* a Ctrl-C during the write: the file is not wanted any more (one
     * before it, as in sweep, asked for what was done so far) */
    int was_interrupted = tool_interrupted();
    if (writer(ctx, san_out_file(o)) != 0) {
        san_out_discard(o);
        return EXIT_FAIL;
    }
    if (!was_interrupted && tool_interrupted()) {
        san_out_discard(o);
        fprintf(stderr, "san: interrupted; '%s' not written\n", to_stdout ? "-" : path);
        return EXIT_FAIL;
    }
    if (san_out_commit(o) != 0) {
        /* standard output: main() says it, once, when it closes it */
        if (to_stdout)
            tool_stdout_errno = errno;
        else
            fprintf(stderr, "san: cannot write '%s': %s\n", path, strerror(errno));
        return EXIT_FAIL;
    }
    return EXIT_OK;
}
