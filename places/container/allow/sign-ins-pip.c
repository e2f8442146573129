/* pip's sign-ins: the user:password in an index's address in either pip.conf, else ~/.netrc's
 * entry for its host (as pip does), for the index and the files beside it. */
#include "config.h"

#include <string.h>
#include <strings.h>

#include "places/container/allow/hostconf.h"
#include "places/container/allow/sign-ins-sources.h"
#include "src/base/util.h"

/* pip sends an index's credentials to the files beside it too: an index at ".../simple/" has
 * its files under ".../" on Artifactory, Nexus, GitLab, CodeArtifact and devpi ("+simple"),
 * so the prefix is the index's parent there; elsewhere the index's own path. */
static char *pip_prefix(const char *path)
{
    char *p = cp_sign_in_prefix(path);
    size_t n = strlen(p);
    if (n >= 8 && strcmp(p + n - 8, "/simple/") == 0)
        p[n - 7] = '\0';
    else if (n >= 9 && strcmp(p + n - 9, "/+simple/") == 0)
        p[n - 8] = '\0';
    return p;
}

/* ~/.netrc's entry for host, else its default: a Basic header, or NULL. */
static char *netrc_basic(char **netrc, const char *host)
{
    char *found = NULL;
    for (size_t i = 0; netrc[i] != NULL; i++) {
        size_t hl = strcspn(netrc[i], "\t");
        bool exact = hl == strlen(host) && strncasecmp(netrc[i], host, hl) == 0;
        if (exact || (hl == 0 && found == NULL))
            found = netrc[i];
        if (exact)
            break;
    }
    if (found == NULL)
        return NULL;
    size_t n = strlen(found);
    char *copy = xstrdup(found), *f[3];
    char *a = cp_sign_in_fields(copy, f, 3) ? cp_sign_in_basic(f[1], f[2]) : NULL;
    cp_sign_in_free_text(copy, n);
    return a;
}

static void pip_urls(struct cp_sign_ins *s, char **urls, char **netrc, const char *shown)
{
    for (size_t i = 0; urls[i] != NULL; i++) {
        cleanup_url struct cp_url u = {0};
        if (cp_url_parse(urls[i], &u) < 0)
            continue;
        char *a = cp_sign_in_url_basic(urls[i]);
        const char *source = shown;
        if (a == NULL && u.password == NULL) {
            a = netrc_basic(netrc, u.host);
            source = "~/.netrc";
        }
        cp_sign_ins_add_for_url(s, urls[i], a, source, pip_prefix);
    }
}

int cp_sign_ins_pip_files(struct cp_sign_ins *s, const struct cp_settings_sources *src,
                          cp_error_t *err)
{
    cleanup_free char *xdg = cp_settings_xdg_dir(src);
    cleanup_free char *pip1 = xasprintf("%s/pip/pip.conf", xdg);
    cleanup_free char *pip2 = xasprintf("%s/.pip/pip.conf", src->home);
    cleanup_free char *netrc_path = xasprintf("%s/.netrc", src->home);
    cleanup_strv_secret char **netrc = NULL;
    cleanup_strv_secret char **urls1 = NULL;
    cleanup_strv_secret char **urls2 = NULL;
    if (cp_sign_in_records(netrc_path, "~/.netrc", cp_netrc_lines, &netrc, err) < 0 ||
        cp_sign_in_records(pip1, "pip's pip.conf", cp_pipconf_indexes, &urls1, err) < 0 ||
        cp_sign_in_records(pip2, "~/.pip/pip.conf", cp_pipconf_indexes, &urls2, err) < 0)
        return cp_error_code(err);
    pip_urls(s, urls1, netrc, "pip's pip.conf");
    pip_urls(s, urls2, netrc, "~/.pip/pip.conf");
    return 0;
}
