/*
 * stmt_end.h - where statements end, between the lexer and the parser
 * (stmt_end.c): the token filter that supplies a forgotten ';' and the
 * syntax error messages (internal to lang/).
 */
#ifndef SAN_STMT_END_H
#define SAN_STMT_END_H

#include "lang/ast.h"
#include "lang/parser.h"
#include "lang/lexer_extra.h"

typedef struct {
    struct lex_extra x;     /* first: the scanner's extra is &x */
    int section;            /* the block keyword last handed on (a token) */
    const char *stmt_name;  /* what the statement declares ('r' of r = 1) */
    int depth;              /* ( [ { open in the statement */
    int seen_eq;            /* its '=' was handed on */
    int tok;                /* the last token handed to the parser */
    int end_line, end_col;  /* just after it */
    int prev_line, prev_col;/* just after the one before it, */
    int before_section;     /* and the statement then (the last token may */
    const char *before_name;/* have begun another) */
    /* Tokens read but not handed on yet, the first first: a name read
     * ahead to see its '=', and one put back behind a supplied ';'. */
    int have_peek, peek_tok, peek_bad;
    LANG_YYSTYPE peek_val;
    LANG_YYLTYPE peek_loc;
    int have_peek2, peek2_tok, peek2_bad;
    LANG_YYSTYPE peek2_val;
    LANG_YYLTYPE peek2_loc;
} stmt_filter;

/* The parser's yylex: the scanner's tokens, with a ';' supplied (and the
 * error said, at the end of the statement that lacks it) where a
 * statement of the identifiers, reachability or results block ends
 * without one at the end of a line and the next begins ("r = 1" then
 * "s = 2;" on the next line); the parser then goes on as if it were
 * there, with nothing lost and no error after. */
int stmt_lex(LANG_YYSTYPE *lval, LANG_YYLTYPE *lloc, void *scanner);

/* A syntax error the parser found at the lookahead `unexpected` (its
 * name) at loc, expecting the n tokens named in expected (n 0: too many
 * to list), semi 1 when ';' is among them: "expected ';' after ..." at
 * the end of the statement when the lookahead is on a later line, the
 * parser's words otherwise; nothing when a lexical error of the same
 * statement already explains it. */
void stmt_syntax_error(void *scanner, san_diag *d, const char *unexpected,
                       const LANG_YYLTYPE *loc, const char *const *expected, int n, int semi);

#endif
