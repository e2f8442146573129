/* The hook's pure half: the call and the settings files parsed (json-c, bounded, hostile), the
 * person's Bash rules matched against the command the model wrote, and the answer built. The
 * rules are matched here, on the original command, because Claude Code checks its own only
 * against the swapped runner, which none of them names (measured with Claude Code 2.1.197). */
#include "config.h"

#include <ctype.h>
#include <string.h>

#include "relay/hook.h"
#include "src/base/json.h"
#include "src/base/util.h"

void cp_hook_rules_dispose(struct cp_hook_rules *r)
{
    cp_strvec_dispose(&r->deny);
    cp_strvec_dispose(&r->ask);
    cp_strvec_dispose(&r->allow);
}

void cp_hook_call_dispose(struct cp_hook_call *c)
{
    if (c->doc != NULL)
        json_object_put(c->doc);
    *c = (struct cp_hook_call){0};
}

/* The string at key of o, whole: NULL when absent, not a string, or holding a NUL. */
static const char *whole_string(json_object *o, const char *key)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    const char *s = json_object_get_string(v);
    return strlen(s) == (size_t)json_object_get_string_len(v) ? s : NULL;
}

int cp_hook_call_parse(const char *data, size_t len, struct cp_hook_call *out, cp_error_t *err)
{
    *out = (struct cp_hook_call){0};
    if (cp_json_parse(data, len, "the hook's input", &out->doc, err) < 0)
        return cp_error_code(err);
    if (!json_object_is_type(out->doc, json_type_object))
        return cp_error_make(err, CP_ERR_USAGE, 0, "the hook's input is not a JSON object");
    const char *tool = whole_string(out->doc, "tool_name");
    if (tool == NULL || strcmp(tool, "Bash") != 0)
        return cp_error_make(err, CP_ERR_USAGE, 0,
                             "the relay's hook takes the Bash tool only, not '%s'; register "
                             "it with \"matcher\": \"Bash\"",
                             tool != NULL ? tool : "(none)");
    if (!json_object_object_get_ex(out->doc, "tool_input", &out->tool_input) ||
        !json_object_is_type(out->tool_input, json_type_object) ||
        (out->command = whole_string(out->tool_input, "command")) == NULL)
        return cp_error_make(err, CP_ERR_USAGE, 0,
                             "the hook's input has no tool_input.command string");
    out->cwd = whole_string(out->doc, "cwd");
    out->mode = whole_string(out->doc, "permission_mode");
    return 0;
}

/* Bash(...) of one rule list into v; other tools' rules are not ours. */
static void add_list(struct cp_strvec *v, json_object *perms, const char *key)
{
    json_object *a = NULL;
    if (!json_object_object_get_ex(perms, key, &a) || !json_object_is_type(a, json_type_array))
        return;
    for (size_t i = 0; i < json_object_array_length(a); i++) {
        json_object *e = json_object_array_get_idx(a, i);
        if (!json_object_is_type(e, json_type_string))
            continue;
        const char *s = json_object_get_string(e);
        size_t n = strlen(s);
        if (n != (size_t)json_object_get_string_len(e))
            continue;
        if (strcmp(s, "Bash") == 0)
            cp_strvec_push(v, "");
        else if (n >= 6 && strncmp(s, "Bash(", 5) == 0 && s[n - 1] == ')')
            cp_strvec_pushf(v, "%.*s", (int)(n - 6), s + 5);
    }
}

int cp_hook_rules_add(struct cp_hook_rules *r, const char *path, const char *data, size_t len,
                      cp_error_t *err)
{
    cleanup_json json_object *doc = NULL;
    if (cp_json_parse(data, len, path, &doc, err) < 0) {
        cp_error_hint(err, "Fix that settings file: its permission rules cannot be kept.");
        return cp_error_code(err);
    }
    json_object *perms = NULL;
    if (!json_object_is_type(doc, json_type_object) ||
        !json_object_object_get_ex(doc, "permissions", &perms) ||
        !json_object_is_type(perms, json_type_object))
        return 0;
    add_list(&r->deny, perms, "deny");
    add_list(&r->ask, perms, "ask");
    add_list(&r->allow, perms, "allow");
    return 0;
}

/* '*' as any run of characters, the rest as it is (the classic two-pointer walk: linear in
 * practice, no recursion). */
static bool glob(const char *p, const char *s)
{
    const char *star = NULL, *resume = NULL;
    while (*s != '\0') {
        if (*p == '*') {
            star = p++;
            resume = s;
        } else if (*p == *s) {
            p++;
            s++;
        } else if (star != NULL) {
            p = star + 1;
            s = ++resume;
        } else {
            return false;
        }
    }
    while (*p == '*')
        p++;
    return *p == '\0';
}

bool cp_hook_rule_matches(const char *rule, const char *command)
{
    size_t n = strlen(rule);
    if (n == 0 || strcmp(rule, "*") == 0)
        return true;
    if (n >= 2 && strcmp(rule + n - 2, ":*") == 0) {
        size_t p = n - 2;
        return strncmp(command, rule, p) == 0 &&
               (command[p] == '\0' || command[p] == ' ' || command[p] == '\t');
    }
    if (strchr(rule, '*') == NULL)
        return strcmp(rule, command) == 0;
    /* "ls *": the bare "ls" too, as Claude Code takes a trailing " *" */
    if (n >= 2 && strcmp(rule + n - 2, " *") == 0 && strncmp(command, rule, n - 2) == 0 &&
        command[n - 2] == '\0')
        return true;
    return glob(rule, command);
}

static bool any_matches(const struct cp_strvec *v, const char *part, const char **rule_out)
{
    for (size_t i = 0; i < v->n; i++)
        if (cp_hook_rule_matches(v->v[i], part)) {
            *rule_out = v->v[i];
            return true;
        }
    return false;
}

static bool blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Past leading blanks and NAME=value words. */
static const char *past_assignments(const char *s)
{
    for (;;) {
        while (blank(*s))
            s++;
        const char *w = s;
        if (!isalpha((unsigned char)*w) && *w != '_')
            return s;
        while (isalnum((unsigned char)*w) || *w == '_')
            w++;
        if (*w != '=')
            return s;
        while (*w != '\0' && !blank(*w))
            w++;
        s = w;
    }
}

/* part without a leading wrapper word (exec, env, nice, ...) and a path on its first word:
 * what a deny or ask rule is also tried against. */
static const char *bare(const char *s)
{
    static const char *const wrappers[] = {"exec",  "command", "env",     "nice",
                                           "nohup", "time",    "builtin", "sudo"};
    for (int again = 1; again;) {
        again = 0;
        s = past_assignments(s);
        for (size_t i = 0; i < ARRAY_SIZE(wrappers); i++) {
            size_t n = strlen(wrappers[i]);
            if (strncmp(s, wrappers[i], n) == 0 && blank(s[n])) {
                s += n;
                again = 1;
            }
        }
    }
    const char *end = s;
    while (*end != '\0' && !blank(*end))
        end++;
    const char *slash = memrchr(s, '/', (size_t)(end - s));
    return slash != NULL && slash + 1 < end ? slash + 1 : s;
}

/* The command cut at every separator a shell might take (; & | newline, parentheses, back
 * quotes), quotes not honoured: a part too many only makes a deny or an ask likelier. */
static void split(const char *command, struct cp_strvec *out)
{
    const char *p = command;
    while (*p != '\0') {
        size_t n = strcspn(p, ";&|\n\r()`{}");
        char *part = xasprintf("%.*s", (int)n, p);
        char *t = cp_trim_blanks(part);
        if (*t != '\0')
            cp_strvec_push(out, t);
        free(part);
        p += n;
        if (*p != '\0')
            p++;
    }
}

static bool substitutes(const char *command)
{
    return strstr(command, "$(") != NULL || strchr(command, '`') != NULL ||
           strstr(command, "<(") != NULL || strstr(command, ">(") != NULL;
}

/* Whether a rule of v matches the command or any part of it, bare or not. */
static bool part_matches(const struct cp_strvec *v, const char *command,
                         const struct cp_strvec *parts, const char **rule_out)
{
    if (any_matches(v, command, rule_out))
        return true;
    for (size_t i = 0; i < parts->n; i++)
        if (any_matches(v, past_assignments(parts->v[i]), rule_out) ||
            any_matches(v, bare(parts->v[i]), rule_out))
            return true;
    return false;
}

enum cp_hook_verdict cp_hook_judge(const struct cp_hook_rules *r, const char *command,
                                   const char *mode, const char **rule_out)
{
    *rule_out = NULL;
    cleanup_strvec struct cp_strvec parts = {0};
    split(command, &parts);
    if (part_matches(&r->deny, command, &parts, rule_out))
        return CP_HOOK_DENY;
    if (part_matches(&r->ask, command, &parts, rule_out))
        return CP_HOOK_ASK;
    if (mode != NULL && strcmp(mode, "bypassPermissions") == 0)
        return CP_HOOK_ALLOW;
    if (any_matches(&r->allow, command, rule_out))
        return substitutes(command) ? CP_HOOK_ASK : CP_HOOK_ALLOW;
    if (parts.n == 0 || substitutes(command))
        return CP_HOOK_ASK;
    for (size_t i = 0; i < parts.n; i++)
        if (!any_matches(&r->allow, past_assignments(parts.v[i]), rule_out)) {
            *rule_out = NULL;
            return CP_HOOK_ASK;
        }
    return CP_HOOK_ALLOW;
}

char *cp_hook_answer(const struct cp_hook_call *c, enum cp_hook_verdict v, const char *reason,
                     const char *swapped)
{
    static const char *const names[] = {"deny", "ask", "allow"};
    cleanup_json json_object *top = json_object_new_object();
    json_object *h = json_object_new_object();
    json_object_object_add(top, "hookSpecificOutput", h);
    json_object_object_add(h, "hookEventName", json_object_new_string("PreToolUse"));
    json_object_object_add(h, "permissionDecision", json_object_new_string(names[v]));
    json_object_object_add(h, "permissionDecisionReason", json_object_new_string(reason));
    if (v != CP_HOOK_DENY) {
        json_object_object_add(c->tool_input, "command", json_object_new_string(swapped));
        json_object_object_add(h, "updatedInput", json_object_get(c->tool_input));
    }
    return xstrdup(json_object_to_json_string_ext(top, JSON_C_TO_STRING_PLAIN |
                                                           JSON_C_TO_STRING_NOSLASHESCAPE));
}
