/* yarnPath (.yarnrc.yml), yarn-path (Yarn 1's .yarnrc) and the pnpmfile an .npmrc names:
 * programs Yarn or pnpm run at their next command, read from the rc files of the work folder
 * and of every folder above it. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "src/base/git-hooks/git-hooks-int.h"
#include "src/base/git-hooks/git-hooks.h"
#include "src/base/strvec.h"
#include "src/base/util.h"

char *cp_yarnrc_yarn_path(const char *text, size_t len)
{
    yaml_parser_t parser;
    yaml_document_t doc = {0};
    char *found = NULL;
    if (!yaml_parser_initialize(&parser))
        return NULL;
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (yaml_parser_load(&parser, &doc)) {
        yaml_node_t *root = yaml_document_get_root_node(&doc);
        for (yaml_node_pair_t *p =
                 root && root->type == YAML_MAPPING_NODE ? root->data.mapping.pairs.start : NULL;
             p != NULL && p < root->data.mapping.pairs.top; p++) {
            yaml_node_t *k = yaml_document_get_node(&doc, p->key);
            yaml_node_t *v = yaml_document_get_node(&doc, p->value);
            if (k && v && k->type == YAML_SCALAR_NODE && v->type == YAML_SCALAR_NODE &&
                strcmp((const char *)k->data.scalar.value, "yarnPath") == 0) {
                free(found);
                found = xstrdup((const char *)v->data.scalar.value);
            }
        }
        yaml_document_delete(&doc);
    }
    yaml_parser_delete(&parser);
    return found;
}

/* Yarn 1's .yarnrc: a line `yarn-path "x"` or `yarn-path x`. */
static char *yarnrc_yarn_path(const char *text)
{
    char *found = NULL;
    for (const char *p = text; *p != '\0';) {
        size_t n = strcspn(p, "\n");
        const char *q = p + strspn(p, " \t");
        if (strncmp(q, "yarn-path", 9) == 0 && (q[9] == ' ' || q[9] == '\t')) {
            q += 9 + strspn(q + 9, " \t\"");
            size_t vn = strcspn(q, "\"\r\n");
            free(found);
            found = vn > 0 ? xasprintf("%.*s", (int)vn, q) : NULL;
        }
        p += n + (p[n] == '\n');
    }
    return found;
}

/* An .npmrc's (ini) last `pnpmfile=` or `global-pnpmfile=` value, quotes taken off. */
static char *npmrc_pnpmfile(const char *text)
{
    char *found = NULL;
    for (const char *p = text; *p != '\0';) {
        size_t n = strcspn(p, "\n");
        const char *q = p + strspn(p, " \t");
        size_t k = strncmp(q, "pnpmfile", 8) == 0           ? 8
                   : strncmp(q, "global-pnpmfile", 15) == 0 ? 15
                                                            : 0;
        const char *eq = k > 0 ? q + k + strspn(q + k, " \t") : NULL;
        if (eq != NULL && *eq == '=') {
            eq += 1 + strspn(eq + 1, " \t\"'");
            size_t vn = strcspn(eq, "\"'\r\n");
            while (vn > 0 && (eq[vn - 1] == ' ' || eq[vn - 1] == '\t'))
                vn--;
            free(found);
            found = vn > 0 ? xasprintf("%.*s", (int)vn, eq) : NULL;
        }
        p += n + (p[n] == '\n');
    }
    return found;
}

/* Yarn reads the rc files of the folder it runs in and of every folder above it, and pnpm the
 * .npmrc files; the path each names (yarnPath, yarn-path, pnpmfile) runs at the next yarn
 * command or pnpm install (--ignore-scripts too), relative to that file's folder. */
void cp_git_hooks_add_yarn(struct cp_strvec *out, const char *workdir)
{
    cleanup_free char *dir = xstrdup(workdir);
    for (;;) {
        static const char *const rcs[] = {".yarnrc.yml", ".yarnrc", ".npmrc", NULL};
        for (size_t i = 0; rcs[i] != NULL; i++) {
            size_t len = 0;
            cleanup_free char *rc = xasprintf("%s/%s", dir, rcs[i]);
            cleanup_free char *text = cp_git_hooks_read_text(rc, &len);
            cleanup_free char *v = text == NULL ? NULL
                                   : i == 0     ? cp_yarnrc_yarn_path(text, len)
                                   : i == 1     ? yarnrc_yarn_path(text)
                                                : npmrc_pnpmfile(text);
            cleanup_free char *abs = v == NULL || v[0] == '\0' ? NULL
                                     : v[0] == '/'             ? xstrdup(v)
                                                               : xasprintf("%s/%s", dir, v);
            if (abs != NULL)
                cp_git_hooks_add_inside(out, abs, workdir, false);
        }
        char *slash = strrchr(dir, '/');
        if (slash == NULL || slash == dir)
            return;
        *slash = '\0';
    }
}
