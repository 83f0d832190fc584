/* lexer_extra.h - the lexer's state shared with the parser (no globals). */
#ifndef SAN_LEXER_EXTRA_H
#define SAN_LEXER_EXTRA_H

#include "lang/ast.h"

struct lex_extra {
    ast_file *file;         /* arena for token strings */
    san_diag *diag;
    int line, col;          /* position of the next byte */
    int after_cr;           /* the last byte was a CR (its LF adds no line) */
    int cline, ccol;        /* start of an open comment */
    int stmt_bad;           /* a lexical error in the statement: the
                               syntax error it causes goes unsaid */
};

#endif
