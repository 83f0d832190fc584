/*
 * stmt_end.c - where statements end: a forgotten ';' and the syntax
 * errors, said once and where the mistake is.
 *
 * A ';' forgotten at the end of a line was reported at the next line, as
 * bison saw it ("syntax error, unexpected identifier" at the name of the
 * next declaration), and the recovery then dropped the declaration it
 * ended.  The filter between the lexer and the parser sees the mistake
 * coming instead: in the blocks whose statements end with ';'
 * (identifiers, reachability, results), a token that can end an
 * expression, then on a later line one that begins a statement (a name
 * followed by '=', a block keyword), with no bracket open and the
 * statement's '=' seen, is a missing ';'.  It says so at the end of the
 * statement and hands the parser the ';', which then loses nothing.
 * The other cases bison finds, and stmt_syntax_error words them.
 */
#include <stdio.h>
#include <string.h>
#include "lang/stmt_end.h"

/* flex's (lexer.l) */
int lang_yylex(LANG_YYSTYPE *lval, LANG_YYLTYPE *lloc, void *scanner);
struct lex_extra *lang_yyget_extra(void *scanner);

static stmt_filter *filter_of(void *scanner)
{
    return (stmt_filter *)lang_yyget_extra(scanner);    /* x is its first member */
}

static int is_block_keyword(int t)
{
    return t == T_IDENTIFIERS || t == T_EVENTS || t == T_REACHABILITY || t == T_PARTIAL ||
           t == T_NETWORK || t == T_RESULTS;
}

/* Can t be the last token of an expression (and so of a statement)? */
static int ends_expression(int t)
{
    return t == T_ID || t == T_NUM || t == ')' || t == ']';
}

/* The next token of the scanner, past the one read ahead if any.  A
 * lexical error met while reading ahead belongs to the token read,
 * which is handed on later: stmt_bad is set then (hand). */
static int read_token(stmt_filter *F, LANG_YYSTYPE *lval, LANG_YYLTYPE *lloc, void *scanner,
                      int *bad)
{
    if (F->have_peek) {
        int t = F->peek_tok;
        *lval = F->peek_val;
        *lloc = F->peek_loc;
        *bad = F->peek_bad;
        F->have_peek = F->have_peek2;   /* the second moves up */
        F->have_peek2 = 0;
        F->peek_tok = F->peek2_tok;
        F->peek_val = F->peek2_val;
        F->peek_loc = F->peek2_loc;
        F->peek_bad = F->peek2_bad;
        return t;
    }
    *bad = 0;
    return lang_yylex(lval, lloc, scanner);
}

/* t goes back in front of what was read ahead (two at most). */
static void put_back(stmt_filter *F, int t, const LANG_YYSTYPE *lval, const LANG_YYLTYPE *lloc,
                     int bad)
{
    F->have_peek2 = F->have_peek;
    F->peek2_tok = F->peek_tok;
    F->peek2_val = F->peek_val;
    F->peek2_loc = F->peek_loc;
    F->peek2_bad = F->peek_bad;
    F->have_peek = 1;
    F->peek_tok = t;
    F->peek_val = *lval;
    F->peek_loc = *lloc;
    F->peek_bad = bad;
}

static int peek_token(stmt_filter *F, void *scanner)
{
    if (!F->have_peek) {
        int was = F->x.stmt_bad;
        F->x.stmt_bad = 0;
        F->peek_tok = lang_yylex(&F->peek_val, &F->peek_loc, scanner);
        F->peek_bad = F->x.stmt_bad;
        F->x.stmt_bad = was;
        F->have_peek = 1;
    }
    return F->peek_tok;
}

static void new_statement(stmt_filter *F)
{
    F->stmt_name = NULL;
    F->depth = 0;
    F->seen_eq = 0;
    F->x.stmt_bad = 0;
}

/* Token t goes to the parser: what the filter knows of the statement. */
static void hand(stmt_filter *F, int t, const LANG_YYSTYPE *lval, const LANG_YYLTYPE *lloc,
                 int bad)
{
    F->before_section = F->section;
    F->before_name = F->stmt_name;
    F->prev_line = F->end_line;
    F->prev_col = F->end_col;
    F->end_line = lloc->last_line;
    F->end_col = lloc->last_column;
    F->tok = t;
    if (is_block_keyword(t)) {
        F->section = t == T_PARTIAL ? T_REACHABILITY : t;
        new_statement(F);
    } else if (t == ';' || t == T_LOC || t == T_SYN || t == T_AUT || t == T_STT ||
               t == T_FROM) {
        new_statement(F);
    } else if (t == '(' || t == '[' || t == '{') {
        F->depth++;
    } else if ((t == ')' || t == ']' || t == '}') && F->depth > 0) {
        F->depth--;
    } else if (t == '=' && F->depth == 0) {
        F->seen_eq = 1;
    } else if (t == T_ID && !F->stmt_name && !F->seen_eq && F->depth == 0) {
        F->stmt_name = lval->str;
    }
    if (bad)
        F->x.stmt_bad = 1;
}

/* "the definition of 'r'": the statement, for a message. */
static const char *statement(int section, const char *name, char *buf, size_t n)
{
    if (section == T_IDENTIFIERS && name)
        snprintf(buf, n, "the definition of '%.200s'", name);
    else if (section == T_RESULTS && name)
        snprintf(buf, n, "result '%.200s'", name);
    else if (section == T_REACHABILITY)
        snprintf(buf, n, "the reachability function");
    else
        snprintf(buf, n, "the statement");
    return buf;
}

/* Is token t, at loc, the start of a statement after one that lacks
 * its ';'? */
static int missing_semicolon(stmt_filter *F, int t, const LANG_YYLTYPE *loc, void *scanner)
{
    if (F->section != T_IDENTIFIERS && F->section != T_RESULTS && F->section != T_REACHABILITY)
        return 0;
    if (!F->seen_eq || F->depth != 0 || !ends_expression(F->tok) || loc->first_line <= F->end_line)
        return 0;
    if (is_block_keyword(t))
        return 1;
    return F->section != T_REACHABILITY && t == T_ID && peek_token(F, scanner) == '=';
}

int stmt_lex(LANG_YYSTYPE *lval, LANG_YYLTYPE *lloc, void *scanner)
{
    stmt_filter *F = filter_of(scanner);
    int bad;
    int t = read_token(F, lval, lloc, scanner, &bad);
    if (missing_semicolon(F, t, lloc, scanner)) {
        char what[256];
        san_diag_add(F->x.diag, SAN_ERROR, F->end_line, F->end_col, "expected ';' after %s",
                     statement(F->section, F->stmt_name, what, sizeof what));
        put_back(F, t, lval, lloc, bad);
        LANG_YYLTYPE at = { F->end_line, F->end_col, F->end_line, F->end_col };
        *lloc = at;
        t = ';';
        bad = 0;
    }
    hand(F, t, lval, lloc, bad);
    return t;
}

void stmt_syntax_error(void *scanner, san_diag *d, const char *unexpected,
                       const LANG_YYLTYPE *loc, const char *const *expected, int n, int semi)
{
    stmt_filter *F = filter_of(scanner);
    if (F->x.stmt_bad)
        return;                 /* the lexical error said it */
    if (semi && unexpected && loc->first_line > F->prev_line && F->prev_line > 0) {
        char what[256];
        san_diag_add(d, SAN_ERROR, F->prev_line, F->prev_col, "expected ';' after %s",
                     statement(F->before_section, F->before_name, what, sizeof what));
        return;
    }
    if (!unexpected) {
        san_diag_add(d, SAN_ERROR, loc->first_line, loc->first_column, "syntax error");
        return;
    }
    char msg[512];
    int k = snprintf(msg, sizeof msg, "syntax error, unexpected %s", unexpected);
    for (int i = 0; i < n && k > 0 && (size_t)k < sizeof msg; i++)
        k += snprintf(msg + k, sizeof msg - k, "%s%s", i ? " or " : ", expecting ", expected[i]);
    san_diag_add(d, SAN_ERROR, loc->first_line, loc->first_column, "%s", msg);
}
