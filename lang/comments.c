/*
 * comments.c - the comments of a model's text, for san print to write
 * them back at their place (issue 19: the generators' provenance
 * comments were lost).
 *
 * The parser drops comments, so they are found again in the text, with
 * the same rules as the lexer (lexer.l): a line comment to the end of
 * the line, a block comment to its closing star-slash.  The format has
 * no string literals, so the opening of either outside a comment always
 * starts one.  Each comment keeps its line and
 * whether code precedes it on that line (a trailing comment, written at
 * the end of the printed line of the statement there).
 *
 * The section keywords (identifiers, events, reachability, network,
 * results) are found too, first on their line: a comment before one is
 * written before the printed keyword, not after it.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "lang/comments.h"

static int add(lang_comments *c, int line, int trailing, const char *text, size_t len)
{
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 16;
        lang_comment *v = realloc(c->v, (size_t)cap * sizeof *v);
        if (!v)
            return 0;
        c->v = v;
        c->cap = cap;
    }
    c->v[c->n++] = (lang_comment){ line, trailing, 0, text, len };
    return 1;
}

static const char *const section_word[LANG_NSECTIONS] = {
    "identifiers", "events", "reachability", "network", "results",
};

/* The first word of a line: a section keyword ("partial reachability"
 * counts as reachability)? */
static void section_at(lang_comments *c, const char *t, size_t n, int line)
{
    size_t w = 0;
    while (w < n && (isalnum((unsigned char)t[w]) || t[w] == '_'))
        w++;
    for (int s = 0; s < LANG_NSECTIONS; s++)
        if ((w == strlen(section_word[s]) && !strncmp(t, section_word[s], w)) ||
            (s == LANG_SEC_REACH && w == 7 && !strncmp(t, "partial", 7)))
            if (!c->section[s])
                c->section[s] = line;
}

int lang_comments_scan(lang_comments *c, const char *t, size_t n)
{
    memset(c, 0, sizeof *c);
    int line = 1, code = 0;     /* code: seen on this line before the comment */
    for (size_t i = 0; i < n; i++) {
        /* a lone CR ends a line too, as for the lexer */
        if (t[i] == '\n' || (t[i] == '\r' && (i + 1 == n || t[i + 1] != '\n'))) {
            line++;
            code = 0;
            continue;
        }
        if (t[i] == '/' && i + 1 < n && (t[i + 1] == '/' || t[i + 1] == '*')) {
            size_t j = i + 2;
            int l0 = line;
            if (t[i + 1] == '/') {
                while (j < n && t[j] != '\n' && t[j] != '\r')
                    j++;
            } else {
                for (; j + 1 < n && !(t[j] == '*' && t[j + 1] == '/'); j++)
                    line += t[j] == '\n' || (t[j] == '\r' && t[j + 1] != '\n');
                j = j + 1 < n ? j + 2 : n;
            }
            if (!add(c, l0, code, t + i, j - i))
                return 0;
            i = j - 1;
            continue;
        }
        if (!code && !isspace((unsigned char)t[i]))
            section_at(c, t + i, n - i, line);
        if (!isspace((unsigned char)t[i]))
            code = 1;
    }
    return 1;
}

void lang_comments_free(lang_comments *c)
{
    free(c->v);
    memset(c, 0, sizeof *c);
}

/* Write the comment's text; a block comment's later lines as they were. */
static void put(FILE *out, const lang_comment *k)
{
    fwrite(k->text, 1, k->len, out);
}

void lang_comments_before(lang_comments *c, int line, const char *indent, FILE *out)
{
    for (int k = 0; c && k < c->n; k++)
        if (!c->v[k].done && c->v[k].line < line) {
            fputs(indent, out);
            put(out, &c->v[k]);
            fputc('\n', out);
            c->v[k].done = 1;
        }
}

void lang_comments_trailing(lang_comments *c, int line, FILE *out)
{
    for (int k = 0; c && k < c->n; k++)
        if (!c->v[k].done && c->v[k].trailing && c->v[k].line == line) {
            fputs("  ", out);
            put(out, &c->v[k]);
            c->v[k].done = 1;
        }
}
