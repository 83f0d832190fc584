/*
 * prism_map.c - the map of a PRISM export: what each of the model's
 * names became in the PRISM files (names.c says how they are chosen),
 * so that a property can be written, and a PRISM answer read back,
 * without guessing.  CSV, one line per name:
 *   kind,index,san,state,prism
 *   variable,0,P[1],,P_1          .sta's variable 0 is automaton P[1]
 *   label,2,P[1],idle,P_1_idle    .lab's label 2: P[1] in state idle
 *   reward,1,length,,length       BASE1.srew: result length
 *   throughput,3,serve,,serve     BASE3.srew: event serve's throughput
 * (index: the variable's position in .sta, the label's number in .lab,
 * the reward structure's number in the name of its file.)
 */
#include "base/services.h"
#include "solver/export/export_int.h"
#include "lang/model_int.h"

static void row(FILE *out, const char *kind, int index, const char *san, const char *state,
                const char *prism)
{
    fprintf(out, "%s,%d,", kind, index);
    san_csv_field(out, san);
    fputc(',', out);
    san_csv_field(out, state ? state : "");
    fputc(',', out);
    san_csv_field(out, prism);
    fputc('\n', out);
}

san_status san_export_prism_map(const san_model *m, FILE *out)
{
    exp_names nm;
    if (exp_names_make(m, &nm) != 0)
        return SAN_E_NOMEM;
    fputs("kind,index,san,state,prism\n", out);
    for (int a = 0; a < m->naut; a++)
        row(out, "variable", a, m->aut[a].name, NULL, nm.var[a]);
    for (int a = 0; a < m->naut; a++)
        for (int s = 0; s < m->aut[a].nstates; s++)
            row(out, "label", 2 + nm.first[a] + s, m->aut[a].name, m->aut[a].states[s],
                nm.label[nm.first[a] + s]);
    for (int k = 0; k < nm.nreward; k++) {
        const int w = nm.rew_what[k];
        if (w < m->nres)
            row(out, "reward", k + 1, m->res[w].name, NULL, nm.reward[k]);
        else
            row(out, "throughput", k + 1, m->ev[w - m->nres].name, NULL, nm.reward[k]);
    }
    exp_names_free(&nm);
    return ferror(out) ? SAN_E_IO : SAN_OK;
}
