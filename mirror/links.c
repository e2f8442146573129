/* Links judged by where they lead (links.h). Every name is reached from the folder's handle or
 * the layer's one folder at a time without following a link (mirror/walk.c); a link is read,
 * never followed by the kernel. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mirror/links.h"
#include "mirror/walk.h"
#include "src/base/strvec.h"
#include "src/base/util.h"

#define SCAN_DEPTH  64
#define ALIASES_MAX 64
#define STR_(x)     #x
#define STR(x)      STR_(x)

struct cp_links {
    int rootfd, upperfd;
    uint64_t dev, updev;
    const struct cp_rules *r;
    bool scanned;
    struct cp_strvec from, to; /* the link at from[i] leads to to[i] ("" the folder itself) */
};

struct cp_links *cp_links_new(int rootfd, int upperfd, const struct cp_rules *r)
{
    struct cp_links *k = xcalloc(1, sizeof(*k));
    struct stat st;
    k->rootfd = rootfd;
    k->upperfd = upperfd;
    k->r = r;
    k->dev = fstat(rootfd, &st) == 0 ? (uint64_t)st.st_dev : 0;
    k->updev = upperfd >= 0 && fstat(upperfd, &st) == 0 ? (uint64_t)st.st_dev : 0;
    return k;
}

void cp_links_free(struct cp_links *k)
{
    if (k == NULL)
        return;
    cp_strvec_dispose(&k->from);
    cp_strvec_dispose(&k->to);
    free(k);
}

/* What one side holds at path: a link (its text in t, true) or, in *plain, anything else that
 * stays (a whiteout is nothing). */
static bool link_text(int base, uint64_t dev, const char *path, char *t, size_t n, bool *plain)
{
    cleanup_close int dirfd = -1;
    const char *b = NULL, *why = NULL;
    struct stat st;
    if (base < 0 || cp_walk_parent(base, dev, path, false, &dirfd, &b, &why) < 0 ||
        fstatat(dirfd, b, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return false;
    if (!S_ISLNK(st.st_mode)) {
        if (!(S_ISCHR(st.st_mode) && st.st_rdev == makedev(0, 0)))
            *plain = true;
        return false;
    }
    ssize_t got = readlinkat(dirfd, b, t, n - 1);
    if (got < 0)
        return false;
    t[got] = '\0';
    return true;
}

struct way {
    struct cp_links *k;
    int budget; /* links left to follow, over every branch */
    bool judge; /* each place on the way under the rules */
    const char *why;
    struct cp_strvec *ends;
};

static void follow(struct way *w, const char *from, const char *text);

/* One name on the way, both sides' versions of it: each link is followed with the rest of the
 * way; true when something that is not a link (or nothing) may stand there too. */
static bool step(struct way *w, const char *cur, const char *next, const char *rest)
{
    struct cp_links *k = w->k;
    char t[2][4096];
    bool plain = false, linked[2];
    linked[0] = link_text(k->upperfd, k->updev, next, t[0], sizeof(t[0]), &plain);
    linked[1] = link_text(k->rootfd, k->dev, next, t[1], sizeof(t[1]), &plain);
    if (linked[0] && linked[1] && strcmp(t[0], t[1]) == 0)
        linked[1] = false;
    for (int i = 0; i < 2 && w->why == NULL; i++) {
        if (!linked[i])
            continue;
        if (--w->budget < 0)
            w->why = "a link whose way takes more than " STR(CP_LINKS_MAX) " links";
        else if (t[i][0] == '/')
            w->why = "a link whose way passes a link to an absolute path";
        else {
            cleanup_free char *whole = xasprintf("%s/%s", t[i], rest);
            follow(w, cur, whole);
        }
    }
    return plain || (!linked[0] && !linked[1]);
}

/* Resolves text from the folder from ("" the top), one name at a time. */
static void follow(struct way *w, const char *from, const char *text)
{
    cleanup_free char *cur = xstrdup(from);
    for (const char *p = text; *p != '\0' && w->why == NULL;) {
        size_t n = strcspn(p, "/");
        const char *rest = p[n] != '\0' ? p + n + 1 : p + n;
        if (n == 0 || (n == 1 && p[0] == '.')) {
            p = rest;
            continue;
        }
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            if (cur[0] == '\0') {
                w->why = "a link that leads out of the work folder";
                return;
            }
            char *slash = strrchr(cur, '/');
            *(slash != NULL ? slash : cur) = '\0';
            p = rest;
            continue;
        }
        if (n > CP_NAME_MAX) {
            w->why = "a link whose way names too long a name";
            return;
        }
        char *next = cur[0] ? xasprintf("%s/%.*s", cur, (int)n, p) : xasprintf("%.*s", (int)n, p);
        const char *bad = w->judge ? cp_links_place_why(w->k, next) : NULL;
        if (bad != NULL) {
            w->why = strcmp(bad, CP_RULES_HOST_RUN) == 0
                         ? "a link through or to a host-run place"
                         : "a link through or to a place that never lands";
            free(next);
            return;
        }
        bool stays = step(w, cur, next, rest);
        free(cur);
        cur = next;
        if (!stays)
            return; /* every way on from here went through a link, followed above */
        p = rest;
    }
    if (w->why == NULL && w->ends != NULL)
        cp_strvec_push(w->ends, cur);
}

static void note_link(struct cp_links *k, const char *path, const char *text)
{
    if (text[0] == '/')
        return; /* out of the folder: nothing in it is reached so */
    struct cp_strvec ends = {0};
    struct way w = {.k = k, .budget = CP_LINKS_MAX, .ends = &ends};
    const char *slash = strrchr(path, '/');
    cleanup_free char *from = slash ? xasprintf("%.*s", (int)(slash - path), path) : xstrdup("");
    follow(&w, from, text);
    for (size_t i = 0; i < ends.n; i++) {
        cp_strvec_push(&k->from, path);
        cp_strvec_push(&k->to, ends.v[i]);
    }
    cp_strvec_dispose(&ends);
}

/* Every link on one side, outside .git, dependency folders and the gate's staging. */
static void scan(struct cp_links *k, int fd, uint64_t dev, const char *rel, int depth)
{
    int dfd = dup(fd);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (d == NULL) {
        if (dfd >= 0)
            close(dfd);
        return;
    }
    rewinddir(d); /* the dup shares the read position of a folder read before */
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        const char *name = e->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strcasecmp(name, ".git") == 0 ||
            cp_rules_is_dep_folder(name) ||
            strncmp(name, CP_STAGING_PREFIX, strlen(CP_STAGING_PREFIX)) == 0)
            continue;
        cleanup_free char *path = rel[0] ? xasprintf("%s/%s", rel, name) : xstrdup(name);
        struct stat st;
        if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
            continue;
        if (S_ISLNK(st.st_mode)) {
            char t[4096];
            ssize_t n = readlinkat(fd, name, t, sizeof(t) - 1);
            if (n >= 0) {
                t[n] = '\0';
                note_link(k, path, t);
            }
        } else if (S_ISDIR(st.st_mode) && depth < SCAN_DEPTH && (uint64_t)st.st_dev == dev) {
            cleanup_close int sub =
                openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0)
                scan(k, sub, dev, path, depth + 1);
        }
    }
    closedir(d);
}

const char *cp_links_place_why(struct cp_links *k, const char *path)
{
    const char *why = cp_rules_check_back(k->r, path);
    if (why != NULL)
        return why;
    if (!k->scanned) {
        k->scanned = true;
        scan(k, k->rootfd, k->dev, "", 0);
        if (k->upperfd >= 0)
            scan(k, k->upperfd, k->updev, "", 0);
    }
    struct cp_strvec names = {0};
    cp_strvec_push(&names, path);
    for (size_t i = 0; i < names.n && names.n < ALIASES_MAX && why == NULL; i++) {
        const char *p = names.v[i];
        for (size_t j = 0; j < k->to.n && why == NULL; j++) {
            const char *to = k->to.v[j];
            size_t n = strlen(to);
            if (n > 0 && (strncmp(p, to, n) != 0 || (p[n] != '\0' && p[n] != '/')))
                continue;
            cleanup_free char *alias = n > 0 ? xasprintf("%s%s", k->from.v[j], p + n)
                                             : xasprintf("%s/%s", k->from.v[j], p);
            if (strlen(alias) > CP_PATH_MAX || cp_strvec_has(&names, alias))
                continue;
            why = cp_rules_check_back(k->r, alias);
            cp_strvec_push(&names, alias);
        }
    }
    cp_strvec_dispose(&names);
    return why;
}

const char *cp_links_link_why(struct cp_links *k, const char *path, const char *target)
{
    if (target[0] == '\0')
        return "a link to nothing";
    if (target[0] == '/')
        return "a link to an absolute path";
    struct way w = {.k = k, .budget = CP_LINKS_MAX, .judge = true};
    const char *slash = strrchr(path, '/');
    cleanup_free char *from = slash ? xasprintf("%.*s", (int)(slash - path), path) : xstrdup("");
    follow(&w, from, target);
    return w.why;
}
