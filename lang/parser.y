/*
 * parser.y - grammar of the .san language (pure, reentrant, with
 * locations).  Builds an ast_file; names are resolved later by sema.c.
 *
 * Error recovery resynchronizes at ';' in the identifier, event and
 * result blocks, and at 'stt', 'from' and 'aut' inside the network, so
 * one run reports as many errors as it can.  A ';' forgotten at the end
 * of a line is supplied by the token filter (stmt_end.c), which also
 * words the syntax errors.
 */
%define api.pure full
%define api.prefix {lang_yy}
%define parse.error custom
/* Recovery: `error ';'` resumes after the broken declaration, `error`
 * alone at the next declaration or block keyword; no conflicts. */
%expect 0
%locations
%param {void *scanner}
%parse-param {ast_file *f} {san_diag *d}

%code requires {
#include "lang/ast.h"
#include "lang/oom.h"
}

%union {
    double num;
    char *str;
    ast_expr *expr;
    ast_ref ref;
    ast_domain *dom;
    ast_to to;
    ast_label label;
    struct { ast_expr **v; int n; } args;
    struct { ast_ref *v; int n; } refs;
    struct { ast_label *v; int n; } labels;
    struct { ast_to *v; int n; } tos;
    int ival;
}

%code {
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lang/stmt_end.h"

/* the scanner's tokens go through the filter of stmt_end.c */
#define lang_yylex stmt_lex
static void lang_yyerror(LANG_YYLTYPE *loc, void *scanner, ast_file *f,
                        san_diag *d, const char *msg);

/* Deeper expressions are refused: the later phases recurse on them. */
enum { MAX_EXPR_DEPTH = 10000 };

static ast_pos P(LANG_YYLTYPE l) { ast_pos p = { l.first_line, l.first_column }; return p; }
static ast_expr *mk(ast_file *f, ast_expr_kind k, LANG_YYLTYPE l)
{
    ast_expr *e = ast_alloc(f, sizeof *e);
    e->kind = k;
    e->pos = P(l);
    return e;
}
static ast_expr *mk_bin(ast_file *f, san_diag *d, ast_binop op, ast_expr *a, ast_expr *b, LANG_YYLTYPE l);
/* floor(x), ceil(x), mod(a, b), pow(a, b): the count of arguments is
 * checked here, where the call is still as written. */
static ast_expr *mk_fn(ast_file *f, san_diag *d, const char *name, ast_expr **args, int n,
                       LANG_YYLTYPE l)
{
    ast_expr *e = mk(f, AE_FN, l);
    e->fn = (ast_fn)ast_fn_find(name);
    e->args = args;
    e->nargs = n;
    int want = ast_fn_arity(e->fn);
    if (n != want)
        san_diag_add(d, SAN_ERROR, l.first_line, l.first_column,
                     "%s(...): expected %d argument%s, got %d", name, want, want > 1 ? "s" : "", n);
    for (int k = 0; k < n; k++)
        if (args[k]->depth + 1 > e->depth)
            e->depth = args[k]->depth + 1;
    if (e->depth == MAX_EXPR_DEPTH + 1)
        san_diag_add(d, SAN_ERROR, l.first_line, l.first_column,
                     "expression too deep (more than %d nested operations)", MAX_EXPR_DEPTH);
    return e;
}

static ast_expr *mk_un(ast_file *f, san_diag *d, ast_expr_kind k, ast_expr *a, LANG_YYLTYPE l);
static int rel_offset(san_diag *d, double k, LANG_YYLTYPE l);
static ast_to by_amount(san_diag *d, int sign, ast_expr *e, LANG_YYLTYPE l);
static ast_ref mk_ref(char *name, ast_expr *index, LANG_YYLTYPE l)
{
    ast_ref r = { name, index, P(l) };
    return r;
}
#define GROW(arr, n) ((arr) = ast_grow(f, (arr), (n), sizeof *(arr)))

/* The progress line of a long load, every 1024 declarations. */
static void parse_tick(ast_file *f, LANG_YYLTYPE l)
{
    if (!f->progress || !f->progress->on || (++f->ticks & 1023))
        return;
    char at[64];
    snprintf(at, sizeof at, "reading line %d", l.first_line);
    if (base_progress_draw(f->progress, 0, "checking the model: %-40s", at))
        f->progress->interval = 0.25;
}
}

%token T_IDENTIFIERS "identifiers" T_EVENTS "events" T_NETWORK "network"
%token T_AUT "aut" T_STT "stt" T_TO "to" T_FROM "from" T_LOC "loc" T_SYN "syn"
%token T_RESULTS "results" T_CONTINUOUS "continuous" T_DISCRETE "discrete"
%token T_REACHABILITY "reachability" T_PARTIAL "partial"
%token T_MIN "min" T_MAX "max" T_ST "st" T_NB "nb" T_RW "rw"
%token T_SUMRW "sum_rw" T_PRODRW "prod_rw"
%token <str> T_ID "identifier"
%token <str> T_FN "function"
%token <num> T_NUM "number"
%token T_EQ "==" T_NE "!=" T_LE "<=" T_GE ">=" T_AND "&&" T_OR "||"
%token T_EQV "<->" T_IMP "->" T_DOTDOT ".."

%right T_EQV
%right T_IMP
%left T_OR
%left '^'
%left T_AND
%left T_EQ T_NE
%left '<' T_LE '>' T_GE
%left '+' '-'
%left '*' '/'
%precedence UNARY

%type <expr> expr primary rate opt_reward opt_prob opt_index_expr
%type <ref> ref
%type <expr> thr_event thr_name
%type <dom> dom_items opt_dom
%type <args> args
%type <refs> aut_list ref_list
%type <labels> labels
%type <label> label
%type <to> to_clause dst
%type <tos> to_list
%type <ival> ev_kind

%%

file
    : ident_sec event_sec reach_sec net_sec result_sec
    ;

/* ---- identifiers ---- */
ident_sec
    : %empty
    | "identifiers" ident_list
    ;
/* After an error, resume at the next declaration or block keyword. */
ident_list
    : %empty
    | ident_list ident_decl
    | ident_list error
    ;
ident_decl
    : T_ID '=' expr ';'
        { parse_tick(f, @1); GROW(f->ids, f->nids); ast_ident *x = &f->ids[f->nids++];
          x->name = $1; x->pos = P(@1); x->expr = $3; }
    | T_ID '=' '[' dom_items ']' ';'
        { parse_tick(f, @1); GROW(f->ids, f->nids); ast_ident *x = &f->ids[f->nids++];
          x->name = $1; x->pos = P(@1); x->dom = $4; }
    | error ';'             { yyerrok; }
    ;

dom_items
    : expr
        { $$ = ast_alloc(f, sizeof *$$); $$->pos = P(@1);
          GROW($$->lo, 0); $$->hi = ast_grow(f, NULL, 0, sizeof *$$->hi);
          $$->lo[0] = $1; $$->hi[0] = NULL; $$->n = 1; }
    | expr ".." expr
        { $$ = ast_alloc(f, sizeof *$$); $$->pos = P(@1);
          $$->lo = ast_grow(f, NULL, 0, sizeof *$$->lo); $$->hi = ast_grow(f, NULL, 0, sizeof *$$->hi);
          $$->lo[0] = $1; $$->hi[0] = $3; $$->n = 1; }
    | dom_items ',' expr
        { $$ = $1; GROW($$->lo, $$->n); GROW($$->hi, $$->n);
          $$->lo[$$->n] = $3; $$->hi[$$->n] = NULL; $$->n++; }
    | dom_items ',' expr ".." expr
        { $$ = $1; GROW($$->lo, $$->n); GROW($$->hi, $$->n);
          $$->lo[$$->n] = $3; $$->hi[$$->n] = $5; $$->n++; }
    ;

/* ---- events ---- */
event_sec
    : %empty
    | "events" { f->has_events_block = 1; } event_list
    ;
event_list
    : %empty
    | event_list event_decl
    | event_list error
    ;
event_decl
    : ev_kind T_ID opt_dom rate aut_list opt_semi
        { parse_tick(f, @2); GROW(f->events, f->nevents); ast_event *e = &f->events[f->nevents++];
          e->sync = $1; e->name = $2; e->pos = P(@2); e->dom = $3; e->rate = $4;
          e->auts = $5.v; e->nauts = $5.n; }
    | error ';'             { yyerrok; }
    ;
ev_kind
    : "loc" { $$ = 0; }
    | "syn" { $$ = 1; }
    ;
opt_semi
    : %empty
    | ';'
    ;
opt_dom
    : %empty                { $$ = NULL; }
    | '[' dom_items ']'     { $$ = $2; }
    | '[' T_ID ':' dom_items ']'
        { $$ = $4; $$->var = $2; $$->var_pos = P(@2); }
    ;
rate
    : '(' expr ')'          { $$ = $2; }
    | T_ID                  { $$ = mk(f, AE_NAME, @1); $$->ref = mk_ref($1, NULL, @1); }
    | T_NUM                 { $$ = mk(f, AE_NUM, @1); $$->num = $1; }
    ;
aut_list
    : %empty                { $$.v = NULL; $$.n = 0; }
    | aut_list ref          { $$ = $1; GROW($$.v, $$.n); $$.v[$$.n++] = $2; }
    | aut_list '{' ref_list '}'
        { $$ = $1; for (int i = 0; i < $3.n; i++) { GROW($$.v, $$.n); $$.v[$$.n++] = $3.v[i]; } }
    ;
ref_list
    : ref                   { $$.v = NULL; $$.n = 0; GROW($$.v, 0); $$.v[$$.n++] = $1; }
    | ref_list ',' ref      { $$ = $1; GROW($$.v, $$.n); $$.v[$$.n++] = $3; }
    ;

/* ---- reachability ---- */
reach_sec
    : %empty
    | "reachability" '=' expr ';'
        { f->reach = $3; f->has_reach = 1; f->reach_pos = P(@1); }
    | "partial" "reachability" '=' expr ';'
        { f->reach = $4; f->has_reach = 1; f->partial = 1; f->reach_pos = P(@1); }
    | "reachability" error ';'   { f->has_reach = 1; f->reach_pos = P(@1); }
    | "partial" error ';'        { f->has_reach = 1; f->reach_pos = P(@1); }
    ;

/* ---- network ---- */
net_sec
    : %empty
    | "network" T_ID '(' net_kind ')' aut_blocks
        { f->net_name = $2; f->net_pos = P(@1); f->has_net = 1; }
    | "network" error aut_blocks   { f->has_net = 1; f->net_pos = P(@1); }
    ;
net_kind
    : "continuous"
    | "discrete"            { f->discrete = 1; }
    ;
aut_blocks
    : %empty
    | aut_blocks aut_head stt_blocks
    ;
aut_head
    : "aut" T_ID opt_dom
        { GROW(f->auts, f->nauts); ast_aut *a = &f->auts[f->nauts++];
          a->name = $2; a->pos = P(@2); a->dom = $3; }
    | "aut" error
        { GROW(f->auts, f->nauts); ast_aut *a = &f->auts[f->nauts++];
          a->name = NULL; a->pos = P(@1); }
    ;
stt_blocks
    : %empty
    | stt_blocks stt_block
    ;
stt_block
    : "stt" T_ID opt_dom opt_reward to_list
        { parse_tick(f, @2); if (f->nauts) { ast_aut *a = &f->auts[f->nauts - 1];
            GROW(a->states, a->nstates); ast_state *s = &a->states[a->nstates++];
            s->name = $2; s->pos = P(@2); s->dom = $3; s->reward = $4;
            s->tos = $5.v; s->ntos = $5.n; } }
    | "from" T_ID opt_index_expr to_list
        { if (f->nauts) { ast_aut *a = &f->auts[f->nauts - 1];
            GROW(a->states, a->nstates); ast_state *s = &a->states[a->nstates++];
            s->is_from = 1; s->name = $2; s->pos = P(@2); s->from_index = $3;
            s->tos = $4.v; s->ntos = $4.n; } }
    | error
    ;
opt_index_expr
    : %empty                { $$ = NULL; }
    | '[' expr ']'          { $$ = $2; }
    ;
opt_reward
    : %empty                { $$ = NULL; }
    | '(' expr ')'          { $$ = $2; }
    ;
to_list
    : %empty                { $$.v = NULL; $$.n = 0; }
    | to_list to_clause     { $$ = $1; GROW($$.v, $$.n); $$.v[$$.n++] = $2; }
    ;
to_clause
    : "to" '(' dst ')' labels
        { $$ = $3; $$.pos = P(@1); $$.labels = $5.v; $$.nlabels = $5.n; }
    ;
dst
    : ref                   { memset(&$$, 0, sizeof $$); $$.kind = DST_NAME; $$.dst = $1; }
    | '='                   { memset(&$$, 0, sizeof $$); $$.kind = DST_SAME; }
    | '=' expr              { memset(&$$, 0, sizeof $$); $$.kind = DST_AT; $$.amount = $2; }
    | '+' '+'               { memset(&$$, 0, sizeof $$); $$.kind = DST_REL; $$.rel = 1; }
    | '-' '-'               { memset(&$$, 0, sizeof $$); $$.kind = DST_REL; $$.rel = -1; }
    | '+' expr              { $$ = by_amount(d, 1, $2, @2); }
    | '-' expr              { $$ = by_amount(d, -1, $2, @2); }
    ;
labels
    : label                 { $$.v = NULL; $$.n = 0; GROW($$.v, 0); $$.v[$$.n++] = $1; }
    | labels label          { $$ = $1; GROW($$.v, $$.n); $$.v[$$.n++] = $2; }
    ;
label
    : ref opt_prob          { $$.ev = $1; $$.prob = $2; }
    ;
opt_prob
    : %empty                { $$ = NULL; }
    | '(' expr ')'          { $$ = $2; }
    ;

/* ---- results ---- */
result_sec
    : %empty
    | "results" { f->has_results_block = 1; } result_list result_last
    ;
result_list
    : %empty
    | result_list T_ID '=' expr ';'
        { parse_tick(f, @2); GROW(f->results, f->nresults); ast_result *r = &f->results[f->nresults++];
          r->name = $2; r->pos = P(@2); r->expr = $4; }
    | result_list error
    | result_list error ';' { yyerrok; }
    ;
result_last
    : %empty
    | T_ID '=' expr
        { GROW(f->results, f->nresults); ast_result *r = &f->results[f->nresults++];
          r->name = $1; r->pos = P(@1); r->expr = $3; }
    ;

/* ---- expressions ---- */
ref
    : T_ID                  { $$ = mk_ref($1, NULL, @1); }
    | T_ID '[' expr ']'     { $$ = mk_ref($1, $3, @1); }
    ;
expr
    : primary
    | '-' expr %prec UNARY  { $$ = mk_un(f, d, AE_NEG, $2, @1); }
    | '!' expr %prec UNARY  { $$ = mk_un(f, d, AE_NOT, $2, @1); }
    | expr '*' expr         { $$ = mk_bin(f, d, OP_MUL, $1, $3, @2); }
    | expr '/' expr         { $$ = mk_bin(f, d, OP_DIV, $1, $3, @2); }
    | expr '+' expr         { $$ = mk_bin(f, d, OP_ADD, $1, $3, @2); }
    | expr '-' expr         { $$ = mk_bin(f, d, OP_SUB, $1, $3, @2); }
    | expr '<' expr         { $$ = mk_bin(f, d, OP_LT, $1, $3, @2); }
    | expr "<=" expr        { $$ = mk_bin(f, d, OP_LE, $1, $3, @2); }
    | expr '>' expr         { $$ = mk_bin(f, d, OP_GT, $1, $3, @2); }
    | expr ">=" expr        { $$ = mk_bin(f, d, OP_GE, $1, $3, @2); }
    | expr "==" expr        { $$ = mk_bin(f, d, OP_EQ, $1, $3, @2); }
    | expr "!=" expr        { $$ = mk_bin(f, d, OP_NE, $1, $3, @2); }
    | expr "&&" expr        { $$ = mk_bin(f, d, OP_AND, $1, $3, @2); }
    | expr '^' expr         { $$ = mk_bin(f, d, OP_XOR, $1, $3, @2); }
    | expr "||" expr        { $$ = mk_bin(f, d, OP_OR, $1, $3, @2); }
    | expr "->" expr        { $$ = mk_bin(f, d, OP_IMP, $1, $3, @2); }
    | expr "<->" expr       { $$ = mk_bin(f, d, OP_EQV, $1, $3, @2); }
    ;
primary
    : T_NUM                 { $$ = mk(f, AE_NUM, @1); $$->num = $1; }
    | ref                   { $$ = mk(f, AE_NAME, @1); $$->ref = $1; }
    | "st" ref              { $$ = mk(f, AE_ST, @1); $$->ref = $2; }
    | '@' ref               { $$ = mk(f, AE_ST, @1); $$->ref = $2; }
    | "rw" ref              { $$ = mk(f, AE_RW, @1); $$->ref = $2; }
    | '%' ref               { $$ = mk(f, AE_RW, @1); $$->ref = $2; }
    | "nb" ref              { $$ = mk(f, AE_NB, @1); $$->ref = $2; }
    | "nb" '[' ref ".." ref ']' ref
        { $$ = mk(f, AE_NB, @1); $$->has_range = 1; $$->lo = $3; $$->hi = $5; $$->ref = $7; }
    | "sum_rw" '[' ref ".." ref ']'
        { $$ = mk(f, AE_SUMRW, @1); $$->has_range = 1; $$->lo = $3; $$->hi = $5; }
    | "sum_rw" '[' ref ".." ref ']' ref
        { $$ = mk(f, AE_SUMRW, @1); $$->has_range = 1; $$->lo = $3; $$->hi = $5;
          $$->ref = $7; $$->has_state = 1; }
    | "prod_rw" '[' ref ".." ref ']'
        { $$ = mk(f, AE_PRODRW, @1); $$->has_range = 1; $$->lo = $3; $$->hi = $5; }
    | "prod_rw" '[' ref ".." ref ']' ref
        { $$ = mk(f, AE_PRODRW, @1); $$->has_range = 1; $$->lo = $3; $$->hi = $5;
          $$->ref = $7; $$->has_state = 1; }
    | "min" '(' args ')'    { $$ = mk(f, AE_MIN, @1); $$->args = $3.v; $$->nargs = $3.n; }
    | "max" '(' args ')'    { $$ = mk(f, AE_MAX, @1); $$->args = $3.v; $$->nargs = $3.n; }
    | T_FN '(' args ')'     { $$ = mk_fn(f, d, $1, $3.v, $3.n, @1); }
    | '(' expr ')'          { $$ = $2; $$->paren = 1; }
    | T_ID '(' thr_event ')'
        { $$ = $3; $$->pos = P(@1);
          if (strcmp($1, "thr"))    /* not a keyword: models may name a constant thr */
              san_diag_add(d, SAN_ERROR, @1.first_line, @1.first_column,
                           "unknown function '%s' (the functions are min, max, floor, ceil, mod, pow and thr)", $1); }
    ;
/* The event of thr(): e, e[k], e[*] (every index), each with an
 * optional @A (the copy of a local event in replica A: its name in the
 * report, up@P[3]). */
thr_event
    : thr_name
    | thr_name '@' ref      { $$ = $1; $$->thr_at = $3; }
    ;
thr_name
    : ref                   { $$ = mk(f, AE_THR, @1); $$->ref = $1; }
    | T_ID '[' '*' ']'      { $$ = mk(f, AE_THR, @1); $$->ref = mk_ref($1, NULL, @1); $$->thr_all = 1; }
    ;
args
    : expr                  { $$.v = NULL; $$.n = 0; GROW($$.v, 0); $$.v[$$.n++] = $1; }
    | args ',' expr         { $$ = $1; GROW($$.v, $$.n); $$.v[$$.n++] = $3; }
    ;

%%

/* The k of to(+k): a whole number of states, checked before any
 * conversion (a double beyond int's range cannot be cast). */
static int rel_offset(san_diag *d, double k, LANG_YYLTYPE l)
{
    if (k > 1e6 || k != floor(k)) {
        san_diag_add(d, SAN_ERROR, l.first_line, l.first_column,
                     "a relative destination needs a whole number of states (at most 10^6)");
        return 0;
    }
    return (int)k;
}

/* to(+e), to(-e): a written number is the positional move of old
 * (to(+2)); anything else is an amount sema evaluates (a constant one
 * moves like a number, one reading the state is expanded by value). */
static ast_to by_amount(san_diag *d, int sign, ast_expr *e, LANG_YYLTYPE l)
{
    ast_to t;
    memset(&t, 0, sizeof t);
    if (e->kind == AE_NUM && !e->paren) {
        t.kind = DST_REL;
        t.rel = sign * rel_offset(d, e->num, l);
    } else {
        t.kind = DST_BY;
        t.rel = sign;
        t.amount = e;
    }
    return t;
}

static ast_expr *mk_bin(ast_file *f, san_diag *d, ast_binop op, ast_expr *a, ast_expr *b, LANG_YYLTYPE l)
{
    ast_expr *e = mk(f, AE_BIN, l);
    e->op = op;
    e->a = a;
    e->b = b;
    e->depth = 1 + (a->depth > b->depth ? a->depth : b->depth);
    if (e->depth > MAX_EXPR_DEPTH && a->depth <= MAX_EXPR_DEPTH && b->depth <= MAX_EXPR_DEPTH)
        san_diag_add(d, SAN_ERROR, l.first_line, l.first_column,
                     "expression too deep (more than %d nested operations)", MAX_EXPR_DEPTH);
    return e;
}

static ast_expr *mk_un(ast_file *f, san_diag *d, ast_expr_kind k, ast_expr *a, LANG_YYLTYPE l)
{
    ast_expr *e = mk(f, k, l);
    e->a = a;
    e->depth = 1 + a->depth;
    if (e->depth == MAX_EXPR_DEPTH + 1)
        san_diag_add(d, SAN_ERROR, l.first_line, l.first_column,
                     "expression too deep (more than %d nested operations)", MAX_EXPR_DEPTH);
    return e;
}

/* The names of what was expected (at most 4, as bison words them;
 * none when more) and whether ';' was among them: stmt_end.c says the
 * rest. */
static int yyreport_syntax_error(const yypcontext_t *ctx, void *scanner, ast_file *f,
                                 san_diag *d)
{
    (void)f;
    yysymbol_kind_t all[YYNTOKENS];
    int n = yypcontext_expected_tokens(ctx, all, YYNTOKENS), semi = 0;
    const char *names[4];
    for (int i = 0; i < n; i++) {
        semi |= !strcmp(yysymbol_name(all[i]), "';'");
        if (i < 4)
            names[i] = yysymbol_name(all[i]);
    }
    yysymbol_kind_t t = yypcontext_token(ctx);
    stmt_syntax_error(scanner, d, t == YYSYMBOL_YYEMPTY ? NULL : yysymbol_name(t),
                      yypcontext_location(ctx), names, n <= 4 ? n : 0, semi);
    return 0;
}

static void lang_yyerror(LANG_YYLTYPE *loc, void *scanner, ast_file *f,
                        san_diag *d, const char *msg)
{
    (void)scanner;
    (void)f;
    if (!strcmp(msg, "memory exhausted"))
        msg = "input nested too deeply";
    san_diag_add(d, SAN_ERROR, loc->first_line, loc->first_column, "%s", msg);
}

/* The scanner's entry points (flex generates them; no header is shared
 * so that the build needs no generated lexer header). */
int lang_yylex_init_extra(struct lex_extra *extra, void **scanner);
void *lang_yy_scan_bytes(const char *bytes, int len, void *scanner);
int lang_yylex_destroy(void *scanner);

static void destroy_scanner(void *scanner)
{
    lang_yylex_destroy(scanner);
}

int ast_parse(ast_file *f, const char *text, size_t len, san_diag *d)
{
    /* a UTF-8 byte order mark, which some editors write first, is not
     * text (the diagnostics skip it too: san_diag_print) */
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) {
        text += 3;
        len -= 3;
    }
    if (len > 0x7fffffff) {
        san_diag_add(d, SAN_ERROR, 0, 0, "input too large");
        return 1;
    }
    stmt_filter x = { .x = { .file = f, .diag = d, .line = 1, .col = 1 } };
    void *scanner;
    if (lang_yylex_init_extra(&x.x, &scanner)) {
        san_diag_add(d, SAN_ERROR, 0, 0, "out of memory starting the lexer");
        return 1;
    }
    /* out of memory while parsing (oom.h): the scanner goes too */
    f->oom->cleanup = destroy_scanner;
    f->oom->ctx = scanner;
    lang_yy_scan_bytes(text, (int)len, scanner);
    lang_yyparse(scanner, f, d);
    f->oom->cleanup = NULL;
    lang_yylex_destroy(scanner);
    return d->nerrors;
}
