/* sema.h - the semantic pass: syntax tree -> compiled model. */
#ifndef SAN_SEMA_H
#define SAN_SEMA_H

#include "ast.h"

/* NULL when there were errors (all reported in d). */
san_model *sema_run(ast_file *f, san_diag *d, const san_load_opts *opt);

#endif
