/*
 * replay.c - a libFuzzer target without libFuzzer, for make check: each
 * file named on the command line, or each file of a directory named
 * there, goes once through LLVMFuzzerTestOneInput.  Linked with
 * fuzz_gen.c (fuzz/replay_gen) and fuzz_sweep.c (fuzz/replay_sweep), it
 * replays the seeds and the findings (tests/regress/gen, .../sweep): the
 * checks of the target abort on a wrong answer, and a sanitizer build
 * reports what the fuzzer's would.  Files ending in .txt (what a finding
 * triggered) are not inputs.  Exit 0 after "N inputs", 2 when a file
 * cannot be read or there is none.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int is_note(const char *path)
{
    size_t n = strlen(path);
    return n >= 4 && !strcmp(path + n - 4, ".txt");
}

/* Run one file: 0, or -1 when it cannot be read. */
static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t cap = 4096, n = 0;
    uint8_t *data = malloc(cap);
    size_t got;
    while (data && (got = fread(data + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *p = realloc(data, cap *= 2);
            if (!p)
                free(data);
            data = p;
        }
    }
    int bad = !data || ferror(f);
    fclose(f);
    if (bad) {
        fprintf(stderr, "%s: cannot read\n", path);
        free(data);
        return -1;
    }
    LLVMFuzzerTestOneInput(data, n);
    free(data);
    return 0;
}

/* A file, or every file of a directory (not recursive); the count run,
 * or -1. */
static int replay_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        perror(path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode))
        return is_note(path) ? 0 : replay_file(path) < 0 ? -1 : 1;
    DIR *d = opendir(path);
    if (!d) {
        perror(path);
        return -1;
    }
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d)) && count >= 0) {
        char full[4096];
        snprintf(full, sizeof full, "%s/%s", path, e->d_name);
        if (e->d_name[0] == '.' || is_note(full) || stat(full, &st) != 0 || S_ISDIR(st.st_mode))
            continue;
        count = replay_file(full) < 0 ? -1 : count + 1;
    }
    closedir(d);
    return count;
}

int main(int argc, char **argv)
{
    int total = 0;
    for (int i = 1; i < argc; i++) {
        int n = replay_path(argv[i]);
        if (n < 0)
            return 2;
        total += n;
    }
    printf("%d inputs\n", total);
    return total > 0 ? 0 : 2;
}
