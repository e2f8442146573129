/* Handing the person's sign-ins to a folder's sidecar (issue 19). The sidecar keeps its standard
 * input open for its whole life; each sealed run attaches to it through the engine's API and
 * writes one line, the whole table read afresh for that run, then waits for the sidecar to say
 * on its standard output that the line with this run's id is in force, so the box's first
 * request already carries them. Only whoever may use the engine can attach: no box can, and
 * nothing goes through argv, a file or a log. On Podman, whose attach closes the sidecar's
 * standard input when it ends, the line goes to the same proxy through its second door, by an
 * exec of the sidecar's own binary (egress/sign-ins/sign-ins-door.h). The sidecar's keys (its CA,
 * the secret of the boxes' credentials, the upstream proxy: egress/egress.h) take the same
 * way, right after the sidecar starts: neither an attach's nor an exec's standard input is
 * kept in the engine's config or state, as the environment, argv and labels are. */
#ifndef CONCH_SIGN_IN_SEND_H
#define CONCH_SIGN_IN_SEND_H

#include <stdbool.h>
#include <stddef.h>

#include "places/container/engine/engine.h"
#include "places/container/seal/sidecar.h"
#include "src/base/error.h"

/* How long the sidecar has to say the table (or its keys) is in force. */
#define CP_SIGN_IN_ACK_MS 3000

/* Writes line (one JSON document ending in '\n', carrying "id": id) to the sidecar's standard
 * input and waits for "sign-ins ID" on its standard output. */
int cp_sidecar_send_sign_ins(struct cp_engine *e, const struct cp_sidecar *s, const char *line,
                             const char *id, cp_error_t *err);

/* How long a sidecar just started has to take its keys: its start, and on Podman its door's
 * binding, on a loaded computer. It only fails a run whose sidecar never takes them. */
#define CP_SIDECAR_KEYS_ACK_MS 30000

/* The same for any message: waits ms for "WORD ID" (the keys' is CP_EGRESS_KEYS_ANSWER). */
int cp_sidecar_send_line(struct cp_engine *e, const struct cp_sidecar *s, const char *line,
                         const char *word, const char *id, int ms, cp_error_t *err);

/* Whether the engine's multiplexed frames in data hold "sign-ins ID" as a whole line of
 * standard output (other streams and other runs' ids do not count). For the unit tests. */
bool cp_sign_in_ack_seen(const char *data, size_t len, const char *id);

#endif
