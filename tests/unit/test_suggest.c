/*
 * test_suggest.c - the "did you mean" of base/suggest.c: the distance
 * (insertions, deletions, substitutions, swaps of neighbours) against
 * hand counts and against a plain Levenshtein on random words, the
 * cut-off at max, and the thresholds by length that the diagnostics
 * rely on.
 */
#include <stdlib.h>
#include <string.h>
#include "tests/unit/check.h"
#include "san.h"

static int lev(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    int d[32][32];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < c)
                c = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < c)
                c = d[i][j - 1] + 1;
            d[i][j] = c;
        }
    return d[n][m];
}

static const char *best(const char *word, const char *const *names)
{
    static san_suggest s;
    san_suggest_init(&s, word);
    for (int i = 0; names[i]; i++)
        san_suggest_add(&s, names[i]);
    return san_suggest_best(&s);
}

static int same(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

int main(void)
{
    CHECK(san_edit_distance("think", "thnik", 5) == 1, "one swap");
    CHECK(san_edit_distance("solve", "slove", 5) == 1, "one swap");
    CHECK(san_edit_distance("lambda", "lamda", 5) == 1, "one deletion");
    CHECK(san_edit_distance("method", "metod", 5) == 1, "one deletion");
    CHECK(san_edit_distance("kitten", "sitting", 9) == 3, "kitten, sitting");
    CHECK(san_edit_distance("", "abc", 9) == 3, "from nothing");
    CHECK(san_edit_distance("abc", "abc", 0) == 0, "the same");
    CHECK(san_edit_distance("kitten", "sitting", 2) == 3, "past max: max + 1");
    CHECK(san_edit_distance("a", "abcdefgh", 3) == 4, "lengths apart: max + 1");

    /* random words over a small alphabet: never above Levenshtein, never
     * below half of it (a swap does the work of two edits at most),
     * symmetric, and cut off at max as documented */
    srand(7);
    int ok = 1;
    for (int k = 0; k < 20000 && ok; k++) {
        char a[12], b[12];
        int n = rand() % 10, m = rand() % 10;
        for (int i = 0; i < n; i++)
            a[i] = (char)('a' + rand() % 3);
        for (int i = 0; i < m; i++)
            b[i] = (char)('a' + rand() % 3);
        a[n] = b[m] = '\0';
        int d = san_edit_distance(a, b, 20), l = lev(a, b);
        ok = d <= l && d >= (l + 1) / 2 && san_edit_distance(b, a, 20) == d;
        if (!ok)
            CHECK(0, "'%s' '%s': %d, Levenshtein %d", a, b, d, l);
        int cut = san_edit_distance(a, b, 2);
        ok = ok && (d <= 2 ? cut == d : cut == 3);
        if (!ok)
            CHECK(0, "'%s' '%s' cut at 2: %d, distance %d", a, b, cut, d);
    }
    CHECK(ok, "random words");

    static const char *const states[] = { "think", "wait", "use", NULL };
    CHECK(same(best("thnik", states), "think"), "thnik: think");
    CHECK(same(best("wiat", states), "wait"), "wiat: wait");
    CHECK(best("zzzzz", states) == NULL, "nothing close");
    CHECK(best("think", states) == NULL, "the name itself is no suggestion");
    static const char *const events[] = { "e", "f", NULL };
    CHECK(best("g", events) == NULL, "one letter is not a misspelling of another");
    static const char *const doms[] = { "CLIENTS", NULL };
    CHECK(same(best("Clients", doms), "CLIENTS"), "a difference of case");
    static const char *const opts[] = { "method", "max-iter", "max-memory", NULL };
    CHECK(same(best("metod", opts), "method"), "--metod: --method");
    CHECK(same(best("max-iters", opts), "max-iter"), "--max-iters: --max-iter");
    static const char *const tie[] = { "abcd", "abce", NULL };
    CHECK(same(best("abcf", tie), "abcd"), "a tie: the first offered");

    printf("test_suggest: %d passed, %d failed\n", n_pass, n_fail);
    return n_fail > 0;
}
