/*
 * util.c - small services every phase needs: reading a model's input,
 * the version.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "config.h"
#include "san.h"

const char *san_version(void)
{
    return PACKAGE_VERSION;
}

/* "256 MiB", "1.5 GiB", "100 B": the limit as a user would write it. */
static void size_text(double b, char *buf, size_t n)
{
    static const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
    int u = 0;
    while (b >= 1024 && u < 5) {
        b /= 1024;
        u++;
    }
    snprintf(buf, n, b == (double)(long long)b ? "%.0f %s" : "%.1f %s", b, unit[u]);
}

/* Why a path cannot be opened or read, in the user's words: the user's
 * own mistakes are SAN_E_INPUT, the system's failures SAN_E_IO (errno
 * is left at err, for san_read_file). */
static san_status refuse(const char *name, int err, char *msg, size_t n)
{
    san_status st = SAN_E_INPUT;
    const char *why = NULL;
    switch (err) {
    case ENOENT: case ENOTDIR: why = "no such file"; break;
    case EISDIR:               why = "is a directory"; break;
    case EACCES: case EPERM:   why = "permission denied"; break;
    case ELOOP:                why = "too many levels of symbolic links"; break;
    case ENAMETOOLONG:         why = "file name too long"; break;
    case ENOMEM:               why = "out of memory"; st = SAN_E_NOMEM; break;
    default:                   why = strerror(err); st = SAN_E_IO; break;
    }
    snprintf(msg, n, "%s: %s", name, why);
    errno = err;
    return st;
}

static san_status over_limit(const char *name, double limit, char *msg, size_t n)
{
    char s[32];
    size_text(limit, s, sizeof s);
    snprintf(msg, n, "%s: larger than the input limit of %s", name, s);
    errno = EFBIG;
    return SAN_E_INPUT;
}

/* All of fd, at most limit bytes: a regular file is sized first (and
 * refused unread when too large); anything else is read in doubling
 * chunks, never past one byte beyond the limit. */
static san_status read_fd(int fd, const char *name, size_t limit, char **text, size_t *len,
                          char *msg, size_t n)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return refuse(name, errno, msg, n);
    if (S_ISDIR(st.st_mode))
        return refuse(name, EISDIR, msg, n);
    size_t cap = 1 << 16;
    if (S_ISREG(st.st_mode)) {
        if ((uint64_t)st.st_size > limit)
            return over_limit(name, (double)limit, msg, n);
        cap = (size_t)st.st_size + 1;       /* + 1: the end is seen unmoved */
    }
    if (cap > limit + 1)
        cap = limit + 1;
    char *buf = malloc(cap + 1);
    if (!buf)
        return refuse(name, ENOMEM, msg, n);
    size_t got = 0;
    for (;;) {
        if (got == cap) {
            size_t want = cap <= limit / 2 ? 2 * cap : limit + 1;
            char *p = want > cap ? realloc(buf, want + 1) : NULL;
            if (!p) {
                free(buf);
                return want > cap ? refuse(name, ENOMEM, msg, n)
                                  : over_limit(name, (double)limit, msg, n);
            }
            buf = p;
            cap = want;
        }
        ssize_t r = read(fd, buf + got, cap - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int err = errno;
            free(buf);
            return refuse(name, err, msg, n);
        }
        if (r == 0)
            break;
        got += (size_t)r;
        if (got > limit) {
            free(buf);
            return over_limit(name, (double)limit, msg, n);
        }
    }
    buf[got] = '\0';
    *text = buf;
    *len = got;
    return SAN_OK;
}

san_status san_read_input(const char *path, double max_bytes, char **text, size_t *len,
                          char *msg, size_t n)
{
    *text = NULL;
    *len = 0;
    if (!(max_bytes > 0))
        max_bytes = SAN_MAX_INPUT_DEFAULT;
    /* beyond what a size_t can count, the memory runs out first */
    size_t limit = max_bytes < (double)(SIZE_MAX / 4) ? (size_t)max_bytes : SIZE_MAX / 4;
    if (!strcmp(path, "-"))
        return read_fd(0, "standard input", limit, text, len, msg, n);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return refuse(path, errno, msg, n);
    san_status st = read_fd(fd, path, limit, text, len, msg, n);
    int err = errno;
    close(fd);
    errno = err;
    return st;
}

char *san_read_file(const char *path, size_t *len)
{
    char *text, msg[1];
    return san_read_input(path, 0, &text, len, msg, sizeof msg) == SAN_OK ? text : NULL;
}
