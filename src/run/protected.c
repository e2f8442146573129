/* The one list of protected places and its matcher. The box covers what matches (a tmpfs over
 * a folder, an empty file over a file); the mirror neither carries nor lands it. */
#include "config.h"

#include <fnmatch.h>
#include <string.h>
#include <strings.h>

#include "src/run/protected.h"
#include "src/base/settings.h"
#include "src/base/util.h"

#define NAME_MAX_BYTES 255

const char *const cp_protected_default[] = {
    /* Secrets: environments, net and package passwords, private keys, their folders. */
    ".env",
    ".env.*",
    ".netrc",
    ".pypirc",
    ".git-credentials",
    "*.pem",
    "*.key",
    "id_rsa*",
    "id_ed25519*",
    "id_ecdsa*",
    ".ssh/",
    ".aws/",
    ".gnupg/",
    ".conch/",
    /* ADR 0148's keys that publish: their registries are on the sealed box's allow-list, so a
     * readable one would put `cargo publish` or a push within reach. */
    ".cargo/credentials*",
    ".gem/credentials",
    ".config/gh/",
    ".config/hub",
    ".config/glab-cli/",
    ".config/git/credentials",
    ".gcm/",
    ".docker/config.json",
    ".terraformrc",
    ".terraform.d/credentials.tfrc.json",
    ".config/configstore/",
    ".yarnrc",
    NULL,
};

/* Host-run files (DESIGN.md, "Landing"): what this computer runs by itself, with nobody asking,
 * once it is in the folder. A sealed command may write them in its box, but they never land here
 * from any place (nor are they deleted here: removing the relay's hook would unseal the next
 * commands). Matched like the protected list, at any depth, a folder with all under it. */
const char *const cp_host_run_default[] = {
    /* Assistants: hooks, commands and agents run at the next turn; MCP servers are started. */
    ".claude/",
    ".mcp.json",
    ".cursor/",
    ".gemini/",
    /* Editors: tasks run when the folder is opened; settings name interpreters and tools. */
    ".vscode/",
    ".idea/",
    ".zed/",
    /* direnv runs .envrc on `cd`; a dev container's file names commands run when it is made. */
    ".envrc",
    ".devcontainer/",
    /* Git runs these at the next commit or checkout (core.hooksPath's folder is added per run). */
    ".pre-commit-config.yaml",
    ".husky/",
    ".gitmodules",
    /* Shells read these at start-up when the folder is a home or is sourced by a tool. */
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".zlogout",
    ".kshrc",
    ".cshrc",
    ".tcshrc",
    ".login",
    ".logout",
    ".config/fish/",
    /* Package managers act on these with the person's keys at the next install here: where
     * tokens are sent (and the sidecar's sign-ins follow: a planted registry would be allowed
     * and signed in to), and yarnPath / yarn-path and Bun's preload, which run code. */
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    "bunfig.toml",
    ".bunfig.toml",
    "pip.conf",
    NULL,
};

/* The shapes the list uses ("name", "pre*", "*.ext") without fnmatch, which is slow with
 * FNM_CASEFOLD and runs for every component of every file the mirror lists. -1: other shape. */
static int match_simple(const char *pat, const char *name)
{
    if (strpbrk(pat, "?[\\") != NULL)
        return -1;
    const char *star = strchr(pat, '*');
    if (star == NULL)
        return strcasecmp(pat, name) == 0;
    if (strchr(star + 1, '*') != NULL)
        return -1;
    size_t pre = (size_t)(star - pat), suf = strlen(star + 1), len = strlen(name);
    return len >= pre + suf && strncasecmp(name, pat, pre) == 0 &&
           strcasecmp(name + len - suf, star + 1) == 0;
}

static bool component_matches(const char *pat, size_t plen, const char *name, size_t nlen)
{
    char p[NAME_MAX_BYTES + 1], n[NAME_MAX_BYTES + 1];
    if (plen == 0 || plen > NAME_MAX_BYTES || nlen > NAME_MAX_BYTES)
        return false;
    memcpy(p, pat, plen);
    p[plen] = '\0';
    memcpy(n, name, nlen);
    n[nlen] = '\0';
    int simple = match_simple(p, n);
    return simple == 1 || (simple < 0 && fnmatch(p, n, FNM_CASEFOLD) == 0);
}

/* Pattern components right to left against rel's, from its end. */
static bool tail_matches(const char *pat, const char *rel, size_t rlen)
{
    size_t plen = strlen(pat);
    while (plen > 0 && pat[plen - 1] == '/')
        plen--;
    if (plen == 0)
        return false;
    while (plen > 0) {
        if (rlen == 0)
            return false;
        size_t ps = plen, rs = rlen;
        while (ps > 0 && pat[ps - 1] != '/')
            ps--;
        while (rs > 0 && rel[rs - 1] != '/')
            rs--;
        if (!component_matches(pat + ps, plen - ps, rel + rs, rlen - rs))
            return false;
        plen = ps > 0 ? ps - 1 : 0;
        rlen = rs > 0 ? rs - 1 : 0;
        if (ps == 0)
            return true;
    }
    return true;
}

bool cp_protected_is_n(const char *const *patterns, const char *rel, size_t rlen)
{
    const char *const *pats = patterns != NULL ? patterns : cp_protected_default;
    for (size_t i = 0; pats[i] != NULL; i++)
        if (tail_matches(pats[i], rel, rlen))
            return true;
    return false;
}

bool cp_protected_is(const char *const *patterns, const char *rel)
{
    return cp_protected_is_n(patterns, rel, strlen(rel));
}

bool cp_protected_within(const char *const *patterns, const char *rel)
{
    for (const char *slash = strchr(rel, '/'); slash != NULL; slash = strchr(slash + 1, '/'))
        if (cp_protected_is_n(patterns, rel, (size_t)(slash - rel)))
            return true;
    return cp_protected_is_n(patterns, rel, strlen(rel));
}

const char *const *cp_protected_in_force(const struct cp_config *cfg, char ***owned_out)
{
    json_object *extra = NULL;
    *owned_out = NULL;
    if (cfg == NULL || cfg->root == NULL ||
        !json_object_object_get_ex(cfg->root, "protected", &extra) ||
        !json_object_is_type(extra, json_type_array) || json_object_array_length(extra) == 0)
        return cp_protected_default;
    size_t base = 0;
    while (cp_protected_default[base] != NULL)
        base++;
    size_t n = json_object_array_length(extra);
    char **v = xcalloc(base + n + 1, sizeof(char *));
    for (size_t i = 0; i < base; i++)
        v[i] = xstrdup(cp_protected_default[i]);
    size_t k = base;
    for (size_t i = 0; i < n; i++) {
        const char *name = json_object_get_string(json_object_array_get_idx(extra, i));
        if (name != NULL && name[0] != '\0')
            v[k++] = xstrdup(name);
    }
    *owned_out = v;
    return (const char *const *)v;
}
