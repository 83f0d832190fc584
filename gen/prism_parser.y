/*
 * prism_parser.y - the part of PRISM's modelling language that describes
 * CTMCs, into the tree of gen/prism.h.
 *
 * Updates are the one place that needs care: `rate : (x'=1)` and the
 * bare `(x'=1)` (rate 1) both start with '(' and the parser decides on
 * the prime after the name; a bare `true` (no change) is an update of
 * its own.  Constructs outside the CTMC subset (other model types,
 * unbounded and clock variables, system ... endsystem) have rules of
 * their own that name them.
 */
%define api.pure full
%define api.prefix {prism_yy}
%define parse.error custom
%expect 0
%locations
%param {void *scanner}
%parse-param {px_model *m}

%code requires {
#include "gen/prism.h"
}

%code {
#include <stdio.h>
#include <string.h>

int prism_yylex(PRISM_YYSTYPE *lval, PRISM_YYLTYPE *lloc, void *scanner);
static void prism_yyerror(PRISM_YYLTYPE *loc, void *scanner, px_model *m, const char *msg);

#define ERR(loc, ...) san_diag_add(m->d, SAN_ERROR, (loc).first_line, (loc).first_column, __VA_ARGS__)

static px_expr *bin(px_model *m, int op, px_expr *a, px_expr *b, PRISM_YYLTYPE *l)
{
    px_expr *e = px_new(m, PX_BIN, a->line, a->col);
    (void)l;
    e->op = op;
    e->a = a;
    e->b = b;
    return e;
}

static px_var *new_var(px_model *m, const char *name, PRISM_YYLTYPE *l)
{
    px_var *v = px_alloc(m, sizeof *v);
    v->name = name;
    v->line = l->first_line;
    v->col = l->first_column;
    return v;
}
}

%union {
    double num;
    char *str;
    px_expr *e;
    px_list list;
    px_var *var;
    px_cmd *cmd;
    px_update *upd;
    px_assign *as;
    px_module *mod;
    px_ritem *ritem;
    int type;
}

%token PX_TOK_CTMC "ctmc"
%token <str> PX_TOK_OTHERTYPE "model type"
%token PX_TOK_CONST "const" PX_TOK_INT "int" PX_TOK_DOUBLE "double" PX_TOK_BOOL "bool"
%token PX_TOK_FORMULA "formula" PX_TOK_LABEL "label" PX_TOK_GLOBAL "global"
%token PX_TOK_MODULE "module" PX_TOK_ENDMODULE "endmodule"
%token PX_TOK_REWARDS "rewards" PX_TOK_ENDREWARDS "endrewards"
%token PX_TOK_INIT "init" PX_TOK_ENDINIT "endinit"
%token PX_TOK_TRUE "true" PX_TOK_FALSE "false" PX_TOK_FUNC "func"
%token PX_TOK_SYSTEM "system" PX_TOK_ENDSYSTEM "endsystem"
%token <str> PX_TOK_UNSUPPORTED "unsupported keyword"
%token <num> PX_TOK_INTNUM "integer" PX_TOK_REALNUM "number"
%token <str> PX_TOK_ID "identifier" PX_TOK_STRING "string"
%token PX_TOK_ARROW "->" PX_TOK_IMP "=>" PX_TOK_IFF "<=>" PX_TOK_LE "<=" PX_TOK_GE ">="
%token PX_TOK_NE "!=" PX_TOK_DOTDOT ".."
%token PX_TOK_BADCHAR "invalid character" PX_TOK_UNTERMINATED "unterminated comment"

%right '?'
%right PX_TOK_IMP
%left PX_TOK_IFF
%left '|'
%left '&'
%precedence '!'
%left '=' PX_TOK_NE
%left '<' PX_TOK_LE '>' PX_TOK_GE
%left '+' '-'
%left '*' '/' '{'
%precedence UMINUS

%type <e> expr
%type <list> args updates assigns renames
%type <type> ctype
%type <var> vardecl
%type <cmd> command
%type <upd> update
%type <as> assign
%type <mod> module_body
%type <str> action_opt
%type <ritem> ritem
%type <e> init_opt

%%

file
    : items
    ;

items
    : %empty
    | items item
    ;

item
    : const_decl
    | "formula" PX_TOK_ID '=' expr ';'
        {
            px_named *f = px_alloc(m, sizeof *f);
            f->name = $2; f->e = $4; f->line = @2.first_line; f->col = @2.first_column;
            px_push(m, &m->formulas, f);
        }
    | "label" PX_TOK_STRING '=' expr ';'
        {
            px_named *f = px_alloc(m, sizeof *f);
            f->name = $2; f->e = $4; f->line = @2.first_line; f->col = @2.first_column;
            px_push(m, &m->labels, f);
        }
    | "global" vardecl      { px_push(m, &m->globals, $2); }
    | "module" PX_TOK_ID module_body "endmodule"
        {
            $3->name = $2; $3->line = @2.first_line; $3->col = @2.first_column;
            px_push(m, &m->modules, $3);
        }
    | "module" PX_TOK_ID '=' PX_TOK_ID '[' renames ']' "endmodule"
        {
            px_module *d = px_alloc(m, sizeof *d);
            d->name = $2; d->base = $4; d->ren = $6;
            d->line = @2.first_line; d->col = @2.first_column;
            px_push(m, &m->modules, d);
        }
    | "rewards" reward_name ritems "endrewards"
    | "init" expr "endinit"
        {
            if (m->init) {
                ERR(@1, "a second 'init ... endinit' block");
                YYABORT;
            }
            m->init = $2; m->init_line = @1.first_line; m->init_col = @1.first_column;
        }
    | "ctmc"
        {
            if (m->has_type) {
                ERR(@1, "the model type is given twice");
                YYABORT;
            }
            m->has_type = 1; m->type_line = @1.first_line; m->type_col = @1.first_column;
        }
    | PX_TOK_OTHERTYPE
        {
            ERR(@1, "'%s' models are not supported: the importer reads CTMCs ('ctmc' or "
                "'stochastic')", $1);
            YYABORT;
        }
    | "system" sysexpr "endsystem"
        {
            if (m->has_system) {
                ERR(@1, "a second 'system ... endsystem' block");
                YYABORT;
            }
            m->has_system = 1;
        }
    | PX_TOK_UNSUPPORTED
        {
            ERR(@1, "'%s' is not supported in a CTMC", $1);
            YYABORT;
        }
    ;

/* The composition: only ||, PRISM's default (all modules in parallel,
 * synchronizing on their common actions); the other operators are
 * refused where they stand. */
sysexpr
    : PX_TOK_ID
        {
            px_named *x = px_alloc(m, sizeof *x);
            x->name = $1; x->line = @1.first_line; x->col = @1.first_column;
            px_push(m, &m->system, x);
        }
    | '(' sysexpr ')'
    | sysexpr '|' '|' sysexpr %prec '|'
    | sysexpr '|' '|' '|' sysexpr %prec '|'
        {
            ERR(@2, "'|||' (interleaving) in 'system ... endsystem' is not supported: only "
                "||, all modules in parallel synchronizing on their common actions");
            YYABORT;
        }
    | sysexpr '|' '[' args ']' '|' sysexpr %prec '|'
        {
            ERR(@2, "'|[...]|' (synchronization on some actions) in 'system ... endsystem' "
                "is not supported: only ||");
            YYABORT;
        }
    | sysexpr '/' '{' args '}'
        {
            ERR(@2, "action hiding '/{...}' in 'system ... endsystem' is not supported");
            YYABORT;
        }
    | sysexpr '{' renames '}'
        {
            ERR(@2, "action renaming '{...}' in 'system ... endsystem' is not supported");
            YYABORT;
        }
    ;

const_decl
    : "const" ctype PX_TOK_ID ';'
        {
            px_const *c = px_alloc(m, sizeof *c);
            c->name = $3; c->type = $2; c->line = @3.first_line; c->col = @3.first_column;
            px_push(m, &m->consts, c);
        }
    | "const" ctype PX_TOK_ID '=' expr ';'
        {
            px_const *c = px_alloc(m, sizeof *c);
            c->name = $3; c->type = $2; c->val = $5;
            c->line = @3.first_line; c->col = @3.first_column;
            px_push(m, &m->consts, c);
        }
    ;

ctype
    : %empty                { $$ = PX_T_INT; }
    | "int"                 { $$ = PX_T_INT; }
    | "double"              { $$ = PX_T_DOUBLE; }
    | "bool"                { $$ = PX_T_BOOL; }
    ;

vardecl
    : PX_TOK_ID ':' '[' expr ".." expr ']' init_opt ';'
        {
            $$ = new_var(m, $1, &@1);
            $$->lo = $4; $$->hi = $6; $$->init = $8;
        }
    | PX_TOK_ID ':' "bool" init_opt ';'
        {
            $$ = new_var(m, $1, &@1);
            $$->isbool = 1; $$->init = $4;
        }
    | PX_TOK_ID ':' "int" init_opt ';'
        {
            ERR(@3, "unbounded variable '%s' is not supported: give it a range, "
                "%s : [LOW..HIGH]", $1, $1);
            YYABORT;
        }
    | PX_TOK_ID ':' "double" init_opt ';'
        {
            ERR(@3, "variable '%s' of type double is not supported: a state variable "
                "needs a finite integer range", $1);
            YYABORT;
        }
    | PX_TOK_ID ':' PX_TOK_UNSUPPORTED
        {
            ERR(@3, "'%s' variables are not supported in a CTMC", $3);
            YYABORT;
        }
    ;

init_opt
    : %empty                { $$ = NULL; }
    | "init" expr           { $$ = $2; }
    ;

module_body
    : %empty                { $$ = px_alloc(m, sizeof *$$); }
    | module_body vardecl   { $$ = $1; px_push(m, &$$->vars, $2); }
    | module_body command   { $$ = $1; px_push(m, &$$->cmds, $2); }
    ;

command
    : '[' action_opt ']' expr "->" updates ';'
        {
            $$ = px_alloc(m, sizeof *$$);
            $$->action = $2; $$->guard = $4; $$->updates = $6;
            $$->line = @1.first_line; $$->col = @1.first_column;
        }
    | '[' action_opt ']' expr "->" "true" ';'
        {
            $$ = px_alloc(m, sizeof *$$);
            $$->action = $2; $$->guard = $4;
            px_push(m, &$$->updates, px_alloc(m, sizeof(px_update)));
            $$->line = @1.first_line; $$->col = @1.first_column;
        }
    ;

action_opt
    : %empty                { $$ = NULL; }
    | PX_TOK_ID             { $$ = $1; }
    ;

updates
    : assigns
        {
            px_update *u = px_alloc(m, sizeof *u);
            u->assigns = $1;
            $$ = (px_list){ 0 };
            px_push(m, &$$, u);
        }
    | update                { $$ = (px_list){ 0 }; px_push(m, &$$, $1); }
    | updates '+' update    { $$ = $1; px_push(m, &$$, $3); }
    ;

update
    : expr ':' assigns      { $$ = px_alloc(m, sizeof *$$); $$->rate = $1; $$->assigns = $3; }
    | expr ':' "true"       { $$ = px_alloc(m, sizeof *$$); $$->rate = $1; }
    ;

assigns
    : assign                { $$ = (px_list){ 0 }; px_push(m, &$$, $1); }
    | assigns '&' assign    { $$ = $1; px_push(m, &$$, $3); }
    ;

assign
    : '(' PX_TOK_ID '\'' '=' expr ')'
        {
            $$ = px_alloc(m, sizeof *$$);
            $$->var = $2; $$->e = $5; $$->line = @2.first_line; $$->col = @2.first_column;
        }
    ;

renames
    : PX_TOK_ID '=' PX_TOK_ID
        {
            $$ = (px_list){ 0 };
            px_push(m, &$$, $1);
            px_push(m, &$$, $3);
        }
    | renames ',' PX_TOK_ID '=' PX_TOK_ID
        {
            $$ = $1;
            px_push(m, &$$, $3);
            px_push(m, &$$, $5);
        }
    ;

reward_name
    : %empty
        {
            px_rewards *r = px_alloc(m, sizeof *r);
            r->line = @$.first_line; r->col = @$.first_column;
            px_push(m, &m->rewards, r);
        }
    | PX_TOK_STRING
        {
            px_rewards *r = px_alloc(m, sizeof *r);
            r->name = $1; r->line = @1.first_line; r->col = @1.first_column;
            px_push(m, &m->rewards, r);
        }
    ;

ritems
    : %empty
    | ritems ritem
        {
            px_rewards *r = m->rewards.p[m->rewards.n - 1];
            px_push(m, &r->items, $2);
        }
    ;

ritem
    : expr ':' expr ';'
        {
            $$ = px_alloc(m, sizeof *$$);
            $$->guard = $1; $$->val = $3; $$->line = @1.first_line; $$->col = @1.first_column;
        }
    | '[' action_opt ']' expr ':' expr ';'
        {
            $$ = px_alloc(m, sizeof *$$);
            $$->has_action = 1; $$->action = $2; $$->guard = $4; $$->val = $6;
            $$->line = @1.first_line; $$->col = @1.first_column;
        }
    ;

expr
    : PX_TOK_INTNUM         { $$ = px_new(m, PX_NUM, @1.first_line, @1.first_column); $$->v = $1; $$->isint = 1; }
    | PX_TOK_REALNUM        { $$ = px_new(m, PX_NUM, @1.first_line, @1.first_column); $$->v = $1; }
    | "true"                { $$ = px_new(m, PX_BOOL, @1.first_line, @1.first_column); $$->v = 1; }
    | "false"               { $$ = px_new(m, PX_BOOL, @1.first_line, @1.first_column); $$->v = 0; }
    | PX_TOK_ID             { $$ = px_new(m, PX_ID, @1.first_line, @1.first_column); $$->name = $1; }
    | PX_TOK_ID '(' args ')'
        {
            $$ = px_new(m, PX_CALL, @1.first_line, @1.first_column);
            $$->name = $1; $$->args = (px_expr **)$3.p; $$->nargs = $3.n;
        }
    | "func" '(' PX_TOK_ID ',' args ')'
        {
            $$ = px_new(m, PX_CALL, @3.first_line, @3.first_column);
            $$->name = $3; $$->args = (px_expr **)$5.p; $$->nargs = $5.n;
        }
    | '(' expr ')'          { $$ = $2; }
    | '-' expr %prec UMINUS { $$ = px_new(m, PX_NEG, @1.first_line, @1.first_column); $$->a = $2; }
    | '!' expr              { $$ = px_new(m, PX_NOT, @1.first_line, @1.first_column); $$->a = $2; }
    | expr '+' expr         { $$ = bin(m, PX_ADD, $1, $3, &@2); }
    | expr '-' expr         { $$ = bin(m, PX_SUB, $1, $3, &@2); }
    | expr '*' expr         { $$ = bin(m, PX_MUL, $1, $3, &@2); }
    | expr '/' expr         { $$ = bin(m, PX_DIV, $1, $3, &@2); }
    | expr '<' expr         { $$ = bin(m, PX_LT, $1, $3, &@2); }
    | expr "<=" expr        { $$ = bin(m, PX_LE, $1, $3, &@2); }
    | expr '>' expr         { $$ = bin(m, PX_GT, $1, $3, &@2); }
    | expr ">=" expr        { $$ = bin(m, PX_GE, $1, $3, &@2); }
    | expr '=' expr         { $$ = bin(m, PX_EQ, $1, $3, &@2); }
    | expr "!=" expr        { $$ = bin(m, PX_NE, $1, $3, &@2); }
    | expr '&' expr         { $$ = bin(m, PX_AND, $1, $3, &@2); }
    | expr '|' expr         { $$ = bin(m, PX_OR, $1, $3, &@2); }
    | expr "=>" expr        { $$ = bin(m, PX_IMP, $1, $3, &@2); }
    | expr "<=>" expr       { $$ = bin(m, PX_IFF, $1, $3, &@2); }
    | expr '?' expr ':' expr %prec '?'
        {
            $$ = px_new(m, PX_ITE, $1->line, $1->col);
            $$->a = $1; $$->b = $3; $$->c = $5;
        }
    ;

args
    : expr                  { $$ = (px_list){ 0 }; px_push(m, &$$, $1); }
    | args ',' expr         { $$ = $1; px_push(m, &$$, $3); }
    ;

%%

static int yyreport_syntax_error(const yypcontext_t *ctx, void *scanner, px_model *m)
{
    (void)scanner;
    yysymbol_kind_t all[YYNTOKENS];
    int n = yypcontext_expected_tokens(ctx, all, YYNTOKENS);
    yysymbol_kind_t t = yypcontext_token(ctx);
    const PRISM_YYLTYPE *l = yypcontext_location(ctx);
    char buf[512];
    size_t k = 0;
    /* after an operand every operator may follow: name the rest */
    static const char *const ops[] = { "'+'", "'-'", "'*'", "'/'", "'<'", "<=", "'>'", ">=",
                                       "'='", "!=", "'&'", "'|'", "=>", "<=>", "'?'", NULL };
    int nops = 0;
    for (int i = 0; i < n; i++)
        for (int o = 0; ops[o]; o++)
            if (!strcmp(yysymbol_name(all[i]), ops[o])) {
                all[i] = YYSYMBOL_YYEMPTY;
                nops++;
                break;
            }
    int rest = n - nops;
    if (rest > 0 && rest <= 6) {
        k += (size_t)snprintf(buf, sizeof buf, "expected ");
        for (int i = 0, j = 0; i < n && k < sizeof buf; i++) {
            if (all[i] == YYSYMBOL_YYEMPTY)
                continue;
            k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%s",
                                  j == 0 ? "" : j == rest - 1 && !nops ? " or " : ", ",
                                  yysymbol_name(all[i]));
            j++;
        }
        if (nops && k < sizeof buf)
            k += (size_t)snprintf(buf + k, sizeof buf - k, " or an operator");
    } else {
        k += (size_t)snprintf(buf, sizeof buf, "syntax error");
    }
    if (k < sizeof buf && t == YYSYMBOL_PX_TOK_UNTERMINATED)
        snprintf(buf, sizeof buf, "unterminated comment ('/*' without '*/')");
    else if (k < sizeof buf)
        snprintf(buf + k, sizeof buf - k, ", found %s",
                 t == YYSYMBOL_YYEOF ? "the end of the file" : yysymbol_name(t));
    san_diag_add(m->d, SAN_ERROR, l->first_line, l->first_column, "%s", buf);
    return 0;
}

static void prism_yyerror(PRISM_YYLTYPE *loc, void *scanner, px_model *m, const char *msg)
{
    (void)scanner;
    if (!strcmp(msg, "memory exhausted"))
        msg = "input nested too deeply";
    san_diag_add(m->d, SAN_ERROR, loc->first_line, loc->first_column, "%s", msg);
}

struct px_lex;
void *px_scan_begin(px_model *m, const char *text, size_t len, struct px_lex **ex);
void px_scan_end(void *scanner);

int px_parse(px_model *m, const char *text, size_t len)
{
    struct px_lex *x;
    void *s = px_scan_begin(m, text, len, &x);
    int rc = prism_yyparse(s, m);
    px_scan_end(s);
    return rc == 0 && m->d->nerrors == 0 ? 0 : -1;
}
