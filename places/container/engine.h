/* The engine client: Docker or Podman through its HTTP API on a unix socket. Connecting, the
 * kind and freeing are in container.h, for the commands outside the place too. */
#ifndef CONCH_ENGINE_H
#define CONCH_ENGINE_H

#include <stdbool.h>

#include <curl/curl.h>
#include <json-c/json.h>

#include "places/container/container.h"
#include "src/base/error.h"

#define CP_ENGINE_AHEAD_MAX 8

struct cp_engine {
    char *socket;     /* the unix socket that answered */
    const char *kind; /* "docker" or "podman", as the engine says of itself */
    char version[16]; /* the negotiated API version, e.g. "1.41" */
    CURL *curl;       /* kept for the connection's reuse */
    /* Per call: how long a call may go on after a signal (cp_http_req), and a time-out;
     * 0 for none. A run sets a grace; its clean-up after a signal sets a time-out instead. */
    long signal_grace_ms;
    long timeout_ms;
    bool rootless_known; /* cp_engine_rootless asked once per connection */
    bool rootless;
    /* Docker's /info says which limits it cannot apply (rootless Docker on cgroup v1 says so
     * there, while its inspect still shows them): "pids, memory, CPUs", or empty. */
    char limits_unsupported[32];
    bool started; /* conch-place started this engine's service (engine-start.c) */
    /* GETs sent ahead (cp_engine_prefetch): their URL and the connection their answer comes
     * on. */
    struct cp_engine_ahead {
        char *url;
        int fd;
    } ahead[CP_ENGINE_AHEAD_MAX];
    size_t n_ahead;
};

/* Sends GET path (libpod: one of libpod's own routes) now, on a connection of its own, so that
 * several answers are made at once: the call of the same GET that comes next takes its answer.
 * Any other method drops what was sent ahead, so no answer read is older than our own last
 * change. A failure here is no failure: the call asks again. */
void cp_engine_prefetch(struct cp_engine *e, const char *path, bool libpod);
/* Drops what was sent ahead and not taken, at the end of the step that sent it. */
void cp_engine_prefetch_drop(struct cp_engine *e);

/* Every engine that answers, in that order; a NULL-terminated vector, the caller's. */
int cp_engine_connect_all(const char *want, struct cp_engine ***out, cp_error_t *err);
/* One socket: ping it and negotiate; CP_ERR_UNREACHABLE when nothing answers there. */
int cp_engine_open(const char *socket, struct cp_engine **out, cp_error_t *err);
void cp_engines_free(struct cp_engine **v);
void cp_cleanup_enginesp(struct cp_engine ***v);
#define cleanup_engines __attribute__((cleanup(cp_cleanup_enginesp)))

/* One API call; path is after the version prefix ("/containers/create?name=x").
 * body (borrowed) is sent as JSON when not NULL. A non-2xx status is an error carrying the
 * engine's own message, with 404 as CP_ERR_NOT_FOUND. *reply_out (may be NULL) is the caller's. */
int cp_engine_call(struct cp_engine *e, const char *method, const char *path, json_object *body,
                   json_object **reply_out, cp_error_t *err);

/* The same, but the HTTP status comes back instead of being judged (for 304, 404, 409). */
int cp_engine_call_status(struct cp_engine *e, const char *method, const char *path,
                          json_object *body, long *status_out, json_object **reply_out,
                          cp_error_t *err);

/* A GET whose body is not JSON (an archive): the body as it came, up to the reply bound, and
 * the status unjudged. *body_out is the caller's. */
int cp_engine_get_bytes(struct cp_engine *e, const char *path, long *status_out, char **body_out,
                        size_t *len_out, cp_error_t *err);

/* Streams a raw body (a tar) to path; the reply's JSON lines are checked for errors. */
int cp_engine_upload(struct cp_engine *e, const char *path, const char *content_type,
                     long (*reader)(void *ctx, char *buf, size_t len), void *ctx, long timeout_ms,
                     cp_error_t *err);

/* A call to libpod's own routes (Podman only), with the status unjudged as above. */
int cp_engine_libpod_call(struct cp_engine *e, const char *method, const char *path,
                          json_object *body, long *status_out, json_object **reply_out,
                          cp_error_t *err);

/* Whether the engine runs without root; asked once per connection. */
int cp_engine_rootless(struct cp_engine *e, bool *out, cp_error_t *err);

/* "podman on SOCKET", with ", without root" and ", started by conch-place" where they hold. */
char *cp_engine_describe(struct cp_engine *e);

/* The candidate sockets in discovery order for want; the caller frees the vector. */
char **cp_engine_candidates(const char *want);

/* Percent-encodes a query value. */
char *cp_engine_escape(const char *s);

#endif
