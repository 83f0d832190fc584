/*
 * san/gen.h - the model generators: parameter flags -> .san text (gen/).
 */
#ifndef SAN_PUBLIC_GEN_H
#define SAN_PUBLIC_GEN_H

#include <stdint.h>
#include <stdio.h>
#include <stddef.h>
#include "san/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Model generators (gen/): parameter flags -> .san text                 */
/* ------------------------------------------------------------------ */

/* argv[0] is the template name ("ms" or "pipeline"), the rest its flags.
 * Returns the model as malloc'd .san text, or NULL with a message naming
 * the offending flag in err (a usage error). */
SAN_API char *san_gen(int argc, char **argv, char *err, size_t errlen);
/* Describe the templates and their flags. */
SAN_API void san_gen_help(FILE *out);

#ifdef __cplusplus
}
#endif
#endif
