/*
 * command.c - a subcommand run as main() runs it, or its help.
 */
#include <string.h>
#include "cli/cli.h"

int cli_command_run(const cli_command *c, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            c->help(stdout);
            return EXIT_OK;
        }
    }
    return c->run(argc, argv);
}
