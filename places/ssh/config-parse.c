/* The ssh_config reader: lines, keywords, Host blocks and Include, in openssh's manner. */
#include "config.h"

#include <ctype.h>
#include <string.h>

#include "places/ssh/config-parse.h"
#include "src/base/log.h"
#include "src/base/util.h"

/* Splits "Keyword value", "Keyword=value" or "Keyword = value"; 0 with no keyword for a blank
 * line or a comment. */
static int split_line(struct ssh_parse *p, char *text, struct ssh_line *l, cp_error_t *err)
{
    size_t end = strlen(text);
    while (end > 0 && strchr(" \t\r\n\f", text[end - 1]) != NULL)
        text[--end] = '\0';
    char *s = text + strspn(text, " \t");
    if (*s == '\0' || *s == '#')
        return 0;
    size_t klen = strcspn(s, " \t=");
    l->keyword = strndup(s, klen);
    if (l->keyword == NULL)
        abort();
    for (char *c = l->keyword; *c != '\0'; c++)
        *c = (char)tolower((unsigned char)*c);
    s += klen;
    s += strspn(s, " \t");
    if (*s == '=')
        s++;
    s += strspn(s, " \t");
    if (*s == '\0')
        return ssh_parse_error(p, CP_ERR_USAGE, err, "no argument after keyword \"%s\"",
                               l->keyword);
    l->rest = s;
    if (cp_ssh_split_args(s, CP_SSH_MAX_ARGS, &l->argv, &l->argc) < 0)
        return ssh_parse_error(p, CP_ERR_USAGE, err, "invalid quotes or too many arguments");
    return 0;
}

static void line_dispose(struct ssh_line *l)
{
    free(l->keyword);
    cp_strv_free(l->argv);
}

/* ---- Host and Include: the reader's own keywords, which steer what it reads ---- */

static void add_name(struct ssh_parse *p, const char *name)
{
    if (cp_ssh_alias_check(name, NULL) < 0 || p->names->n >= CP_SSH_MAX_HOSTS_LISTED ||
        cp_strvec_has(p->names, name))
        return;
    cp_strvec_push(p->names, name);
}

static int kw_host(struct ssh_parse *p, const struct ssh_line *l)
{
    bool active = false, literal = false;
    for (size_t i = 0; i < l->argc; i++) {
        const char *pat = l->argv[i];
        bool negated = pat[0] == '!';
        if (p->alias == NULL) {
            if (!negated && !cp_ssh_has_wildcard(pat))
                add_name(p, pat);
            continue;
        }
        if (p->nevermatch || !cp_ssh_pattern_match(pat + negated, p->alias))
            continue;
        if (negated) {
            active = literal = false;
            break;
        }
        active = true;
        literal = literal || !cp_ssh_has_wildcard(pat);
    }
    p->active = active;
    if (literal)
        p->h->literal = true;
    return 0;
}

/* The path an Include argument names: absolute, ~/..., or relative to ~/.ssh. */
static int include_path(struct ssh_parse *p, const char *arg, char **out, cp_error_t *err)
{
    if (strpbrk(arg, "%$") != NULL)
        return ssh_parse_error(p, CP_ERR_USAGE, err,
                               "Include \"%s\": tokens and environment variables are not "
                               "expanded in Include paths",
                               arg);
    if (arg[0] == '/')
        *out = xstrdup(arg);
    else if (arg[0] == '~' && arg[1] == '/')
        *out = xasprintf("%s%s", p->fs->home, arg + 1);
    else if (arg[0] == '~')
        return ssh_parse_error(p, CP_ERR_USAGE, err, "Include \"%s\": only ~/ is understood", arg);
    else
        *out = xasprintf("%s/.ssh/%s", p->fs->home, arg);
    return 0;
}

static int include_one(struct ssh_parse *p, const char *arg, cp_error_t *err)
{
    cleanup_free char *pattern = NULL;
    if (include_path(p, arg, &pattern, err) < 0)
        return cp_error_code(err);
    cleanup_strv char **paths = NULL;
    if (p->fs->glob(p->fs->ctx, pattern, CP_SSH_MAX_FILES, &paths, err) < 0)
        return cp_error_wrap(err, "%s:%d: Include %s", p->file, p->line, arg);
    bool nevermatch = p->nevermatch || !p->active;
    bool active = p->active;
    for (size_t i = 0; paths[i] != NULL; i++) {
        cp_error_t inner = NULL;
        int r = ssh_parse_file(p, paths[i], nevermatch, &inner);
        p->active = active;
        if (r == CP_ERR_NOT_FOUND) {
            cp_error_free(&inner);
            continue;
        }
        if (r < 0) {
            if (err != NULL && *err == NULL)
                *err = steal_pointer(&inner);
            cp_error_free(&inner);
            return r;
        }
    }
    return 0;
}

static int kw_include(struct ssh_parse *p, const struct ssh_line *l, cp_error_t *err)
{
    for (size_t i = 0; i < l->argc; i++)
        if (include_one(p, l->argv[i], err) < 0)
            return cp_error_code(err);
    return 0;
}

static bool unknown_ignored(struct ssh_parse *p, const char *keyword)
{
    const char *list = p->h->ignore_unknown;
    return list != NULL && cp_ssh_pattern_list_match(list, keyword) == 1;
}

static int dispatch(struct ssh_parse *p, const struct ssh_line *l, cp_error_t *err)
{
    const struct ssh_keyword *kw = ssh_keyword_find(l->keyword);
    if (kw == NULL) {
        if (unknown_ignored(p, l->keyword))
            return 0;
        return ssh_parse_error(p, CP_ERR_USAGE, err,
                               "unknown keyword \"%s\" (list it in IgnoreUnknown to skip it)",
                               l->keyword);
    }
    if (kw->cls == KW_REFUSED || (kw->cls == KW_REFUSED_IF_APPLIES && kw->handle == NULL &&
                                  p->active && !p->nevermatch && p->alias != NULL))
        return ssh_parse_error(p, CP_ERR_USAGE, err, "%s", kw->why);
    if (kw->cls == KW_READER)
        return strcmp(kw->name, "host") == 0 ? kw_host(p, l) : kw_include(p, l, err);
    if (kw->handle == NULL)
        return 0;
    return kw->handle(p, kw, l, err);
}

static int parse_line(struct ssh_parse *p, char *text, cp_error_t *err)
{
    struct ssh_line l = {0};
    int r = split_line(p, text, &l, err);
    if (r == 0 && l.keyword != NULL)
        r = dispatch(p, &l, err);
    line_dispose(&l);
    return r;
}

static int parse_text(struct ssh_parse *p, char *data, size_t len, cp_error_t *err)
{
    p->line = 0;
    for (size_t start = 0; start < len;) {
        char *nl = memchr(data + start, '\n', len - start);
        size_t end = nl != NULL ? (size_t)(nl - data) : len;
        p->line++;
        if (memchr(data + start, '\0', end - start) != NULL)
            return ssh_parse_error(p, CP_ERR_USAGE, err, "a NUL byte in the line");
        if (end - start > CP_SSH_MAX_LINE)
            return ssh_parse_error(p, CP_ERR_TOO_BIG, err, "line longer than %d bytes",
                                   CP_SSH_MAX_LINE);
        data[end] = '\0';
        if (parse_line(p, data + start, err) < 0)
            return cp_error_code(err);
        start = end + 1;
    }
    return 0;
}

int ssh_parse_file(struct ssh_parse *p, const char *path, bool nevermatch, cp_error_t *err)
{
    if (p->depth > CP_SSH_MAX_INCLUDE_DEPTH)
        return ssh_parse_error(p, CP_ERR_USAGE, err,
                               "Includes nested deeper than %d (an Include loop?)",
                               CP_SSH_MAX_INCLUDE_DEPTH);
    if (++p->files_read > CP_SSH_MAX_FILES)
        return ssh_parse_error(p, CP_ERR_TOO_BIG, err, "more than %d config files included",
                               CP_SSH_MAX_FILES);
    cleanup_free char *data = NULL;
    size_t len = 0;
    int r = p->fs->read(p->fs->ctx, path, &data, &len, err);
    if (r < 0 && r != CP_ERR_NOT_FOUND && p->file != NULL)
        return cp_error_wrap(err, "%s:%d: Include", p->file, p->line);
    if (r < 0)
        return r;
    struct ssh_parse saved = *p;
    p->file = path;
    p->active = !nevermatch;
    p->nevermatch = nevermatch;
    p->depth++;
    r = parse_text(p, data, len, err);
    p->file = saved.file;
    p->line = saved.line;
    p->active = saved.active;
    p->nevermatch = saved.nevermatch;
    p->depth = saved.depth;
    return r;
}
