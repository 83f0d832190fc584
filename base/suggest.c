/*
 * suggest.c - "did you mean 'think'?": the closest of a list of names to
 * a word that matched none, by the optimal string alignment distance
 * (Levenshtein plus the transposition of two neighbours, the commonest
 * slip: thnik, slove).  The model's names and the command's options both
 * come here, so that a misspelling is answered the same way everywhere.
 */
#include <string.h>
#include <strings.h>
#include "san.h"

/* Longer words may be further off: one edit in five letters or fewer,
 * two up to eight, then one per four letters.  Never the whole word
 * ('f' is not a misspelling of 'e'). */
static int allowed(size_t n)
{
    int k = n <= 5 ? 1 : n <= 8 ? 2 : (int)(n / 4);
    return k < (int)n ? k : (int)n - 1;
}

/* Rows of the dynamic programme on the stack for the names people
 * type; longer names are not compared (no suggestion rather than a
 * heap allocation on an error path). */
enum { MAX_LEN = 64 };

int san_edit_distance(const char *a, const char *b, int max)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > MAX_LEN || m > MAX_LEN)
        return max + 1;
    if ((n > m ? n - m : m - n) > (size_t)max)
        return max + 1;         /* every edit changes the length by one at most */
    int r0[MAX_LEN + 1], r1[MAX_LEN + 1], r2[MAX_LEN + 1];
    int *prev2 = r0, *prev = r1, *cur = r2;
    for (size_t j = 0; j <= m; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= n; i++) {
        cur[0] = (int)i;
        int lo = cur[0];
        for (size_t j = 1; j <= m; j++) {
            int cost = a[i - 1] != b[j - 1];
            int d = prev[j - 1] + cost;
            if (prev[j] + 1 < d)
                d = prev[j] + 1;
            if (cur[j - 1] + 1 < d)
                d = cur[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                prev2[j - 2] + 1 < d)
                d = prev2[j - 2] + 1;
            cur[j] = d;
            if (d < lo)
                lo = d;
        }
        if (lo > max)
            return max + 1;     /* the row's minimum never decreases */
        int *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    return prev[m] <= max ? prev[m] : max + 1;
}

void san_suggest_init(san_suggest *s, const char *word)
{
    s->word = word;
    s->best = NULL;
    s->dist = allowed(strlen(word)) + 1;
}

/* The first of the closest wins: callers offer names in the order of
 * the model or of the help. */
void san_suggest_add(san_suggest *s, const char *name)
{
    if (!name || !strcmp(name, s->word))
        return;                 /* the same name of another kind: said otherwise */
    /* a difference of case alone is one slip, however many letters */
    int d = !strcasecmp(s->word, name) ? 1 : san_edit_distance(s->word, name, s->dist - 1);
    if (d < s->dist) {
        s->dist = d;
        s->best = name;
    }
}

const char *san_suggest_best(const san_suggest *s)
{
    return s->best;
}
