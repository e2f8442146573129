/* Which socket to talk to: DESIGN.md's discovery order, narrowed by --engine. */
#include "config.h"

#include <stdbool.h>
#include <string.h>

#include "places/container/engine.h"
#include "src/base/paths.h"
#include "src/base/util.h"

struct list {
    char **v;
    size_t n;
};

static void add(struct list *l, char *path)
{
    for (size_t i = 0; i < l->n; i++) {
        if (strcmp(l->v[i], path) == 0) {
            free(path);
            return;
        }
    }
    l->v = xrealloc(l->v, (l->n + 2) * sizeof(char *));
    l->v[l->n++] = path;
    l->v[l->n] = NULL;
}

/* Only unix:// hosts fit: a tcp:// or ssh:// engine is not one this design can seal. */
static void add_env(struct list *l, const char *var)
{
    const char *v = getenv(var);
    if (v != NULL && strncmp(v, "unix://", 7) == 0 && v[7] == '/')
        add(l, xstrdup(v + 7));
}

static void add_podman(struct list *l, const char *runtime)
{
    add_env(l, "CONTAINER_HOST");
    add(l, xstrdup("/run/podman/podman.sock"));
    if (runtime != NULL)
        add(l, xasprintf("%s/podman/podman.sock", runtime));
}

static void add_docker(struct list *l, const char *runtime, const char *home)
{
    add_env(l, "DOCKER_HOST");
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

char **cp_engine_candidates(const char *want)
{
    struct list l = {0};
    const char *runtime = getenv("XDG_RUNTIME_DIR");
    if (runtime != NULL && runtime[0] != '/')
        runtime = NULL;
    cleanup_free char *home = NULL;
    if (cp_home_dir(&home, NULL) < 0)
        home = NULL;
    bool docker = want == NULL || strcmp(want, "podman") != 0;
    bool podman = want == NULL || strcmp(want, "docker") != 0;
    /* An explicit DOCKER_HOST names the engine the person chose: it goes first for auto too. */
    if (docker)
        add_env(&l, "DOCKER_HOST");
    if (podman)
        add_podman(&l, runtime);
    if (docker)
        add_docker(&l, runtime, home);
    if (l.v == NULL)
        l.v = xcalloc(1, sizeof(char *));
    return l.v;
}
