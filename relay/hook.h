/* `relay hook`: Claude Code's PreToolUse hook in the binary itself (no jq, no shell pipeline).
 * It reads the hook's JSON call, judges the command the model wrote by the person's own Bash
 * rules (their settings files), and answers with the command swapped for the relay's runner,
 * or with a deny. Everything here is pure, for the fuzzer; the whole hook, cp_relay_hook, is
 * relay/relay.h's. */
#ifndef CONCH_RELAY_HOOK_H
#define CONCH_RELAY_HOOK_H
#include <json-c/json.h>
#include <stddef.h>
#include "src/base/error.h"
#include "src/base/strvec.h"

#define CP_HOOK_INPUT_MAX    (1024 * 1024) /* the hook's JSON call; past it: refused */
#define CP_HOOK_SETTINGS_MAX (1024 * 1024) /* one settings file */

enum cp_hook_verdict { CP_HOOK_DENY, CP_HOOK_ASK, CP_HOOK_ALLOW };

/* The person's Bash rules: each the text inside Bash(...), "" for the whole tool. */
struct cp_hook_rules {
    struct cp_strvec deny, ask, allow;
};
void cp_hook_rules_dispose(struct cp_hook_rules *r);

/* One call, parsed: borrowed strings of doc, which is the caller's. */
struct cp_hook_call {
    json_object *doc;
    json_object *tool_input;
    const char *command;
    const char *cwd;  /* NULL: not given */
    const char *mode; /* permission_mode; NULL: not given */
};
void cp_hook_call_dispose(struct cp_hook_call *c);

/* The call from len bytes (hostile: whatever reaches the hook's standard input). Refused: not
 * JSON, not the Bash tool, a command that is not a string or holds a NUL. */
int cp_hook_call_parse(const char *data, size_t len, struct cp_hook_call *out, cp_error_t *err);
/* One settings file's permissions.{deny,ask,allow} Bash rules added to r; path names it in
 * errors. A file that is not JSON is refused (its rules would be lost). */
int cp_hook_rules_add(struct cp_hook_rules *r, const char *path, const char *data, size_t len,
                      cp_error_t *err);
/* Whether a Bash rule's text matches command: "" and "*" every command, "PREFIX:*" the
   prefix as a whole word, '*' any run of characters, anything else the command exactly. */
bool cp_hook_rule_matches(const char *rule, const char *command);
/* The verdict on command: deny when a deny rule matches it or any part of it (split at ; & |
 * and newlines, leading NAME=value words dropped), else ask when an ask rule does, else allow
 * when mode is bypassPermissions or every part matches an allow rule (and nothing in it
 * substitutes another command), else ask. *rule_out: the deciding rule, or NULL. */
enum cp_hook_verdict cp_hook_judge(const struct cp_hook_rules *r, const char *command,
                                   const char *mode, const char **rule_out);
/* The answer's JSON line: the verdict, reason, and (unless deny) the tool input with its
   command replaced by swapped. The caller frees it. */
char *cp_hook_answer(const struct cp_hook_call *c, enum cp_hook_verdict v, const char *reason,
                     const char *swapped);
#endif
