/* The sidecar's keys message, its parser, and the proxy's wait for it (keys-message.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>
#include <json-c/printbuf.h>
#include <openssl/crypto.h>

#include "egress/policy/policy.h"
#include "src/base/json.h"
#include "egress/sign-ins/keys-message.h"
#include "egress/sign-ins/sign-ins-feed.h"
#include "src/base/clock.h"
#include "src/base/digest.h"
#include "src/base/log.h"
#include "src/base/util.h"

#define JSON_DEPTH 4
#define VALUE_MAX  (64 * 1024) /* a CA's PEM is ~1 KB; a proxy URL far less */

void cp_egress_keys_dispose(struct cp_egress_keys *k)
{
    cp_free_secret(k->secret);
    cp_free_secret(k->ca_pem);
    cp_free_secret(k->https_proxy);
    cp_free_secret(k->no_proxy);
    memset(k, 0, sizeof(*k));
}

/* ---- the message ---- */

static void add_value(json_object *o, const char *key, const char *value)
{
    if (value != NULL)
        json_object_object_add(o, key, json_object_new_string(value));
}

char *cp_egress_keys_message(const struct cp_egress_keys *k, const char *id)
{
    cleanup_json_wipe json_object *doc = json_object_new_object();
    json_object *keys = json_object_new_object();
    json_object_object_add(doc, "id", json_object_new_string(id));
    add_value(keys, "secret", k->secret);
    add_value(keys, "ca", k->ca_pem);
    add_value(keys, "https_proxy", k->https_proxy);
    add_value(keys, "no_proxy", k->no_proxy);
    json_object_object_add(doc, "keys", keys);
    return cp_json_secret_line(doc);
}

/* One document, strictly; the tokener's buffer (which held each string) wiped. */
static json_object *parse_json(const char *data, size_t len)
{
    json_tokener *tok = json_tokener_new_ex(JSON_DEPTH);
    if (tok == NULL)
        return NULL;
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    json_object *o = json_tokener_parse_ex(tok, data, (int)len);
    bool whole = json_tokener_get_error(tok) == json_tokener_success &&
                 json_tokener_get_parse_end(tok) == len;
    if (tok->pb != NULL && tok->pb->buf != NULL)
        explicit_bzero(tok->pb->buf, (size_t)tok->pb->size);
    json_tokener_free(tok);
    if (!whole)
        cp_cleanup_json_wipep(&o);
    return whole ? o : NULL;
}

/* A string member copied out; 0 when absent and optional. */
static int take_value(json_object *keys, const char *name, bool needed, char **out, cp_error_t *err)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(keys, name, &v))
        return needed ? cp_error_make(err, CP_ERR_FAILED, 0, "keys: no \"%s\"", name) : 0;
    size_t n = json_object_is_type(v, json_type_string) ? (size_t)json_object_get_string_len(v) : 0;
    if (n == 0 || n > VALUE_MAX)
        return cp_error_make(err, CP_ERR_FAILED, 0, "keys: \"%s\" is not a string of 1 to %d bytes",
                             name, VALUE_MAX);
    *out = xstrdup(json_object_get_string(v));
    return 0;
}

static int take_id(json_object *doc, char id_out[CP_EGRESS_SIGN_INS_ID_MAX + 1], cp_error_t *err)
{
    json_object *v = NULL;
    const char *id = json_object_object_get_ex(doc, "id", &v) ? json_object_get_string(v) : NULL;
    size_t n = id != NULL && json_object_is_type(v, json_type_string) ? strlen(id) : 0;
    if (n == 0 || n > CP_EGRESS_SIGN_INS_ID_MAX || strspn(id, "0123456789abcdef") != n)
        return cp_error_make(err, CP_ERR_FAILED, 0, "keys: \"id\" must be 1 to %d hex digits",
                             CP_EGRESS_SIGN_INS_ID_MAX);
    memcpy(id_out, id, n + 1);
    return 0;
}

static int take_keys(json_object *doc, struct cp_egress_keys *k, char *id, cp_error_t *err)
{
    json_object *keys = NULL;
    json_object_object_get_ex(doc, "keys", &keys);
    if (json_object_object_length(doc) != 2 || !json_object_is_type(keys, json_type_object))
        return cp_error_make(err, CP_ERR_FAILED, 0,
                             "keys: the message must be {\"id\":...,\"keys\":{...}}");
    size_t known = 0;
    static const char *const names[] = {"secret", "ca", "https_proxy", "no_proxy"};
    for (size_t i = 0; i < ARRAY_SIZE(names); i++)
        known += json_object_object_get_ex(keys, names[i], NULL);
    if (known != (size_t)json_object_object_length(keys))
        return cp_error_make(err, CP_ERR_FAILED, 0, "keys: a member that is not %s", "known");
    if (take_id(doc, id, err) < 0 || take_value(keys, "secret", true, &k->secret, err) < 0 ||
        take_value(keys, "ca", true, &k->ca_pem, err) < 0 ||
        take_value(keys, "https_proxy", false, &k->https_proxy, err) < 0 ||
        take_value(keys, "no_proxy", false, &k->no_proxy, err) < 0)
        return cp_error_code(err);
    if (strlen(k->secret) < CP_EGRESS_SECRET_MIN)
        return cp_error_make(err, CP_ERR_FAILED, 0, "keys: the secret needs at least %d bytes",
                             CP_EGRESS_SECRET_MIN);
    return 0;
}

int cp_egress_keys_parse(const char *line, size_t len, struct cp_egress_keys *out,
                         char id_out[CP_EGRESS_SIGN_INS_ID_MAX + 1], cp_error_t *err)
{
    memset(out, 0, sizeof(*out));
    id_out[0] = '\0';
    /* A sign-ins message is parsed once, by sign-ins-table.c: only a line naming "keys" is read. */
    if (memmem(line, len, "\"keys\"", 6) == NULL)
        return 0;
    cleanup_json_wipe json_object *doc = parse_json(line, len);
    if (doc == NULL || !json_object_is_type(doc, json_type_object))
        return cp_error_make(err, CP_ERR_FAILED, 0, "keys: not one JSON object");
    if (!json_object_object_get_ex(doc, "keys", NULL))
        return 0;
    if (take_keys(doc, out, id_out, err) < 0) {
        cp_egress_keys_dispose(out);
        return cp_error_code(err);
    }
    return 1;
}

/* ---- the proxy's wait ---- */

/* The process's keys: the first taken, until the wait moves them out, and their digest for the
 * messages that come after (the feed's hook runs in the loop's thread and the door's). */
static struct {
    pthread_mutex_t lock;
    bool taken;
    struct cp_egress_keys first;
    uint8_t digest[CP_SHA256_LEN];
    int notify[2]; /* a byte written when the first come */
} slot = {.lock = PTHREAD_MUTEX_INITIALIZER, .notify = {-1, -1}};

static void keys_digest(const struct cp_egress_keys *k, uint8_t out[CP_SHA256_LEN])
{
    const char *v[] = {k->secret, k->ca_pem, k->https_proxy, k->no_proxy};
    char *all =
        xasprintf("%s%c%s%c%s%c%s", v[0], 0, v[1], 0, v[2] ? v[2] : "", 0, v[3] ? v[3] : "");
    size_t n =
        strlen(v[0]) + strlen(v[1]) + (v[2] ? strlen(v[2]) : 0) + (v[3] ? strlen(v[3]) : 0) + 3;
    cp_sha256(all, n, out);
    explicit_bzero(all, n);
    free(all);
}

/* 1 taken now or the same as those taken, 0 refused: others came first. */
static int slot_offer(struct cp_egress_keys *k)
{
    uint8_t d[CP_SHA256_LEN];
    keys_digest(k, d);
    pthread_mutex_lock(&slot.lock);
    int r = 1;
    if (!slot.taken) {
        slot.first = *k;
        memset(k, 0, sizeof(*k));
        memcpy(slot.digest, d, sizeof(d));
        slot.taken = true;
        if (write(slot.notify[1], "k", 1) < 0)
            cp_debug("cannot wake the keys' wait: %s", strerror(errno));
    } else {
        r = CRYPTO_memcmp(d, slot.digest, sizeof(d)) == 0;
    }
    pthread_mutex_unlock(&slot.lock);
    explicit_bzero(d, sizeof(d));
    return r;
}

/* The feed's hook (sign-ins-feed.h): keys messages are taken here, never as sign-ins. */
static bool keys_hook(const char *line, size_t len, char *answer, size_t cap)
{
    struct cp_egress_keys k;
    char id[CP_EGRESS_SIGN_INS_ID_MAX + 1];
    cleanup_error cp_error_t err = NULL;
    int r = cp_egress_keys_parse(line, len, &k, id, &err);
    answer[0] = '\0';
    if (r == 0)
        return false;
    if (r < 0)
        cp_say("egress-proxy: keys refused: %s", err->msg);
    else if (slot_offer(&k) == 0)
        cp_say("egress-proxy: keys refused: this sidecar has other keys, which never change");
    else
        snprintf(answer, cap, "%s %s\n", CP_EGRESS_KEYS_ANSWER, id);
    cp_egress_keys_dispose(&k);
    return true;
}

int cp_egress_keys_expect(cp_error_t *err)
{
    if (slot.notify[0] < 0 && pipe2(slot.notify, O_CLOEXEC | O_NONBLOCK) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot wait for the keys");
    cp_egress_sign_ins_feed_set_hook(keys_hook);
    return 0;
}

/* 1 with *out when the first keys are there. */
static int slot_take(struct cp_egress_keys *out)
{
    pthread_mutex_lock(&slot.lock);
    int r = slot.taken && slot.first.secret != NULL;
    if (r) {
        *out = slot.first;
        memset(&slot.first, 0, sizeof(slot.first));
    }
    pthread_mutex_unlock(&slot.lock);
    return r;
}

static void feed_disposep(struct cp_egress_sign_ins_feed *f)
{
    cp_egress_sign_ins_feed_dispose(f);
}

int cp_egress_keys_wait(int fd, struct cp_egress_sign_ins_holder *table, FILE *log, int ms,
                        struct cp_egress_keys *out, cp_error_t *err)
{
    __attribute__((cleanup(feed_disposep))) struct cp_egress_sign_ins_feed f = {0};
    if (cp_egress_sign_ins_feed_init(&f, fd, table, log, err) < 0)
        return cp_error_code(err);
    int64_t end = cp_now_ms() + ms;
    struct pollfd p[2] = {{.fd = fd, .events = POLLIN}, {.fd = slot.notify[0], .events = POLLIN}};
    while (!slot_take(out)) {
        int left = cp_deadline_left_ms(end);
        if (left <= 0)
            return cp_error_make(err, CP_ERR_TIMEOUT, 0,
                                 "no keys came within %d s on standard input or the sign-ins' "
                                 "door: this sidecar serves only once conch-place has given "
                                 "them (it does right after it starts one)",
                                 ms / 1000);
        int r = poll(p, 2, left);
        if (r < 0 && errno == EINTR)
            return cp_error_make(err, CP_ERR_INTERRUPTED, errno, "stopped while waiting for keys");
        if (r > 0 && p[0].revents != 0 && cp_egress_sign_ins_feed_read(&f) == 1)
            p[0].fd = -1; /* the end of the input: the door may still bring them */
        char drain[16];
        if (r > 0 && p[1].revents != 0)
            (void)!read(slot.notify[0], drain, sizeof(drain));
    }
    return 0;
}
