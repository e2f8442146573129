/* What a box is made from, and its create body: every row of DESIGN.md's seal table. */
#ifndef CONCH_BOX_SPEC_H
#define CONCH_BOX_SPEC_H

#include <stdbool.h>

#include <json-c/json.h>

struct cp_box_spec {
    const char *image;
    char *const *argv;   /* the command; NULL for a warm box's waiter */
    const char *workdir; /* real absolute path, seen at the same path */
    const char *layer;   /* the volume of the box's copy-on-write layer over it (the gate);
                          * NULL: the folder is bound directly (--unsealed) */
    unsigned uid, gid;   /* the user inside the box */
    const char *userns;  /* "keep-id" on rootless Podman, else NULL */
    bool sealed;
    bool
        tmpfs_copies_up; /* the engine copies a folder's contents into a tmpfs unless told not to */
    bool interactive;
    char **gits;            /* sealed: each .git folder or file, bound read-only on itself */
    char **env;             /* "K=V" entries beyond HOME and LANG; borrowed */
    char **protected_dirs;  /* absolute paths covered by a tmpfs */
    char **protected_files; /* absolute paths covered by an empty read-only file */
    const char *empty_file; /* the host's empty file used as that cover */
    char **settings;        /* .npmrc, .yarnrc.yml, pip.conf paths the box sees ... */
    char **copies;          /* ... as these keyless copies, read-only (same order) */
    const char *network;    /* sealed: the internal network, "container:ID" of the folder's
                             * network holder, or "none"; NULL: the engine's default */
    const char *no_dns;     /* sealed on a network: an address no resolver answers at (the
                             * sidecar's); with an empty /etc/resolv.conf, nothing resolves */
    long cpus;              /* min(2, host) */
    char **labels;          /* "k=v" entries; borrowed */
    const char *ca_bundle;  /* sealed: the image's roots and the sidecar's CA (egress-trust.h), */
    char **ca_paths;        /* bound read-only at these paths; NULL: the image's own */
    const char *cache;      /* sealed: the folder's cache volume (caches.h), or NULL */
    const char *git_dir;    /* the folder's git folder outside it (git-outside.h), or NULL, */
    const char *git_layer;  /* seen through this layer's volume, or NULL: bound (--unsealed) */
};

/* The POST /containers/create body; the caller owns it. */
json_object *cp_box_spec_json(const struct cp_box_spec *s);

/* Where every box finds the bundle, whatever its distribution; the variables name it. */
#define CP_BOX_CA_BUNDLE "/etc/ssl/certs/ca-certificates.crt"

/* The variables that point the usual clients at CP_BOX_CA_BUNDLE, "K=V", NULL-terminated. */
extern const char *const cp_box_ca_env[];

#endif
