/*
 * signals.c - the signal handlers of the command.
 *
 * Every subcommand: SIGTERM, SIGHUP, SIGPIPE and SIGINT remove the
 * temporary files of the outputs being written (san_out_cleanup), then
 * end the process with the signal's own default action, so that the
 * parent sees "killed by SIGTERM" as before.  SIGXFSZ is ignored: past
 * `ulimit -f` a write then fails with EFBIG and is handled like a full
 * disk, instead of killing the process with its temporary file left.
 *
 * A subcommand whose work can stop cleanly asks for the interrupt flag
 * (tool_interrupt) and hands it to the library, which looks at it every
 * few iterations or between variants.  SIGINT then sets the flag; work
 * that cannot look at it (a sparse LU) gets the grace the subcommand
 * asked for, then the process ends; a second Ctrl-C ends it at once.
 * Both ends remove the temporary files first.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "tool/tool.h"

static volatile int interrupted;
static volatile int grace;              /* seconds after the first Ctrl-C */
static char message[96];                /* "san solve: interrupted\n" */
static size_t message_len;

/* The handlers' own installer: sigaction, restarting interrupted system
 * calls (the writes of an output in progress go on after a Ctrl-C that
 * only sets the flag). */
static void set_handler(int sig, void (*fn)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fn;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

/* Was sig ignored when the process started (nohup, a background job of
 * a script)?  Then it stays ignored. */
static int inherited_ignore(int sig)
{
    struct sigaction old;
    return sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN;
}

/* Clean up, then die of sig as if no handler had been there. */
static void on_fatal(int sig)
{
    san_out_cleanup();
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    _exit(128 + sig);                   /* not reached */
}

void tool_signals_init(void)
{
    static const int fatal[] = { SIGTERM, SIGHUP, SIGPIPE, SIGINT };
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
        if (!inherited_ignore(fatal[i]))
            set_handler(fatal[i], on_fatal);
    signal(SIGXFSZ, SIG_IGN);
}

static void stop_now(void)
{
    san_out_cleanup();
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
        /* said at once: the answer so far comes at the next look at
         * the flag, which may take seconds */
        static const char say[] = "san: stopping with the best answer so far "
                                  "(Ctrl-C again to quit now)\n";
        ssize_t w = write(2, say, sizeof say - 1);
        (void)w;
        set_handler(SIGALRM, on_alarm);
        alarm(grace);
    }
}

volatile int *tool_interrupt(const char *cmd, int grace_s)
{
    static int installed;
    grace = grace_s;
    if (!installed) {
        snprintf(message, sizeof message, "san %s: interrupted\n", cmd);
        message_len = strlen(message);
        if (!inherited_ignore(SIGINT))
            set_handler(SIGINT, on_sigint);
        installed = 1;
    }
    return &interrupted;
}

int tool_interrupted(void)
{
    return interrupted;
}
