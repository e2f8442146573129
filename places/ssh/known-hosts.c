/* known_hosts in openssh's format: [@marker] patterns|hashed-name keytype base64 [comment].
 *
 * Why our own parser and not libssh2's libssh2_knownhost_* (issue 13, decided): libssh2 knows
 * neither marker nor pattern. It reads "@revoked host key" as a host named "@revoked" whose
 * key type is the host's name, and its readfile stops at the first line it cannot parse, so
 * a revoked key would be silently accepted or the whole file dropped, and @cert-authority
 * lines likewise. It does not match wildcards ('*', '?') or negations ('!') in host patterns
 * either, which OpenSSH's own files and ssh-keyscan output use. A revoked key must refuse the
 * connection, a negated pattern must not match: ours does both (tests/unit/test_ssh_known_
 * hosts.c, fuzzed by tests/fuzz/fuzz_ssh_known_hosts.c). Hashing (|1|salt|hmac) and base64
 * come from src/base/digest.h (libcrypto), not written here. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "places/ssh/known-hosts.h"
#include "places/ssh/config-host.h"
#include "places/ssh/config-text.h"
#include "src/base/buf.h"
#include "src/base/digest.h"
#include "src/base/util.h"

enum { SEEN_MATCH = 1, SEEN_CHANGED = 2, SEEN_REVOKED = 4, SEEN_CA = 8 };

/* One parsed line; the strings point into a copy of the line. */
struct kh_line {
    const char *marker; /* NULL, "@revoked" or "@cert-authority" */
    const char *hosts;
    const char *key_b64;
};

char *cp_known_hosts_name(const char *host, long port)
{
    return port == 22 ? xstrdup(host) : xasprintf("[%s]:%ld", host, port);
}

/* The key type named inside a key blob (its first string), or "" if malformed. */
static void blob_type(const unsigned char *b, size_t len, char *out, size_t out_size)
{
    out[0] = '\0';
    if (len < 4)
        return;
    uint32_t n = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
    if (n == 0 || n > len - 4 || n >= out_size)
        return;
    memcpy(out, b + 4, n);
    out[n] = '\0';
}

static bool hashed_match(const char *field, const char *name)
{
    const char *salt = field + 3, *bar = strchr(salt, '|');
    if (bar == NULL)
        return false;
    cleanup_free unsigned char *salt_raw = NULL, *hash_raw = NULL;
    size_t salt_len = 0, hash_len = 0;
    if (cp_base64_decode(salt, (size_t)(bar - salt), &salt_raw, &salt_len) < 0 ||
        cp_base64_decode(bar + 1, strlen(bar + 1), &hash_raw, &hash_len) < 0 ||
        hash_len != CP_SHA1_LEN)
        return false;
    uint8_t mac[CP_SHA1_LEN];
    cp_hmac_sha1(salt_raw, salt_len, name, strlen(name), mac);
    return memcmp(mac, hash_raw, CP_SHA1_LEN) == 0;
}

static bool host_matches(const char *field, const char *name)
{
    if (strncmp(field, "|1|", 3) == 0)
        return hashed_match(field, name);
    return cp_ssh_pattern_list_match(field, name) == 1;
}

/* Splits a line into its fields; 0 when it holds none (blank, comment, old RSA1 form). */
static int split_kh_line(char *s, struct kh_line *l)
{
    char *save = NULL;
    char *f = strtok_r(s, " \t\r", &save);
    if (f == NULL || f[0] == '#')
        return 0;
    l->marker = NULL;
    if (f[0] == '@') {
        l->marker = f;
        f = strtok_r(NULL, " \t\r", &save);
    }
    l->hosts = f;
    const char *type = strtok_r(NULL, " \t\r", &save);
    l->key_b64 = strtok_r(NULL, " \t\r", &save);
    if (l->hosts == NULL || type == NULL || l->key_b64 == NULL)
        return l->marker != NULL ? -1 : 0;
    return 1;
}

static void note_type(struct cp_kh_verdict *v, const char *type)
{
    size_t tlen = strlen(type), used = strlen(v->known_types);
    for (const char *p = v->known_types; *p != '\0';
         p += strcspn(p, ",") + (p[strcspn(p, ",")] != 0))
        if (strncmp(p, type, tlen) == 0 && (p[tlen] == ',' || p[tlen] == '\0'))
            return;
    if (tlen == 0 || used + tlen + 2 > sizeof(v->known_types))
        return;
    if (used > 0)
        v->known_types[used++] = ',';
    memcpy(v->known_types + used, type, tlen + 1);
}

struct scan_ctx {
    const char *file;
    int line;
    const char *name;
    const unsigned char *key;
    size_t key_len;
    char key_type[128];
    int *seen;
};

/* How strongly a kind of line decides: revoked, then a match, a changed key, a CA line. */
static int rank(int what)
{
    return what == SEEN_REVOKED ? 4 : what == SEEN_MATCH ? 3 : what == SEEN_CHANGED ? 2 : 1;
}

static int strongest(int seen)
{
    int best = 0;
    for (int what = 1; what <= SEEN_CA; what <<= 1)
        if ((seen & what) != 0 && rank(what) > best)
            best = rank(what);
    return best;
}

/* The line named is the first one of the strongest kind seen. */
static void mark(struct cp_kh_verdict *v, struct scan_ctx *c, int what)
{
    if (rank(what) > strongest(*c->seen))
        snprintf(v->where, sizeof(v->where), "%s:%d", c->file, c->line);
    *c->seen |= what;
}

static int scan_line(struct scan_ctx *c, const struct kh_line *l, struct cp_kh_verdict *v,
                     cp_error_t *err)
{
    bool revoked = l->marker != NULL && strcmp(l->marker, "@revoked") == 0;
    bool ca = l->marker != NULL && strcmp(l->marker, "@cert-authority") == 0;
    if (l->marker != NULL && !revoked && !ca)
        return cp_error_make(err, CP_ERR_UNSAFE, 0, "%s:%d: unknown marker \"%s\"", c->file,
                             c->line, l->marker);
    cleanup_free unsigned char *blob = NULL;
    size_t blob_len = 0;
    if (cp_base64_decode(l->key_b64, strlen(l->key_b64), &blob, &blob_len) < 0)
        return 0;
    bool same_key = c->key_len > 0 && blob_len == c->key_len && memcmp(blob, c->key, blob_len) == 0;
    if (revoked) {
        if (same_key)
            mark(v, c, SEEN_REVOKED);
        return 0;
    }
    if (!host_matches(l->hosts, c->name))
        return 0;
    if (ca) {
        mark(v, c, SEEN_CA);
        return 0;
    }
    char type[128];
    blob_type(blob, blob_len, type, sizeof(type));
    note_type(v, type);
    if (same_key)
        mark(v, c, SEEN_MATCH);
    else if (type[0] != '\0' && strcmp(type, c->key_type) == 0)
        mark(v, c, SEEN_CHANGED);
    return 0;
}

/* Precedence: revoked, then a match, then a changed key, then a CA line, else unknown. */
static enum cp_kh_result decide(int seen)
{
    if (seen & SEEN_REVOKED)
        return CP_KH_REVOKED;
    if (seen & SEEN_MATCH)
        return CP_KH_MATCH;
    if (seen & SEEN_CHANGED)
        return CP_KH_CHANGED;
    if (seen & SEEN_CA)
        return CP_KH_CA_ONLY;
    return CP_KH_UNKNOWN;
}

static int seen_of(enum cp_kh_result r)
{
    static const int map[] = {[CP_KH_UNKNOWN] = 0,
                              [CP_KH_MATCH] = SEEN_MATCH,
                              [CP_KH_CHANGED] = SEEN_CHANGED,
                              [CP_KH_REVOKED] = SEEN_REVOKED,
                              [CP_KH_CA_ONLY] = SEEN_CA};
    return map[r];
}

int cp_known_hosts_scan(const char *text, size_t len, const char *file, const char *name,
                        const unsigned char *key, size_t key_len, struct cp_kh_verdict *v,
                        cp_error_t *err)
{
    int seen = seen_of(v->result);
    struct scan_ctx c = {.file = file, .name = name, .key = key, .key_len = key_len, .seen = &seen};
    blob_type(key, key_len, c.key_type, sizeof(c.key_type));
    for (size_t start = 0; start < len;) {
        const char *nl = memchr(text + start, '\n', len - start);
        size_t end = nl != NULL ? (size_t)(nl - text) : len;
        c.line++;
        cleanup_free char *copy = strndup(text + start, end - start);
        if (copy == NULL)
            abort();
        struct kh_line l;
        int r = split_kh_line(copy, &l);
        if (r < 0)
            return cp_error_make(err, CP_ERR_UNSAFE, 0, "%s:%d: a marker line without a key", file,
                                 c.line);
        if (r > 0 && scan_line(&c, &l, v, err) < 0)
            return cp_error_code(err);
        start = end + 1;
    }
    v->result = decide(seen);
    return 0;
}

static int read_known_hosts(const char *path, char **out, size_t *len_out, cp_error_t *err)
{
    cleanup_close int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return cp_error_make(err, errno == ENOENT ? CP_ERR_NOT_FOUND : CP_ERR_FAILED, errno,
                             "%s: cannot open", path);
    if (cp_ssh_check_file_owner(path, fd, err) < 0)
        return cp_error_code(err);
    cleanup_buf struct cp_buf b;
    cp_buf_init(&b, CP_KH_MAX_FILE_SIZE);
    char chunk[16384];
    ssize_t n;
    while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return cp_error_make(err, CP_ERR_FAILED, errno, "%s: cannot read", path);
        if (cp_buf_append(&b, chunk, (size_t)n) < 0)
            return cp_error_make(err, CP_ERR_TOO_BIG, 0, "%s: larger than %d bytes", path,
                                 CP_KH_MAX_FILE_SIZE);
    }
    *len_out = b.len;
    *out = cp_buf_steal(&b);
    return 0;
}

int cp_known_hosts_check(char *const *files, const char *name, const unsigned char *key,
                         size_t key_len, struct cp_kh_verdict *out, cp_error_t *err)
{
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; files != NULL && files[i] != NULL; i++) {
        if (strcmp(files[i], "none") == 0)
            continue;
        cleanup_free char *text = NULL;
        size_t len = 0;
        cp_error_t inner = NULL;
        int r = read_known_hosts(files[i], &text, &len, &inner);
        if (r == CP_ERR_NOT_FOUND) {
            cp_error_free(&inner);
            continue;
        }
        if (r < 0) {
            if (err != NULL && *err == NULL)
                *err = steal_pointer(&inner);
            cp_error_free(&inner);
            return r;
        }
        if (cp_known_hosts_scan(text, len, files[i], name, key, key_len, out, err) < 0)
            return cp_error_code(err);
    }
    return 0;
}

int cp_known_hosts_verdict_error(const struct cp_kh_verdict *v, const char *alias, const char *name,
                                 cp_error_t *err)
{
    switch (v->result) {
    case CP_KH_MATCH:
        return 0;
    case CP_KH_UNKNOWN:
        cp_error_make(err, CP_ERR_NOT_FOUND, 0, "the host key of %s (%s) is not in known_hosts",
                      alias, name);
        cp_error_hint(err,
                      "Connect once from a terminal (`ssh %s`) to check and save its key, then "
                      "run again.",
                      alias);
        return CP_ERR_NOT_FOUND;
    case CP_KH_CHANGED:
        cp_error_make(err, CP_ERR_DENIED, 0,
                      "the host key of %s (%s) has CHANGED since %s recorded it: refused (this "
                      "may be an attack, or the host was reinstalled)",
                      alias, name, v->where);
        cp_error_hint(err,
                      "Check the new key with the host's owner; if it is right, remove the "
                      "old line (`ssh-keygen -R %s`) and connect once with ssh.",
                      name);
        return CP_ERR_DENIED;
    case CP_KH_REVOKED:
        return cp_error_make(err, CP_ERR_DENIED, 0,
                             "the host key of %s (%s) is revoked (%s): refused", alias, name,
                             v->where);
    case CP_KH_CA_ONLY:
        cp_error_make(err, CP_ERR_UNSAFE, 0,
                      "%s: only a @cert-authority line names %s, and conch-place does not check "
                      "host certificates",
                      v->where, name);
        cp_error_hint(err, "Add the host's own key to known_hosts (`ssh-keyscan` it, check it, "
                           "and append it).");
        return CP_ERR_UNSAFE;
    }
    return cp_error_make(err, CP_ERR_FAILED, 0, "unexpected known_hosts verdict");
}
