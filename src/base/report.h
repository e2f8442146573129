/* The run report (`run --report FILE`, DESIGN.md "The run report"): one JSON object about one
 * run, collected while it happens and written once at its end, however it ends. Its schema is
 * docs/run-report.schema.json.
 *
 * The collector is process-wide so that a place or the mirror adds a fact with one line at the
 * point where it becomes true, without a report being handed down through every call. Until
 * cp_run_report_start is called every hook does nothing, so the hooks cost nothing in a run
 * without --report. */
#ifndef CONCH_RUN_REPORT_H
#define CONCH_RUN_REPORT_H

#include <stdbool.h>

#include <json-c/json.h>

#include "src/base/error.h"

/* Opens FILE's folder now (so that nothing done during the run can move where the report goes)
 * and starts the clock. Fails when the folder cannot be opened. */
int cp_run_report_start(const char *path, cp_error_t *err);
bool cp_run_report_on(void);

/* A top-level string: "place", "engine", "socket", "box", "sandbox", "host", "image",
 * "image_id", "workdir", "chat". NULL leaves it null. */
void cp_run_report_set(const char *key, const char *value);
void cp_run_report_sealed(bool sealed);
/* A top-level object the caller made ("seal", "allowlist"); the report takes it. */
void cp_run_report_take(const char *key, json_object *value);

/* How the work folder reached the place: "bound" (the container sees the folder itself) or
 * "mirrored" (a copy there, kept in step by the mirror). */
void cp_run_report_files_how(const char *how);
/* A remote place (ssh: "host", cloud: "sandbox") known: its id, sealed false (ADR 0106: its
 * network is its own), files mirrored, and the stage that found it ended. */
void cp_run_report_remote(const char *key, const char *id, const char *stage);
/* One file: kind is "sent", "back", "refused_send", "refused_back", "deleted_here" or
 * "deleted_there"; reason says why for a refusal (else NULL). */
void cp_run_report_file(const char *kind, const char *path, const char *reason);

/* A host the egress sidecar refused for this run's box, with its port and the proxy's reason. */
/* method and path: a request refused inside a tunnel the sidecar ended, else NULL. */
void cp_run_report_refused_host(const char *host, unsigned port, const char *reason,
                                const char *method, const char *path);

/* A sign-in the sidecar added to a request of this run's box: the host and the header's name,
 * never its value; each pair once. */
void cp_run_report_sign_in(const char *host, const char *header);

/* Ends a stage: the time since the previous stage ended (or the start) is added to name. */
void cp_run_report_stage(const char *name);

/* The exit status and whose it is: "command" (the command's own, or 128+N for a signal) or
 * "place" (125: the place failed; err, when not NULL, says how). */
void cp_run_report_exit(int status, const char *whose, const cp_error_t *err);

/* Writes the report atomically into the folder opened at start, then stops collecting.
 * Does nothing when no report was started. */
int cp_run_report_finish(cp_error_t *err);

/* The document as it stands (for tests); borrowed. */
json_object *cp_run_report_document(void);

#endif
