/*
 * signals.c - the one SIGINT handler of the command.
 *
 * A subcommand whose work can stop cleanly asks for the interrupt flag
 * (cli_interrupt) and hands it to the library, which looks at it every
 * few iterations or between variants; the other subcommands keep the
 * default action of SIGINT and end at once.  The first Ctrl-C sets the
 * flag; work that cannot look at it (a sparse LU) gets the grace the
 * subcommand asked for, then the process ends; a second Ctrl-C ends it
 * at once.  Outputs are written through temporary files, so that
 * nothing partial is left behind either way.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

static volatile int interrupted;
static volatile int grace;              /* seconds after the first Ctrl-C */
static char message[96];                /* "san solve: interrupted\n" */
static size_t message_len;

static void stop_now(void)
{
    ssize_t w = write(2, message, message_len);
    (void)w;
    _exit(130);
}

static void on_alarm(int sig)
{
    (void)sig;
    stop_now();
}

static void on_sigint(int sig)
{
    (void)sig;
    if (interrupted)
        stop_now();
    interrupted = 1;
    if (grace > 0) {
        signal(SIGALRM, on_alarm);
        alarm(grace);
    }
}

volatile int *cli_interrupt(const char *cmd, int grace_s)
{
    static int installed;
    grace = grace_s;
    if (!installed) {
        snprintf(message, sizeof message, "san %s: interrupted\n", cmd);
        message_len = strlen(message);
        signal(SIGINT, on_sigint);
        installed = 1;
    }
    return &interrupted;
}
