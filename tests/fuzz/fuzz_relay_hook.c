/* Fuzz target: the relay hook's JSON call (whatever reaches its standard input) and a settings
 * file's rules, in one input: the settings before the first NUL, the call after it. Checks
 * the hook's promises, not only that it does not crash: a deny rule that matches the whole
 * command always denies, allow never comes with a substitution outside bypassPermissions, and
 * the answer is one JSON line that keeps the tool input's other fields and carries the swap
 * unless it denies. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "relay/hook.h"
#include "src/base/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_answer(struct cp_hook_call *c, enum cp_hook_verdict v)
{
    char *line = cp_hook_answer(c, v, "why", "SWAPPED");
    json_object *doc = json_tokener_parse(line);
    json_object *h = NULL, *in = NULL;
    if (doc == NULL || strchr(line, '\n') != NULL ||
        !json_object_object_get_ex(doc, "hookSpecificOutput", &h))
        abort();
    bool has_input = json_object_object_get_ex(h, "updatedInput", &in);
    if (has_input != (v != CP_HOOK_DENY))
        abort();
    if (has_input &&
        strcmp(cp_json_str(in, "command") ? cp_json_str(in, "command") : "", "SWAPPED") != 0)
        abort();
    json_object_put(doc);
    free(line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    const char *nul = memchr(s, '\0', size);
    size_t slen = nul != NULL ? (size_t)(nul - s) : 0;
    const char *call = nul != NULL ? nul + 1 : s;
    size_t clen = size - (size_t)(call - s);
    struct cp_hook_rules rules = {0};
    cleanup_error cp_error_t e1 = NULL;
    if (slen > 0 && cp_hook_rules_add(&rules, "fuzz", s, slen, &e1) < 0 &&
        (e1 == NULL || e1->msg == NULL))
        abort();
    struct cp_hook_call c;
    cleanup_error cp_error_t e2 = NULL;
    if (cp_hook_call_parse(call, clen, &c, &e2) == 0) {
        const char *rule = NULL;
        enum cp_hook_verdict v = cp_hook_judge(&rules, c.command, c.mode, &rule);
        for (size_t i = 0; i < rules.deny.n; i++)
            if (cp_hook_rule_matches(rules.deny.v[i], c.command) && v != CP_HOOK_DENY)
                abort();
        bool bypass = c.mode != NULL && strcmp(c.mode, "bypassPermissions") == 0;
        if (v == CP_HOOK_ALLOW && !bypass && strstr(c.command, "$(") != NULL)
            abort();
        if (v == CP_HOOK_DENY && rule == NULL)
            abort();
        check_answer(&c, v);
    } else if (e2 == NULL || e2->msg == NULL) {
        abort();
    }
    cp_hook_call_dispose(&c);
    cp_hook_rules_dispose(&rules);
    return 0;
}
