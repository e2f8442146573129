/* The engine client: Docker or Podman through its HTTP API on a unix socket. Connecting, the
 * kind and freeing are in container.h, for the commands outside the place too. */
#ifndef CONCH_ENGINE_CLIENT_H
#define CONCH_ENGINE_CLIENT_H

#include <stdbool.h>

#include <curl/curl.h>
#include <json-c/json.h>

#include "places/container/container.h"
#include "src/base/error.h"

#define CP_ENGINE_AHEAD_MAX 8

/* What one engine does differently from the other, each named for what it does, so that the
 * code that meets a difference reads the difference and not the engine's name. Set once, with
 * the kind, where the engine is found (engine-kind.c); all false is Docker's behaviour. */
struct cp_engine_quirks {
    /* libpod's own routes answer beside the Docker API's, and are the ones asked where they
     * say more: a wait that takes a poll interval, an info that says whether it runs without
     * root, networks made and read with their own fields (a bridge's name, a gateway). */
    bool libpod_routes;
    /* A box's exit is recorded a few ms after its output ends (conmon reaps, then writes). */
    bool exit_recorded_late;
    /* An exited box's status is known before its network is torn down. Where it is not
     * (Docker's inspect and wait answer after the teardown), the die event, which comes
     * before, tells the exit sooner. */
    bool exit_known_before_teardown;
    /* A broken pipe to one of its helpers fails every call until the service is restarted. */
    bool broken_pipe_sticks;
    /* What lies under a tmpfs is copied into it unless the mount says notmpcopyup. */
    bool tmpfs_copies_up;
    /* Without root, keep-id maps the person's uid into the box; otherwise only root can
     * stand for the person there. */
    bool rootless_keep_id;
    /* A box joins another's network or PID namespace by its file (ns:PATH): container:ID ties
     * the two together (the other cannot be removed while the box exists). */
    bool joins_by_ns_path;
    /* Without root, its network namespaces live inside a namespace of their own, which a box
     * cannot join by path. */
    bool rootless_netns_apart;
    /* Its bridges are named with a trailing number (cni-podman0, podman1...). */
    bool numbered_bridges;
    /* A box's log stays with the engine's own driver: json-file's bounds are not asked. */
    bool own_log_driver;
    /* A box's standard input is closed when an attach to it ends: a second attach's input
     * never arrives. */
    bool stdin_closes_after_attach;
};

struct cp_engine {
    char *socket;     /* the unix socket that answered */
    const char *kind; /* "docker" or "podman", as the engine says of itself: for words */
    struct cp_engine_quirks quirks; /* what that kind does differently; set with kind */
    char version[16];               /* the negotiated API version, e.g. "1.41" */
    CURL *curl;                     /* kept for the connection's reuse */
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

/* The kind the engine's /_ping says (libpod_api: it sent a Libpod-Api-Version), with its
 * quirks (engine-kind.c, the one place an engine's kind is told apart). */
void cp_engine_identify(struct cp_engine *e, bool libpod_api);

/* An engine found before, by another process of ours (a job run behind): its socket, its kind
 * and the API version negotiated then. NULL when the record cannot be one. The caller's. */
struct cp_engine *cp_engine_recalled(const char *socket, const char *kind, const char *version);

/* How long a call may go on after a signal (0: as long as it takes), and a time-out for each
 * call (0: none). */
void cp_engine_set_patience(struct cp_engine *e, long signal_grace_ms, long timeout_ms);

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
