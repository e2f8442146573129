/* The keeper's request (keeper-request.h): {"magic", "place", "chat", "workdir", "sealed",
 * "interactive", "engine", "image", "verbose", "argv": [...], "config": {"path", "root"}}. */
#include "config.h"

#include <string.h>

#include "places/ssh/keeper-request.h"
#include "src/base/json.h"
#include "src/base/util.h"

#define ARGV_MAX 65536

static void put_str(json_object *o, const char *key, const char *v)
{
    json_object_object_add(o, key, v != NULL ? json_object_new_string(v) : NULL);
}

int cp_ssh_request_encode(const struct cp_run_request *req, bool verbose, struct cp_buf *out,
                          cp_error_t *err)
{
    json_object *o = json_object_new_object();
    put_str(o, "magic", CP_SSH_REQUEST_MAGIC);
    put_str(o, "place", req->place);
    put_str(o, "chat", req->chat);
    put_str(o, "workdir", req->workdir);
    json_object_object_add(o, "sealed", json_object_new_boolean(req->sealed));
    json_object_object_add(o, "interactive", json_object_new_boolean(req->interactive));
    put_str(o, "engine", req->engine);
    put_str(o, "image", req->image);
    json_object_object_add(o, "verbose", json_object_new_boolean(verbose));
    json_object *argv = json_object_new_array();
    for (size_t i = 0; req->argv != NULL && req->argv[i] != NULL; i++)
        json_object_array_add(argv, json_object_new_string(req->argv[i]));
    json_object_object_add(o, "argv", argv);
    if (req->config != NULL) {
        json_object *c = json_object_new_object();
        put_str(c, "path", req->config->path);
        json_object_object_add(c, "root", json_object_get(req->config->root));
        json_object_object_add(o, "config", c);
    }
    const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
    int rc = cp_buf_append(out, text, strlen(text));
    json_object_put(o);
    if (rc < 0)
        return cp_error_make(err, CP_ERR_TOO_BIG, 0, "the run is too large to hand to the keeper");
    return 0;
}

void cp_ssh_request_dispose(struct cp_ssh_request *r)
{
    cp_strvec_dispose(&r->owned);
    free((void *)r->req.argv);
    cp_config_dispose(&r->config);
    memset(r, 0, sizeof(*r));
}

/* A string field (NULL allowed when optional); the copy is r's. */
static int take_str(struct cp_ssh_request *r, json_object *o, const char *key, bool optional,
                    const char **out)
{
    json_object *v = NULL;
    *out = NULL;
    if (!json_object_object_get_ex(o, key, &v) || v == NULL)
        return optional ? 0 : -1;
    if (!json_object_is_type(v, json_type_string))
        return -1;
    char *s = xstrdup(json_object_get_string(v));
    if (strlen(s) != (size_t)json_object_get_string_len(v)) { /* a NUL inside */
        free(s);
        return -1;
    }
    cp_strvec_push_owned(&r->owned, s);
    *out = s;
    return 0;
}

static int take_bool(json_object *o, const char *key, bool *out)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_boolean))
        return -1;
    *out = json_object_get_boolean(v);
    return 0;
}

static int take_argv(struct cp_ssh_request *r, json_object *o)
{
    json_object *a = NULL;
    if (!json_object_object_get_ex(o, "argv", &a) || !json_object_is_type(a, json_type_array))
        return -1;
    size_t n = json_object_array_length(a);
    if (n == 0 || n > ARGV_MAX)
        return -1;
    const char **argv = xcalloc(n + 1, sizeof(*argv));
    r->req.argv = (char *const *)argv;
    for (size_t i = 0; i < n; i++) {
        json_object *wrap = json_object_new_object();
        json_object_object_add(wrap, "a", json_object_get(json_object_array_get_idx(a, i)));
        int bad = take_str(r, wrap, "a", false, &argv[i]);
        json_object_put(wrap);
        if (bad)
            return -1;
    }
    return 0;
}

static int take_config(struct cp_ssh_request *r, json_object *o, cp_error_t *err)
{
    json_object *c = NULL, *root = NULL;
    if (!json_object_object_get_ex(o, "config", &c) || c == NULL)
        return 0; /* none given: the keeper's own (an empty config) */
    const char *path = NULL;
    if (!json_object_is_type(c, json_type_object) || take_str(r, c, "path", true, &path) < 0 ||
        !json_object_object_get_ex(c, "root", &root))
        return -1;
    if (root != NULL && cp_config_validate(root, path ? path : "the run's config", err) < 0)
        return cp_error_code(err);
    r->config.path = path ? xstrdup(path) : NULL;
    r->config.root = root ? json_object_get(root) : NULL;
    r->req.config = &r->config;
    return 0;
}

int cp_ssh_request_decode(const char *data, size_t len, struct cp_ssh_request *out, cp_error_t *err)
{
    memset(out, 0, sizeof(*out));
    json_object *o = NULL;
    if (cp_json_parse(data, len, "the keeper's request", &o, err) < 0)
        return cp_error_code(err);
    const char *magic = NULL;
    int bad = !json_object_is_type(o, json_type_object) ||
              take_str(out, o, "magic", false, &magic) < 0 ||
              strcmp(magic, CP_SSH_REQUEST_MAGIC) != 0 ||
              take_str(out, o, "place", false, &out->req.place) < 0 ||
              take_str(out, o, "chat", false, &out->req.chat) < 0 ||
              take_str(out, o, "workdir", false, &out->req.workdir) < 0 ||
              take_bool(o, "sealed", &out->req.sealed) < 0 ||
              take_bool(o, "interactive", &out->req.interactive) < 0 ||
              take_str(out, o, "engine", true, &out->req.engine) < 0 ||
              take_str(out, o, "image", true, &out->req.image) < 0 ||
              take_bool(o, "verbose", &out->verbose) < 0 || take_argv(out, o) < 0;
    int rc = bad ? cp_error_make(err, CP_ERR_FAILED, 0, "the ssh keeper did not understand the run")
                 : take_config(out, o, err);
    json_object_put(o);
    if (rc < 0) {
        cp_error_make(err, CP_ERR_FAILED, 0, "the ssh keeper did not understand the run");
        cp_ssh_request_dispose(out);
    }
    return rc < 0 ? rc : 0;
}
