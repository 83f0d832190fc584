/*
 * comments.h - a model text's comments, written back by san print
 * (comments.c).  Internal to lang/.
 */
#ifndef SAN_LANG_COMMENTS_H
#define SAN_LANG_COMMENTS_H

#include <stddef.h>
#include <stdio.h>

typedef struct {
    int line;               /* where it starts */
    int trailing;           /* code before it on its line */
    int done;               /* written */
    const char *text;       /* into the model's text, // or slash-star included */
    size_t len;
} lang_comment;

enum { LANG_SEC_IDS, LANG_SEC_EVENTS, LANG_SEC_REACH, LANG_SEC_NET, LANG_SEC_RESULTS,
       LANG_NSECTIONS };

typedef struct {
    lang_comment *v;
    int n, cap;
    int section[LANG_NSECTIONS];    /* line of each section keyword, 0: not found */
} lang_comments;

/* Find the comments and section keywords of t; 0 out of memory. */
int lang_comments_scan(lang_comments *c, const char *t, size_t n);
void lang_comments_free(lang_comments *c);
/* Write, each on its own line after indent, the comments not yet written
 * that start before line (c NULL: nothing). */
void lang_comments_before(lang_comments *c, int line, const char *indent, FILE *out);
/* Append the trailing comments of line (before the printed newline). */
void lang_comments_trailing(lang_comments *c, int line, FILE *out);

#endif
