/* Which socket to talk to: DESIGN.md's discovery order, narrowed by --engine. An engine that
 * DOCKER_HOST or CONTAINER_HOST names is the person's choice: it is used or the run fails, and
 * discovery never passes over it to another engine. */
#include "config.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "places/container/engine/engine-client.h"
#include "places/container/engine/engine-start.h"
#include "src/base/paths.h"
#include "src/base/strvec.h"
#include "src/base/util.h"

/* A path seen before, under its own name or another one (/var/run is /run), is not added. */
static void add(struct cp_strvec *l, char *path)
{
    cleanup_free char *real = realpath(path, NULL);
    for (size_t i = 0; i < l->n; i++) {
        cleanup_free char *other = realpath(l->v[i], NULL);
        if (strcmp(l->v[i], path) == 0 || (real && other && strcmp(real, other) == 0)) {
            free(path);
            return;
        }
    }
    cp_strvec_push_owned(l, path);
}

static bool wants(const char *want, const char *kind)
{
    return want == NULL || strcmp(want, "auto") == 0 || strcmp(want, kind) == 0;
}

/* The variables that name an engine for want, in the order they are tried. */
static const char *pin_var(const char *want, size_t i)
{
    static const char *const vars[] = {"DOCKER_HOST", "CONTAINER_HOST"};
    static const char *const kinds[] = {"docker", "podman"};
    if (i >= ARRAY_SIZE(vars) || !wants(want, kinds[i]))
        return NULL;
    const char *v = getenv(vars[i]);
    return v != NULL && v[0] != '\0' ? vars[i] : "";
}

static bool pinned(const char *want)
{
    for (size_t i = 0; i < 2; i++) {
        const char *var = pin_var(want, i);
        if (var != NULL && var[0] != '\0')
            return true;
    }
    return false;
}

static void add_podman(struct cp_strvec *l)
{
    add(l, xstrdup("/run/podman/podman.sock"));
    char *own = cp_rootless_podman_socket();
    if (own != NULL)
        add(l, own);
}

static void add_docker(struct cp_strvec *l, const char *runtime, const char *home)
{
    add(l, xstrdup("/var/run/docker.sock"));
    if (runtime != NULL)
        add(l, xasprintf("%s/docker.sock", runtime));
    if (home == NULL)
        return;
    add(l, xasprintf("%s/.docker/desktop/docker.sock", home));
    add(l, xasprintf("%s/.docker/run/docker.sock", home));
    add(l, xasprintf("%s/.orbstack/run/docker.sock", home));
    add(l, xasprintf("%s/.rd/docker.sock", home));
    add(l, xasprintf("%s/.colima/default/docker.sock", home));
}

/* Only unix:// hosts fit: a tcp:// or ssh:// engine is not one this design can seal, and it is
 * left out here so that connecting to it fails with the variable named (connect_pinned). */
static void add_pinned(struct cp_strvec *l, const char *want)
{
    for (size_t i = 0; pin_var(want, i) != NULL; i++) {
        const char *var = pin_var(want, i);
        const char *v = var[0] != '\0' ? getenv(var) : NULL;
        if (v != NULL && strncmp(v, "unix://", 7) == 0 && v[7] == '/')
            add(l, xstrdup(v + 7));
    }
}

char **cp_engine_candidates(const char *want)
{
    struct cp_strvec l = {0};
    if (pinned(want)) {
        add_pinned(&l, want);
    } else {
        const char *runtime = getenv("XDG_RUNTIME_DIR");
        if (runtime != NULL && runtime[0] != '/')
            runtime = NULL;
        cleanup_free char *home = NULL;
        if (cp_home_dir(&home, NULL) < 0)
            home = NULL;
        if (wants(want, "podman"))
            add_podman(&l);
        if (wants(want, "docker"))
            add_docker(&l, runtime, home);
    }
    return cp_strvec_steal(&l);
}

static void not_found(const char *want, cp_error_t *err)
{
    const char *name = (want == NULL || strcmp(want, "auto") == 0) ? "Docker or Podman" : want;
    cp_error_make(err, CP_ERR_UNREACHABLE, 0, "no %s engine answers on this computer", name);
    if (want != NULL && strcmp(want, "podman") == 0)
        cp_error_hint(err, "Start Podman's API service (systemctl start podman.socket, or "
                           "'podman system service --time=0 &'), then run the command again.");
    else
        cp_error_hint(err, "Start Docker (systemctl start docker, or 'dockerd &'), or Podman's "
                           "API service, then run the command again.");
}

/* The engine a variable names, or a failure that names the variable: never a fallback. */
static int connect_pinned(const char *var, const char *want, struct cp_engine **out,
                          cp_error_t *err)
{
    const char *v = getenv(var);
    if (strncmp(v, "unix://", 7) != 0 || v[7] != '/') {
        cp_error_make(err, CP_ERR_UNREACHABLE, 0,
                      "%s is '%s': conch-place seals boxes only through an engine's unix socket",
                      var, v);
        cp_error_hint(err,
                      "Set %s=unix:///path/to/engine.sock, or unset it to let conch-place "
                      "find an engine on this computer.",
                      var);
        return CP_ERR_UNREACHABLE;
    }
    cleanup_engine struct cp_engine *e = NULL;
    if (cp_engine_open(v + 7, &e, err) < 0) {
        cp_error_wrap(err, "the engine %s names", var);
        cp_error_hint(err, "Start that engine, or unset %s to let conch-place find another.", var);
        return cp_error_code(err);
    }
    if (!wants(want, e->kind)) {
        cp_error_make(err, CP_ERR_UNREACHABLE, 0, "%s names %s, a %s engine, and %s was asked", var,
                      e->socket, e->kind, want);
        cp_error_hint(err, "Use --engine %s, or point %s at a %s socket.", e->kind, var, want);
        return CP_ERR_UNREACHABLE;
    }
    *out = steal_pointer(&e);
    return 0;
}

static void push_engine(struct cp_engine ***v, size_t *n, struct cp_engine *e)
{
    *v = xrealloc(*v, (*n + 2) * sizeof(**v));
    (*v)[(*n)++] = e;
    (*v)[*n] = NULL;
}

/* The pinned engines: every one must answer, or the whole lookup fails. */
static int connect_all_pinned(const char *want, struct cp_engine ***v, size_t *n, cp_error_t *err)
{
    for (size_t i = 0; pin_var(want, i) != NULL; i++) {
        const char *var = pin_var(want, i);
        struct cp_engine *e = NULL;
        if (var[0] == '\0')
            continue;
        if (connect_pinned(var, want, &e, err) < 0)
            return cp_error_code(err);
        push_engine(v, n, e);
    }
    return 0;
}

/* Every discovered engine that answers and is of the wanted kind; a socket that answers with
 * an error other than silence (an engine too old) is kept in *last for the message. */
static void connect_found(const char *want, struct cp_engine ***v, size_t *n, cp_error_t *last)
{
    cleanup_strv char **cands = cp_engine_candidates(want);
    for (size_t i = 0; cands[i] != NULL; i++) {
        struct cp_engine *e = NULL;
        cleanup_error cp_error_t one = NULL;
        if (cp_engine_open(cands[i], &e, &one) < 0) {
            if (cp_error_code(&one) != CP_ERR_UNREACHABLE && *last == NULL)
                *last = steal_pointer(&one);
            continue;
        }
        if (wants(want, e->kind))
            push_engine(v, n, e);
        else
            cp_engine_free(e);
    }
}

int cp_engine_connect_all(const char *want, struct cp_engine ***out, cp_error_t *err)
{
    struct cp_engine **v = xcalloc(1, sizeof(*v));
    size_t n = 0;
    cleanup_error cp_error_t last = NULL;
    int r = 0;
    if (pinned(want))
        r = connect_all_pinned(want, &v, &n, err);
    else
        connect_found(want, &v, &n, &last);
    if (r == 0 && n == 0 && !pinned(want) && wants(want, "podman")) {
        struct cp_engine *started = NULL;
        r = cp_engine_start_rootless(&started, err);
        if (r > 0)
            push_engine(&v, &n, started);
        r = r < 0 ? r : 0;
    }
    if (r == 0 && n == 0) {
        if (last != NULL) {
            *err = steal_pointer(&last);
            r = cp_error_code(err);
        } else {
            not_found(want, err);
            r = cp_error_code(err);
        }
    }
    if (r < 0) {
        cp_engines_free(v);
        return r;
    }
    *out = v;
    return 0;
}

int cp_engine_connect(const char *want, struct cp_engine **out, cp_error_t *err)
{
    struct cp_engine **all = NULL;
    if (cp_engine_connect_all(want, &all, err) < 0)
        return cp_error_code(err);
    *out = all[0];
    for (size_t i = 1; all[i] != NULL; i++)
        cp_engine_free(all[i]);
    free(all);
    return 0;
}
