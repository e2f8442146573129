/* .yarnrc.yml as Yarn reads it (@yarnpkg/parsers: js-yaml's failsafe schema, every scalar a
 * string), through libyaml's events: the top-level keys, and nested mappings' keys joined by '.'
 * (supportedArchitectures.os); a sequence is one value. What could make js-yaml and libyaml
 * see different keys is not understood: anchors and aliases, tags, the merge key "<<" (each
 * can bring in keys not written under their mapping), directives, more than one document, a
 * key that is not a scalar, a key twice in one mapping (js-yaml's json mode keeps the last), a
 * non-empty flow mapping (where "a:b" is read differently by YAML 1.1 and 1.2 readers), and a
 * file Yarn would hand to its old lockfile parser instead ("# yarn lockfile v1" at its top). */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "mirror/keys.h"
#include "src/base/strvec.h"
#include "src/base/util.h"

#define NAME_MAX_BYTES 1024

struct yread {
    yaml_parser_t parser;
    struct cp_keys *out;
};

static void parser_free(yaml_parser_t *p)
{
    yaml_parser_delete(p);
}

/* The next event, or -1 (a syntax error). */
static int next(struct yread *y, yaml_event_t *e)
{
    return yaml_parser_parse(&y->parser, e) ? 0 : -1;
}

/* Anchors and tags change what a node is, or where else it appears. */
static bool plain_node(const yaml_event_t *e)
{
    switch (e->type) {
    case YAML_SCALAR_EVENT:
        return e->data.scalar.anchor == NULL && e->data.scalar.tag == NULL;
    case YAML_SEQUENCE_START_EVENT:
        return e->data.sequence_start.anchor == NULL && e->data.sequence_start.tag == NULL;
    case YAML_MAPPING_START_EVENT:
        return e->data.mapping_start.anchor == NULL && e->data.mapping_start.tag == NULL;
    default:
        return false;
    }
}

struct text {
    char *s;
    size_t n;
};

static int text_add(struct text *t, const char *s, size_t n)
{
    if (t->n + n > CP_KEYS_FILE_MAX * 2)
        return -1;
    t->s = xrealloc(t->s, t->n + n + 1);
    memcpy(t->s + t->n, s, n);
    t->n += n;
    t->s[t->n] = '\0';
    return 0;
}

static int text_quoted(struct text *t, const char *s, size_t n)
{
    if (text_add(t, "\"", 1) < 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if ((s[i] == '"' || s[i] == '\\') ? text_add(t, "\\", 1) < 0 || text_add(t, s + i, 1) < 0
                                          : text_add(t, s + i, 1) < 0)
            return -1;
    return text_add(t, "\"", 1);
}

/* A node inside a sequence, written out whole: a sequence's value is its text. e is taken. */
static int flat_node(struct yread *y, yaml_event_t *e, struct text *t, int depth)
{
    if (depth > CP_KEYS_DEPTH_MAX || !plain_node(e)) {
        yaml_event_delete(e);
        return -1;
    }
    if (e->type == YAML_SCALAR_EVENT) {
        int r = text_quoted(t, (const char *)e->data.scalar.value, e->data.scalar.length);
        yaml_event_delete(e);
        return r;
    }
    bool seq = e->type == YAML_SEQUENCE_START_EVENT;
    yaml_event_type_t end = seq ? YAML_SEQUENCE_END_EVENT : YAML_MAPPING_END_EVENT;
    yaml_event_delete(e);
    if (text_add(t, seq ? "[" : "{", 1) < 0)
        return -1;
    for (size_t i = 0;; i++) {
        yaml_event_t c;
        if (next(y, &c) < 0)
            return -1;
        if (c.type == end) {
            yaml_event_delete(&c);
            return text_add(t, seq ? "]" : "}", 1);
        }
        const char *sep = !seq && i % 2 == 1 ? ":" : i > 0 ? "," : "";
        if (text_add(t, sep, strlen(sep)) < 0 || flat_node(y, &c, t, depth + 1) < 0)
            return -1;
    }
}

static int mapping(struct yread *y, const char *prefix, bool flow, int depth);

/* The value under name: a scalar or a sequence is a key; a mapping gives its own keys. e is
 * taken. */
static int value(struct yread *y, yaml_event_t *e, const char *name, int depth)
{
    if (!plain_node(e)) {
        yaml_event_delete(e);
        return -1;
    }
    if (e->type == YAML_MAPPING_START_EVENT) {
        bool flow = e->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE;
        yaml_event_delete(e);
        return mapping(y, name, flow, depth + 1);
    }
    if (e->type == YAML_SCALAR_EVENT) {
        int r = cp_keys_add(y->out, name, strlen(name), (const char *)e->data.scalar.value,
                            e->data.scalar.length);
        yaml_event_delete(e);
        return r;
    }
    struct text t = {0};
    int r = flat_node(y, e, &t, depth);
    if (r == 0)
        r = cp_keys_add(y->out, name, strlen(name), t.s ? t.s : "", t.n);
    free(t.s);
    return r;
}

/* One mapping's pairs, after its start. An empty one is a key of its own ("{}"). */
static int pairs(struct yread *y, const char *prefix, bool flow, int depth, struct cp_strvec *seen)
{
    for (size_t n = 0;; n++) {
        yaml_event_t k, v;
        if (next(y, &k) < 0)
            return -1;
        if (k.type == YAML_MAPPING_END_EVENT) {
            yaml_event_delete(&k);
            return n == 0 && prefix[0] != '\0'
                       ? cp_keys_add(y->out, prefix, strlen(prefix), "{}", 2)
                       : 0;
        }
        bool ok = !flow && k.type == YAML_SCALAR_EVENT && plain_node(&k);
        char name[NAME_MAX_BYTES];
        snprintf(name, sizeof(name), "%s", prefix);
        const char *key = ok ? (const char *)k.data.scalar.value : "";
        size_t klen = ok ? k.data.scalar.length : 0;
        ok = ok && strlen(key) == klen && strcmp(key, "<<") != 0 && !cp_strvec_has(seen, key) &&
             cp_keys_join(name, sizeof(name), key, klen) == 0;
        if (ok)
            cp_strvec_push(seen, key);
        yaml_event_delete(&k);
        if (!ok || next(y, &v) < 0 || value(y, &v, name, depth) < 0)
            return -1;
    }
}

static int mapping(struct yread *y, const char *prefix, bool flow, int depth)
{
    if (depth > CP_KEYS_DEPTH_MAX)
        return -1;
    struct cp_strvec seen = {0};
    int r = pairs(y, prefix, flow, depth, &seen);
    cp_strvec_dispose(&seen);
    return r;
}

/* Expects the event type, then frees the event. */
static int expect(struct yread *y, yaml_event_type_t type)
{
    yaml_event_t e;
    if (next(y, &e) < 0)
        return -1;
    bool ok = e.type == type;
    yaml_event_delete(&e);
    return ok ? 0 : -1;
}

/* The one document: empty (a blank file or only comments), an empty scalar, or a mapping. */
static int document(struct yread *y)
{
    yaml_event_t e;
    if (next(y, &e) < 0)
        return -1;
    if (e.type == YAML_STREAM_END_EVENT) {
        yaml_event_delete(&e);
        return 0;
    }
    bool ok =
        e.type == YAML_DOCUMENT_START_EVENT && e.data.document_start.version_directive == NULL &&
        e.data.document_start.tag_directives.start == e.data.document_start.tag_directives.end;
    yaml_event_delete(&e);
    if (!ok || next(y, &e) < 0)
        return -1;
    int r = -1;
    if (e.type == YAML_MAPPING_START_EVENT && plain_node(&e)) {
        bool flow = e.data.mapping_start.style == YAML_FLOW_MAPPING_STYLE;
        yaml_event_delete(&e);
        r = mapping(y, "", flow, 0);
    } else {
        r = e.type == YAML_SCALAR_EVENT && plain_node(&e) && e.data.scalar.length == 0 ? 0 : -1;
        yaml_event_delete(&e);
    }
    if (r < 0 || expect(y, YAML_DOCUMENT_END_EVENT) < 0)
        return -1;
    return expect(y, YAML_STREAM_END_EVENT);
}

/* Yarn's parseSyml reads a file whose top comment says "yarn lockfile v1" with its old
 * lockfile grammar, not as YAML: "lockfile" followed by blanks and "v1" anywhere is enough. */
static bool legacy_header(const char *text, size_t len)
{
    for (size_t i = 0; i + 8 <= len; i++) {
        if (strncasecmp(text + i, "lockfile", 8) != 0)
            continue;
        size_t j = i + 8;
        while (j < len && (text[j] == ' ' || text[j] == '\t'))
            j++;
        if (j + 2 <= len && (text[j] == 'v' || text[j] == 'V') && text[j + 1] == '1')
            return true;
    }
    return false;
}

int cp_keys_read_yarnrc(const char *text, size_t len, struct cp_keys *out)
{
    *out = (struct cp_keys){0};
    if (len > CP_KEYS_FILE_MAX || memchr(text, '\0', len) != NULL || legacy_header(text, len))
        return -1;
    struct yread y = {.out = out};
    if (!yaml_parser_initialize(&y.parser))
        return -1;
    yaml_parser_set_input_string(&y.parser, (const unsigned char *)text, len);
    int r = expect(&y, YAML_STREAM_START_EVENT) == 0 ? document(&y) : -1;
    parser_free(&y.parser);
    if (r < 0)
        cp_keys_dispose(out);
    return r;
}
