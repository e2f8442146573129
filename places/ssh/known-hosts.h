/* The host-key check against known_hosts, read by our own parser: libssh2's reader rejects a
 * whole file for one line it cannot parse, and knows neither @revoked nor @cert-authority. */
#ifndef CONCH_KNOWN_HOSTS_H
#define CONCH_KNOWN_HOSTS_H

#include <stddef.h>

#include "src/base/error.h"

#define CP_KH_MAX_FILE_SIZE (16 * 1024 * 1024)

enum cp_kh_result {
    CP_KH_UNKNOWN = 0, /* no line names the host with this key */
    CP_KH_MATCH,       /* a line names the host with this very key */
    CP_KH_CHANGED,     /* lines name the host, with another key of the same type */
    CP_KH_REVOKED,     /* a @revoked line holds this key */
    CP_KH_CA_ONLY,     /* only a @cert-authority line names the host: unsupported */
};

struct cp_kh_verdict {
    enum cp_kh_result result;
    char where[512];       /* "file:line" of the line that decided, or "" */
    char known_types[512]; /* comma list of the key types known for the host */
};

/* The name known_hosts holds for host and port: "host", or "[host]:port" when port != 22. */
char *cp_known_hosts_name(const char *host, long port);

/* Checks key (the server's public key blob, as sent) for name against the text of one file.
 * Results accumulate into *v across files (start it zeroed). An unknown @marker is an error. */
int cp_known_hosts_scan(const char *text, size_t len, const char *file, const char *name,
                        const unsigned char *key, size_t key_len, struct cp_kh_verdict *v,
                        cp_error_t *err);

/* Scans every file of files ("none" and absent files skipped). Files others can write are
 * refused, as ssh_config files are. */
int cp_known_hosts_check(char *const *files, const char *name, const unsigned char *key,
                         size_t key_len, struct cp_kh_verdict *out, cp_error_t *err);

/* 0 for a match; otherwise an error saying what was found and the next step:
 * unknown (CP_ERR_NOT_FOUND), changed or revoked (CP_ERR_DENIED), CA only (CP_ERR_UNSAFE). */
int cp_known_hosts_verdict_error(const struct cp_kh_verdict *v, const char *alias, const char *name,
                                 cp_error_t *err);

#endif
