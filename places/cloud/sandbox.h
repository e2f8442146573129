/* Daytona's sandbox objects as we read them, and the lifecycle one chat needs. */
#ifndef CONCH_CLOUD_SANDBOX_H
#define CONCH_CLOUD_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include <json-c/json.h>

#include "places/cloud/daytona.h"
#include "src/base/error.h"

#define CP_CLOUD_LABEL_OURS  "conch-place"
#define CP_CLOUD_LABEL_CHAT  "conch-chat"
#define CP_CLOUD_UNUSED_DAYS 30

struct cp_sandbox {
    char id[65]; /* checked: [A-Za-z0-9-]{1,64} (abuse case 116) */
    char state[32];
    char chat[256];       /* its conch-chat label, or "" */
    char toolbox[512];    /* toolboxProxyUrl as given; checked before any use */
    char reason[256];     /* errorReason, control bytes removed */
    bool ours;            /* carries our conch-place label */
    time_t last_activity; /* 0: unknown (never old enough to remove) */
};

/* Reads one Sandbox or SandboxListItem object. */
int cp_sandbox_from_json(json_object *o, struct cp_sandbox *out, cp_error_t *err);
/* Reads a list answer in either shape: a bare array (before 2026-05-24) or {items, nextCursor}.
 * *next_out is the cursor or NULL. Items that cannot be read are skipped. */
int cp_sandbox_list_parse(json_object *root, struct cp_sandbox **items_out, size_t *n_out,
                          char **next_out, cp_error_t *err);
/* An ISO-8601 time as Daytona writes it; 0 when it cannot be read. */
time_t cp_sandbox_time(const char *s);
/* Whether a state is one that only needs waiting for. */
bool cp_sandbox_state_transient(const char *state);

/* Lists our sandboxes (by the conch-place label); removes those unused for 30 days on the way;
 * *found_out: the one for chat (when chat is not NULL), *found_ok says whether there was one. */
int cp_sandbox_scan(struct cp_daytona *d, const char *chat, struct cp_sandbox *found_out,
                    bool *found_ok, size_t *removed_out, cp_error_t *err);
/* Makes the chat's sandbox; a sandbox that came to exist before a failure is removed again. */
int cp_sandbox_create(struct cp_daytona *d, const char *chat, struct cp_sandbox *out,
                      cp_error_t *err);
/* Starts it when stopped or archived and waits until it is started, within d->wait_ms. */
int cp_sandbox_ensure_started(struct cp_daytona *d, struct cp_sandbox *sb, cp_error_t *err);
int cp_sandbox_get(struct cp_daytona *d, const char *id, struct cp_sandbox *out, cp_error_t *err);
int cp_sandbox_delete(struct cp_daytona *d, const char *id, cp_error_t *err);

#endif
