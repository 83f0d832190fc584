/* sema.h - the semantic pass: syntax tree -> compiled model. */
#ifndef SAN_SEMA_H
#define SAN_SEMA_H

#include "lang/ast.h"

#include "base/services.h"

/* NULL when there were errors (all reported in d); progress: the line
 * on stderr of a long load (services.h). */
san_model *sema_run(ast_file *f, san_diag *d, const san_load_opts *opt, base_progress *progress);

#endif
