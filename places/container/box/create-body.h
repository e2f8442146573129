/* The create body every box of ours starts from (create-body.c). */
#ifndef CONCH_CREATE_BODY_H
#define CONCH_CREATE_BODY_H

#include <stdbool.h>

#include <json-c/json.h>

/* What one box's body says beyond the seal's own rows; the rest is the caller's to add. */
struct cp_sealed_body_opts {
    const char *image;
    const char *user;        /* "uid:gid", never the image's own (which may be root) */
    char *const *entrypoint; /* NULL: the image's own; an empty vector: none */
    char *const *cmd;        /* NULL: none given */
    json_object *env;        /* the Env array, taken; NULL: only the image's */
    json_object *labels;     /* taken; NULL: none */
    long long pids;          /* PidsLimit */
    long long memory;        /* bytes, swap included */
    long cpus;               /* whole CPUs */
    bool init;               /* an init as PID 1, which reaps and passes signals on */
    const char *tmp;         /* /tmp's tmpfs options; NULL: an empty read-only one */
    bool tmpfs_copies_up;    /* the engine's quirk: a tmpfs is told not to copy the image's */
    bool auto_remove;        /* the engine removes it when it exits */
    bool keep_log;           /* the engine's log driver as it is set; else none */
    const char *network;     /* NetworkMode; NULL: the engine's default */
    bool no_ipv6;            /* on a sealed network (create-body.c says why) */
    const char *resolver;    /* the one resolver's address (Dns); NULL: the engine's */
};

/* The POST /containers/create body: the seal's rows (no capability, no new privileges, a
 * read-only root with empty read-only /run and /var/tmp, the limits, the user, no log unless
 * kept) and the options above. The
 * caller's; it adds its own members to it and to cp_sealed_host_config's object. */
json_object *cp_sealed_create_body(const struct cp_sealed_body_opts *o);

/* The body's HostConfig, borrowed. */
json_object *cp_sealed_host_config(json_object *body);

/* A JSON array of v's strings (NULL-terminated; NULL: empty); the caller's. */
json_object *cp_body_strv(char *const *v);

/* conch.work=1 and each "k=v" of more (NULL-terminated, may be NULL), which lets the sweep of
 * leftovers know a box as ours; the caller's. */
json_object *cp_body_work_labels(char *const *more);

/* A POST /volumes/create body for the engine's local driver (a mount of type with device and
 * options), labelled as ours like a box (cp_body_work_labels); the caller's. */
json_object *cp_local_volume_body(const char *name, const char *type, const char *device,
                                  const char *options, char *const *labels);

/* min(2, this computer's CPUs): a work box's CPU bound. */
long cp_sealed_cpus(void);

#endif
