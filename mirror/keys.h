/* A settings file read as the tool reads it: its keys with their values, in file order. The
 * readers are strict on purpose: what one does not fully understand (a construct, an escape,
 * a byte where the tool might read something else) makes the whole file "not understood",
 * since a file that our reader and the tool read differently is how a key would hide. */
#ifndef CONCH_MIRROR_KEYS_H
#define CONCH_MIRROR_KEYS_H

#include <stdbool.h>
#include <stddef.h>

/* Larger files, or more keys, are not understood (and so refused whole, as before). */
#define CP_KEYS_FILE_MAX  (256 * 1024)
#define CP_KEYS_MAX       4096
#define CP_KEYS_DEPTH_MAX 32

/* One key. name is the key as the format spells it once read: npm's as written (trimmed),
 * YAML's and TOML's segments joined by '.' with a segment that is not a bare word quoted
 * ("a.b" inside quotes stays one segment). value is the value's text as written (TOML, npm)
 * or as decoded (YAML); its meaning is the same wherever the same text stands. */
struct cp_key {
    char *name;
    char *value;
};

struct cp_keys {
    struct cp_key *v;
    size_t n;
};

/* Adds a key (both copied); -1 past CP_KEYS_MAX. */
int cp_keys_add(struct cp_keys *k, const char *name, size_t nlen, const char *value, size_t vlen);
void cp_keys_dispose(struct cp_keys *k);

/* Appends one segment to a dotted name in buf (at most cap bytes, NUL-terminated): bare when it
 * is [A-Za-z0-9_-]+, else quoted with '"' and '\' escaped and other bytes outside printable
 * ASCII as \xNN. -1 when it does not fit. */
int cp_keys_join(char *buf, size_t cap, const char *seg, size_t len);

/* The readers: 0 with every key in *out, or -1 when the file is not understood (*out is then
 * empty). text need not be NUL-terminated. */
int cp_keys_read_npmrc(const char *text, size_t len, struct cp_keys *out);
int cp_keys_read_yarnrc(const char *text, size_t len, struct cp_keys *out);
int cp_keys_read_toml(const char *text, size_t len, struct cp_keys *out);

#endif
