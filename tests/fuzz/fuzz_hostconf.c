/* Fuzz target: the settings files the allow-list reads (~/.npmrc, ~/.bunfig.toml, pip.conf,
 * .git/config, .yarnrc.yml), each reader on the same bytes, and every address they yield
 * through the URL checks; the sign-in readers (npmrc, bunfig, .yarnrc.yml through libyaml,
 * netrc) and the address splitter on their records; and git's core.hooksPath reader
 * (src/base/git-hooks/git-config-text.c), which the gate trusts. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "places/container/allow/hostconf.h"
#include "places/container/allow/sign-in-read.h"
#include "src/base/git-hooks/git-hooks.h"
#include "src/base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void urls(char **v)
{
    for (size_t i = 0; v[i] != NULL; i++) {
        char *tab = strchr(v[i], '\t');
        free(cp_url_https_host(tab ? tab + 1 : v[i]));
        free(cp_url_host(v[i]));
    }
    cp_strv_free(v);
}

/* Each record's first field (an address, a nerf-dart, a machine) through the splitter. */
static void records(char **v)
{
    for (size_t i = 0; v[i] != NULL; i++) {
        char *first = strndup(v[i], strcspn(v[i], "\t"));
        struct cp_url u;
        if (cp_url_parse(first, &u) == 0)
            cp_url_dispose(&u);
        free(cp_percent_decode(first));
        free(first);
    }
    cp_strv_free_secret(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    urls(cp_npmrc_registries(text, size));
    urls(cp_bunfig_registries(text, size));
    urls(cp_pipconf_indexes(text, size));
    urls(cp_gitconfig_remotes(text, size));
    urls(cp_yarnrc_registries(text, size));
    records(cp_npmrc_sign_in_lines(text, size));
    records(cp_bunfig_sign_in_lines(text, size));
    records(cp_yarnrc_sign_in_lines(text, size));
    records(cp_netrc_lines(text, size));
    free(cp_git_hooks_value(text, size)); /* its key table: every program key git runs */
    free(cp_yarnrc_yarn_path(text, size));
    return 0;
}
