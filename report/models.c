/*
 * models.c - what a page shows of the models an analysis solved: the
 * model file it names, or the text each generator line of its report
 * writes (san_gen), and which subcommand wrote a report read back
 * (san report --from-json).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "san/gen.h"
#include "san/report.h"

/* Every distinct "command": "..." of a report, in order: the generator
 * line of each variant (sweep rows, compare models, grains, the chosen
 * buffer of each size-buffer configuration).  A line with an escape in
 * its JSON string is left out (a generator line has none).  The count,
 * lines malloc'd into *out; -1 when out of memory. */
static int report_commands(const char *json, char ***out)
{
    static const char key[] = "\"command\": \"";
    char **v = NULL;
    int n = 0;
    for (const char *p = json ? strstr(json, key) : NULL; p; p = strstr(p, key)) {
        p += strlen(key);
        const char *e = strchr(p, '"');
        if (!e)
            break;
        int seen = memchr(p, '\\', e - p) != NULL || e == p;
        for (int i = 0; i < n && !seen; i++)
            seen = strlen(v[i]) == (size_t)(e - p) && !memcmp(v[i], p, e - p);
        if (!seen) {
            char **g = realloc(v, (n + 1) * sizeof *g);
            if (!g || !(g[n] = malloc(e - p + 1))) {
                v = g ? g : v;
                for (int i = 0; i < n; i++)
                    free(v[i]);
                free(v);
                return -1;
            }
            memcpy(g[n], p, e - p);
            g[n][e - p] = '\0';
            v = g;
            n++;
        }
        p = e;
    }
    *out = v;
    return n;
}

/* "san gen" and the words of w, one blank apart. */
static char *gen_line(char *const *w, int n)
{
    size_t l = sizeof "san gen";
    for (int i = 0; i < n; i++)
        l += strlen(w[i]) + 1;
    char *s = malloc(l);
    if (s) {
        strcpy(s, "san gen");
        for (int i = 0; i < n; i++)
            strcat(strcat(s, " "), w[i]);
    }
    return s;
}

/* The .san text of a generator line ("ms --mode async --slaves 3", or
 * "model.san -D K=3": the file's text), with its name in the page.  The
 * template is the library's (san_gen), given the line's words only: a
 * report's lines are template flags, never san gen's own -o or --size
 * (a report read back with --from-json is the user's file: its lines
 * write nothing). */
static char *model_of_line(const char *line, char **name)
{
    *name = NULL;
    char *copy = strdup(line);
    if (!copy)
        return NULL;
    char *w[62];
    int n = 0;
    for (char *t = strtok(copy, " "); t && n < 61; t = strtok(NULL, " "))
        w[n++] = t;
    w[n] = NULL;
    char *text = NULL;
    if (n > 0 && access(w[0], R_OK) == 0) {     /* a model file and its -D values */
        size_t len;
        text = san_read_file(w[0], &len);
        *name = text ? strdup(line) : NULL;
    } else if (n > 0) {
        char err[512], *size = NULL;
        if (san_gen(n, w, &text, &size, err, sizeof err) != SAN_OK || !text || !*text) {
            free(text);
            text = NULL;
        } else
            *name = gen_line(w, n);
        free(size);
    }
    free(copy);
    if (text && !*name) {
        free(text);
        text = NULL;
    }
    return text;
}

static void add_model(san_report_models *r, char *name, char *text)
{
    if (name && text && r->n < SAN_REPORT_MAX_MODELS) {
        r->name[r->n] = name;
        r->text[r->n++] = text;
    } else {
        free(name);
        free(text);
    }
}

/* Past SAN_REPORT_MAX_TEXTS lines: the list of every line, as a model
 * of its own (the page says which). */
static void add_line_list(san_report_models *r, char *const *line, int n)
{
    size_t l = 1;
    for (int i = 0; i < n; i++)
        l += strlen(line[i]) + 9;
    char *list = malloc(l), *name = malloc(96);
    if (list && name) {
        list[0] = '\0';
        for (int i = 0; i < n; i++)
            strcat(strcat(strcat(list, "san gen "), line[i]), "\n");
        snprintf(name, 96, "the generator lines of the %d variants (each writes its model)", n);
    }
    add_model(r, name, list);
}

void san_report_find_models(const san_study_analysis *a, const char *json, san_report_models *r)
{
    memset(r, 0, sizeof *r);
    if (a && a->nargs > 0 && a->args[0][0] != '-' && access(a->args[0], R_OK) == 0) {
        size_t len;
        char *text = san_read_file(a->args[0], &len);
        add_model(r, text ? strdup(a->args[0]) : NULL, text);
        return;
    }
    char **line = NULL;
    int n = report_commands(json, &line);
    if (n < 0)
        n = 0;      /* out of memory: no model shown */
    int shown = n <= SAN_REPORT_MAX_TEXTS ? n : 1;
    for (int i = 0; i < shown; i++) {
        char *name, *text = model_of_line(line[i], &name);
        if (text && n > shown) {
            char *g = realloc(name, strlen(name) + 96);
            if (g) {
                name = g;
                snprintf(name + strlen(name), 96, " (the first of %d variants; their lines below)", n);
            }
        }
        add_model(r, name, text);
    }
    if (n > shown)
        add_line_list(r, line, n);
    for (int i = 0; i < n; i++)
        free(line[i]);
    free(line);
}

void san_report_models_free(san_report_models *r)
{
    for (int k = 0; k < r->n; k++) {
        free(r->name[k]);
        free(r->text[k]);
    }
    memset(r, 0, sizeof *r);
}

const char *san_report_kind(const char *json)
{
    static const char *const kinds[][3] = {
        { "sweep", "\"sweep\": ", "\"rows\": [" },
        { "size-buffer", "\"within\": ", "\"configurations\": [" },
        { "grain", "\"by\": ", "\"configurations\": [" },
        { "compare", "\"differences\": ", "\"models\": [" },
    };
    if (!json || !strstr(json, "\"schema\": \"san-output/"))
        return NULL;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strstr(json, kinds[i][1]) && strstr(json, kinds[i][2]))
            return kinds[i][0];
    return NULL;
}
