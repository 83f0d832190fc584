/*
 * outfile.c - the one way libsan and the command write a file: tables,
 * vectors, models, plots.
 *
 * What a path names decides how it is written (san(1), OUTPUT FILES):
 *   - "-" and /dev/stdout: the process's standard output;
 *   - /dev/stderr, /dev/fd/N, /proc/self/fd/N: a duplicate of that
 *     descriptor (reopening it would start at offset 0 over what the
 *     descriptor already wrote);
 *   - a symbolic link is followed to its final target, which is written
 *     as below; the link itself stays;
 *   - anything that is not a regular file (a device such as /dev/null,
 *     a FIFO, a terminal) is opened and written directly: renaming a
 *     file over it would replace the device;
 *   - a regular file, or a path where nothing exists yet, is written into
 *     a new temporary file of the same directory, created with O_EXCL
 *     under an unpredictable name, given the target's mode (and owner when
 *     permitted), flushed, fsync'ed and renamed over the target: readers
 *     see the old file or the new one, never a part; a failure leaves the
 *     old file as it was; concurrent writers each have their own temporary
 *     file and the last rename wins;
 *   - a regular file with more than one hard link is staged the same way,
 *     then copied into the target at the end, under flock(): a rename
 *     would cut the link.  Only that last copy is not atomic.
 *
 * What is written must not be what was read: san_out_overwrites tells a
 * command, before it writes anything, that an output is one of its
 * inputs (the same file, whatever the links).
 *
 * Every temporary file is recorded in a fixed table while it exists, so
 * that a signal handler can remove them all (san_out_cleanup), which is
 * async-signal-safe.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "base/services.h"

/* ---- the table of temporary files, for the signal handlers ---- */

enum { SLOT_FREE, SLOT_FILLING, SLOT_ARMED };
#define OUT_SLOTS 16

/* A fixed table, not a list: the handler may run at any instruction of
 * the writer and must neither allocate nor follow pointers that are being
 * changed.  pid: a child forked by the solver (direct.c) inherits the
 * table and must not remove its parent's files. */
static struct {
    _Atomic int state;
    pid_t pid;
    char path[PATH_MAX];
} slots[OUT_SLOTS];

void san_out_cleanup(void)
{
    pid_t me = getpid();
    for (int i = 0; i < OUT_SLOTS; i++)
        if (atomic_load(&slots[i].state) == SLOT_ARMED && slots[i].pid == me)
            unlink(slots[i].path);
}

/* A free slot, reserved; -1 with errno when the table is full. */
static int slot_claim(void)
{
    for (int i = 0; i < OUT_SLOTS; i++) {
        int expect = SLOT_FREE;
        if (atomic_compare_exchange_strong(&slots[i].state, &expect, SLOT_FILLING))
            return i;
    }
    errno = EMFILE;
    return -1;
}

/* The path is complete before the handler may read it. */
static void slot_arm(int i)
{
    slots[i].pid = getpid();
    atomic_store(&slots[i].state, SLOT_ARMED);
}

static void slot_release(int i)
{
    atomic_store(&slots[i].state, SLOT_FREE);
}

/* ---- names ---- */

/* Characters a temporary name is made of: letters and digits. */
static const char name_chars[] =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/* n unpredictable characters; the kernel's generator, or (when it
 * cannot answer) the clock, the pid and a counter: O_EXCL keeps even a
 * predictable name safe, unpredictability only avoids the retries. */
static void random_chars(char *out, int n)
{
    unsigned char r[32];
    if (n > (int)sizeof r)
        n = sizeof r;
    if (getrandom(r, n, GRND_NONBLOCK) != n) {
        static atomic_uint counter;     /* threads may name files at once */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        unsigned long x = (unsigned long)ts.tv_nsec ^ ((unsigned long)getpid() << 16) ^ (atomic_fetch_add(&counter, 1) + 1);
        for (int i = 0; i < n; i++) {
            x = x * 6364136223846793005UL + 1442695040888963407UL;
            r[i] = (unsigned char)(x >> 33);
        }
    }
    for (int i = 0; i < n; i++)
        out[i] = name_chars[r[i] % (sizeof name_chars - 1)];
}

/* The directory part of path ("." when none), malloc'd. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, slash - path);
}

/* "DIR/.BASE.XXXXXXXXXX.tmp" into the slot: hidden, named after its
 * target so that a file left by SIGKILL says where it came from; the
 * base is cut so that the name stays within NAME_MAX. */
static int temp_name(char *buf, size_t n, const char *target)
{
    char *dir = dir_of(target);
    if (!dir)
        return -1;
    const char *slash = strrchr(target, '/');
    const char *base = slash ? slash + 1 : target;
    char rnd[11];
    random_chars(rnd, 10);
    rnd[10] = '\0';
    int len = snprintf(buf, n, "%s/.%.200s.%s.tmp", dir, base, rnd);
    free(dir);
    if (len < 0 || (size_t)len >= n) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

/* Follow the symbolic links of the last component of path to the file
 * they finally name (which may not exist yet); malloc'd, NULL with errno.
 * Relative link contents are relative to the link's directory. */
static char *follow_links(const char *path)
{
    char *cur = strdup(path);
    for (int hops = 0; cur; hops++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
            return cur;             /* absent or not a link: the target */
        if (hops == 40) {
            errno = ELOOP;
            break;
        }
        char link[PATH_MAX];
        ssize_t k = readlink(cur, link, sizeof link - 1);
        if (k < 0)
            break;
        link[k] = '\0';
        char *next = NULL;
        if (link[0] == '/') {
            next = strdup(link);
        } else {
            char *dir = dir_of(cur);
            if (dir && asprintf(&next, "%s/%s", dir, link) < 0)
                next = NULL;
            free(dir);
        }
        free(cur);
        cur = next;
    }
    free(cur);
    return NULL;
}

/* ---- the handle ---- */

typedef enum {
    OUT_STDOUT,     /* the process's stdout stream */
    OUT_DIRECT,     /* a descriptor written as it is (device, FIFO, dup) */
    OUT_REPLACE,    /* a temporary file renamed over the target */
    OUT_COPY        /* a temporary file copied into a hard-linked target */
} out_how;

struct san_out {
    FILE *f;
    out_how how;
    int fd;                 /* the descriptor under f (not OUT_STDOUT) */
    int err;                /* errno of the first failed write, else 0 */
    int slot;               /* the temporary file's (REPLACE, COPY), else -1 */
    char *target;           /* the file the temporary file becomes */
};

/* Write all of buf to fd. */
static int write_all(int fd, const char *buf, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, buf, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        buf += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The stream's writes go through here, so that the reason of the first
 * failure (ENOSPC, EFBIG, EIO) is kept: the errno of a failed fputc deep
 * in a writer is long gone when the file is committed. */
static ssize_t cookie_write(void *cookie, const char *buf, size_t n)
{
    san_out *o = cookie;
    if (write_all(o->fd, buf, n) == 0)
        return (ssize_t)n;
    if (!o->err)
        o->err = errno ? errno : EIO;
    return -1;
}

static san_out *out_new(out_how how)
{
    san_out *o = calloc(1, sizeof *o);
    if (o) {
        o->how = how;
        o->fd = -1;
        o->slot = -1;
    }
    return o;
}

static void out_free(san_out *o)
{
    free(o->target);
    free(o);
}

/* The stream of o over its descriptor; 0, or -1 with errno. */
static int out_stream(san_out *o)
{
    cookie_io_functions_t io = { .write = cookie_write };
    o->f = fopencookie(o, "w", io);
    if (!o->f)
        return -1;
    setvbuf(o->f, NULL, _IOFBF, 1 << 16);   /* vectors of millions of rows */
    return 0;
}

/* A handle writing to descriptor fd (closed on failure). */
static san_out *out_on_fd(out_how how, int fd)
{
    san_out *o = fd >= 0 ? out_new(how) : NULL;
    if (o) {
        o->fd = fd;
        if (out_stream(o) == 0)
            return o;
    }
    int e = errno;
    if (fd >= 0)
        close(fd);
    free(o);
    errno = e;
    return NULL;
}

/* The descriptor a path such as /dev/fd/3 names, or -1 when it names
 * none: those paths mean "the descriptor I already have". */
static int named_fd(const char *path)
{
    if (!strcmp(path, "/dev/stdin"))
        return 0;
    if (!strcmp(path, "/dev/stdout"))
        return 1;
    if (!strcmp(path, "/dev/stderr"))
        return 2;
    const char *num = !strncmp(path, "/dev/fd/", 8) ? path + 8
                    : !strncmp(path, "/proc/self/fd/", 14) ? path + 14 : NULL;
    if (!num || *num < '0' || *num > '9')
        return -1;
    char *end;
    long fd = strtol(num, &end, 10);
    return *end || fd > INT_MAX ? -1 : (int)fd;
}

static san_out *open_named_fd(int fd)
{
    if (fd == 1) {
        san_out *o = out_new(OUT_STDOUT);
        if (o)
            o->f = stdout;
        return o;
    }
    if (fd == 2)
        fflush(stderr);     /* what stderr has said comes first */
    return out_on_fd(OUT_DIRECT, fcntl(fd, F_DUPFD_CLOEXEC, 3));
}

/* Not a regular file: written as it is, never replaced. */
static san_out *open_direct(const char *path)
{
    return out_on_fd(OUT_DIRECT, open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC));
}

/* The target's owner (when permitted: root, or a group of ours) and
 * mode on the temporary file that replaces it.  The owner is
 * best-effort, the mode is not: a file must not become more readable
 * than it was, so that the group's bits go when the group could not be
 * kept (they would apply to another group).  Owner first: chown may
 * clear set-id bits. */
static int copy_attributes(int fd, const struct stat *target)
{
    struct stat mine;
    if (fstat(fd, &mine) != 0)
        return -1;
    mode_t mode = target->st_mode & 07777;
    if (mine.st_uid != target->st_uid || mine.st_gid != target->st_gid) {
        if (fchown(fd, target->st_uid, target->st_gid) != 0
            && fchown(fd, (uid_t)-1, target->st_gid) != 0)
            mode &= ~(mode_t)(S_ISGID | S_IRWXG);
    }
    return fchmod(fd, mode);
}

/* Create the temporary file for target (rw: to be read back; mode: what
 * open() gives before the umask) and record it; the descriptor, or -1
 * with errno. */
static int create_temp(san_out *o, int rw, mode_t mode)
{
    o->slot = slot_claim();
    if (o->slot < 0)
        return -1;
    for (int tries = 0; tries < 100; tries++) {
        if (temp_name(slots[o->slot].path, sizeof slots[o->slot].path, o->target) != 0)
            break;
        /* recorded before it exists: a signal between the two finds
         * nothing to remove rather than leaving the file behind (only
         * a collision of ten random characters, which O_EXCL reports,
         * would make the name another's for that instant) */
        slot_arm(o->slot);
        int fd = open(slots[o->slot].path, (rw ? O_RDWR : O_WRONLY) | O_CREAT | O_EXCL | O_NOFOLLOW
                      | O_CLOEXEC, mode);
        if (fd >= 0)
            return fd;
        atomic_store(&slots[o->slot].state, SLOT_FILLING);
        if (errno != EEXIST)
            break;
    }
    int e = errno;
    slot_release(o->slot);
    o->slot = -1;
    errno = e;
    return -1;
}

/* Drop the temporary file (failure or discard). */
static void remove_temp(san_out *o)
{
    if (o->slot >= 0) {
        unlink(slots[o->slot].path);
        slot_release(o->slot);
        o->slot = -1;
    }
}

/* A regular file (st) or nothing yet (st NULL) at target. */
static san_out *open_staged(char *target, const struct stat *st)
{
    out_how how = st && st->st_nlink > 1 ? OUT_COPY : OUT_REPLACE;
    san_out *o = out_new(how);
    if (!o) {
        free(target);
        return NULL;
    }
    o->target = target;
    /* a new file gets 0666 less the umask, as from fopen; a staging copy
     * is nobody else's business */
    int fd = create_temp(o, how == OUT_COPY, how == OUT_COPY ? 0600 : 0666);
    if (fd >= 0 && how == OUT_REPLACE && st && copy_attributes(fd, st) != 0) {
        int e = errno;
        close(fd);
        fd = -1;
        errno = e;
    }
    o->fd = fd;
    if (fd < 0 || out_stream(o) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        remove_temp(o);
        out_free(o);
        errno = e;
        return NULL;
    }
    return o;
}

san_out *san_out_open(const char *path)
{
    if (!path || !strcmp(path, "-"))
        return open_named_fd(1);
    if (!*path) {
        errno = ENOENT;
        return NULL;
    }
    int fd = named_fd(path);
    if (fd >= 0)
        return open_named_fd(fd);
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode)) {
            errno = EISDIR;
            return NULL;
        }
        return open_direct(path);
    }
    char *target = follow_links(path);
    if (!target)
        return NULL;
    if (lstat(target, &st) != 0) {
        if (errno != ENOENT) {
            free(target);
            return NULL;
        }
        return open_staged(target, NULL);
    }
    if (!S_ISREG(st.st_mode)) {     /* changed since the stat above */
        san_out *o = open_direct(target);
        free(target);
        return o;
    }
    /* replacing a file we may not write would bypass its protection
     * (rename needs only the directory): refused as open() would */
    if (faccessat(AT_FDCWD, target, W_OK, AT_EACCESS) != 0) {
        free(target);
        return NULL;
    }
    return open_staged(target, &st);
}

FILE *san_out_file(const san_out *o)
{
    return o->f;
}

/* ---- an output that is an input ---- */

/* The file path names, links followed: "-" is standard output for an
 * output and standard input for an input (dash_fd). */
static int file_id(const char *path, int dash_fd, struct stat *st)
{
    if (!path || !strcmp(path, "-"))
        return fstat(dash_fd, st);
    return stat(path, st);
}

int san_out_overwrites(const char *out, const char *in)
{
    struct stat o, i;
    if (!in || file_id(out, 1, &o) != 0 || file_id(in, 0, &i) != 0)
        return 0;       /* nothing there yet: nothing to lose */
    /* only a regular file holds what a write would destroy: reading and
     * writing /dev/null, a FIFO or a terminal is no loss */
    return S_ISREG(o.st_mode) && S_ISREG(i.st_mode) && o.st_dev == i.st_dev
        && o.st_ino == i.st_ino;
}

/* ---- the end of a write ---- */

/* The staged content into the hard-linked target, in place: under an
 * exclusive flock, so that two san processes writing one target do not
 * interleave. */
static int copy_into_target(san_out *o)
{
    int src = o->fd;
    if (lseek(src, 0, SEEK_SET) != 0)
        return -1;
    int dst = open(o->target, O_WRONLY | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
    if (dst < 0)
        return -1;
    int rc = flock(dst, LOCK_EX) == 0 && ftruncate(dst, 0) == 0 ? 0 : -1;
    char buf[1 << 16];
    while (rc == 0) {
        ssize_t k = read(src, buf, sizeof buf);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            rc = k < 0 ? -1 : fsync(dst);
            break;
        }
        rc = write_all(dst, buf, (size_t)k);
    }
    int e = errno;
    if (close(dst) != 0 && rc == 0)
        return -1;
    errno = e;
    return rc;
}

/* Flush, and make a file that will be renamed durable before it replaces
 * the old one: a rename that reaches the disk before the data would leave
 * an empty file after a crash (a copy is made durable in the target). */
static int finish_stream(san_out *o)
{
    errno = 0;
    int bad = fflush(o->f) != 0 || ferror(o->f);
    if (bad || o->err) {
        /* stdout is not ours: its errno is the only witness */
        errno = o->err ? o->err : errno ? errno : EIO;
        return -1;
    }
    if (o->how == OUT_REPLACE && fsync(o->fd) != 0)
        return -1;
    return 0;
}

/* Close the stream and its descriptor; 0, or -1 with errno. */
static int close_stream(san_out *o)
{
    int rc = fclose(o->f);          /* flushed already: frees the stream */
    int e = errno;
    if (close(o->fd) != 0 && rc == 0)
        return -1;                  /* NFS reports some failures only here */
    errno = e;
    return rc;
}

int san_out_commit(san_out *o)
{
    int rc = finish_stream(o);
    int e = errno;
    if (o->how == OUT_STDOUT) {
        out_free(o);                /* stdout stays open: the caller's */
        errno = e;
        return rc;
    }
    if (rc == 0 && o->how == OUT_COPY)
        rc = copy_into_target(o);
    e = errno;
    if (close_stream(o) != 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    if (rc == 0 && o->how == OUT_REPLACE) {
        rc = rename(slots[o->slot].path, o->target);
        e = errno;
        if (rc == 0) {              /* renamed: nothing left to remove */
            slot_release(o->slot);
            o->slot = -1;
        }
    }
    remove_temp(o);                 /* failures, and COPY's staging file */
    out_free(o);
    errno = e;
    return rc;
}

void san_out_discard(san_out *o)
{
    if (!o)
        return;
    if (o->how == OUT_STDOUT) {
        fflush(stdout);
        out_free(o);
        return;
    }
    close_stream(o);
    remove_temp(o);
    out_free(o);
}
