/*
 * san/gen.h - the model generators: parameter flags -> .san text (gen/).
 */
#ifndef SAN_PUBLIC_GEN_H
#define SAN_PUBLIC_GEN_H

#include <stdint.h>
#include <stdio.h>
#include <stddef.h>
#include "san/base.h"
#include "san/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Model generators (gen/): parameter flags -> .san text                 */
/* ------------------------------------------------------------------ */

/* argv[0] is the template name ("ms" or "pipeline"), the rest its flags.
 * SAN_OK with the model as malloc'd .san text in *text and, when size
 * is not NULL, the product-space formula with its value (malloc'd, e.g.
 * "3 * 3^N * (K+1) = 3 * 3^2 * (3+1) = 108"); else SAN_E_USAGE (err
 * names the offending flag) or SAN_E_NOMEM, *text NULL. */
SAN_API san_status san_gen(int argc, char **argv, char **text, char **size, char *err,
                           size_t n);
/* The flag of template tmpl ("ms", "pipeline") that sets constant name
 * of the models it writes, when the structure follows from it (N_slaves:
 * "--slaves", the number of Slave automata): -D cannot change such a
 * constant.  *scalar (may be NULL) is 1 when the flag's value is the
 * constant's own (--slaves 5 for N_slaves = 5), 0 when it is a list or
 * derived (P_2: --replicas).  NULL for any other name. */
SAN_API const char *san_gen_structural(const char *tmpl, const char *name, int *scalar);
/* A PRISM CTMC model (text of len bytes, file name for the network's
 * name) as .san text (gen/prism.c): modules and variables become
 * automata, commands and synchronized actions events, labels and reward
 * structures results.  defs give the constants their values (all the
 * undefined ones need one; a defined one is overridden); header (may be
 * NULL) starts the text.  SAN_OK with the malloc'd text in *out; else
 * SAN_E_MODEL with the errors, at their line and column, in d (made by
 * san_diag_init on the PRISM text), or SAN_E_NOMEM. */
SAN_API san_status san_import_prism(const char *name, const char *text, size_t len,
                                    const san_define *defs, int ndefs, const char *header,
                                    char **out, san_diag *d);
/* The same with flags: SAN_IMPORT_PROPS adds, for the properties of
 * san/props.h, a result SAN_IMPORT_CONST_PREFIX NAME per constant (its
 * value: the model's constants are folded into the text) and a result
 * SAN_IMPORT_STATE_PREFIX R per reward structure R (its state rewards
 * alone, for R=? [I=t]), and SAN_IMPORT_REWARD_PREFIX R for a structure
 * whose result took another name than R (a label called R came first). */
#define SAN_IMPORT_PROPS 1u
#define SAN_IMPORT_CONST_PREFIX "__prism_const_"
#define SAN_IMPORT_STATE_PREFIX "__prism_state_"
#define SAN_IMPORT_REWARD_PREFIX "__prism_reward_"
SAN_API san_status san_import_prism_flags(const char *name, const char *text, size_t len,
                                          const san_define *defs, int ndefs,
                                          const char *header, unsigned flags, char **out,
                                          san_diag *d);
/* Is path a PRISM model by its name (.prism, .sm, .pm)? */
SAN_API int san_is_prism_path(const char *path);
/* Describe the templates and their flags. */
SAN_API void san_gen_help(FILE *out);

#ifdef __cplusplus
}
#endif
#endif
