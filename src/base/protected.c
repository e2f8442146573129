/* The one list of protected places and its matcher. The box covers what matches (a tmpfs over
 * a folder, an empty file over a file); the mirror neither carries nor lands it. */
#include "config.h"

#include <fnmatch.h>
#include <string.h>
#include <strings.h>

#include "src/base/protected.h"
#include "src/base/settings/settings.h"
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
 * commands). Matched like the protected list: at any depth where the tool reads the file in
 * whatever folder it runs in or in a parent of it; "/name" only at the work folder's top, where
 * the tool reads it only at a repository's top; "a/ ** /b" (no spaces) b anywhere under a. What
 * the folder's own settings name (git's includes, core.hooksPath and core.fsmonitor, yarnPath)
 * is added per run (src/base/git-hooks/git-hooks.h). */
const char *const cp_host_run_default[] = {
    /* Assistants: hooks, commands and agents run at the next turn; MCP servers are started. */
    ".claude/",
    ".mcp.json",
    ".cursor/",
    ".gemini/",        /* Gemini CLI: settings start MCP servers and run hooks; any depth */
    ".codex/",         /* Codex CLI: config.toml's MCP servers and notify command; any depth */
    ".windsurf/",      /* Windsurf: workflows and MCP servers of the opened folder; any depth */
    ".continue/",      /* Continue: config's MCP servers and context providers; any depth */
    ".roo/",           /* Roo Code: mcp.json's servers; any depth (the folder opened) */
    ".kiro/",          /* Kiro: hooks run on file events, MCP servers; any depth */
    ".aider.conf.yml", /* aider: lint-cmd and test-cmd run after each edit; cwd and repo top */
    "opencode.json",   /* opencode: MCP servers and plugins; read from cwd up to the repo top */
    "opencode.jsonc",  /* opencode: the same, with comments */
    ".opencode/",      /* opencode: plugins (code it loads), commands, agents; any depth */
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
    /* Hook managers, each read at a repository's top only: lefthook (its config, the local
     * one, and the script folders it runs), overcommit, and pre-commit's hook manifest (what a
     * repository offers as hooks, run where pre-commit installs it). */
    "/lefthook.yml",
    "/.lefthook.yml",
    "/lefthook-local.yml",
    "/.lefthook-local.yml",
    "/.config/lefthook.yml",
    "/.lefthook/",
    "/.lefthook-local/",
    "/.overcommit.yml",
    "/.pre-commit-hooks.yaml",
    /* ripgrep reads one config file (RIPGREP_CONFIG_PATH, a home's): --pre runs a command for
     * every file searched. Only at the top, where a home's would be. */
    "/.ripgreprc",
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
     * and signed in to), and yarnPath / yarn-path and Bun's preload, which run code. .npmrc and
     * .yarnrc.yml are project data too: a box's file lands when every key it changed is a data
     * key (mirror/run-keys.c), else it is refused naming the key. */
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    "bunfig.toml",
    ".bunfig.toml",
    "pip.conf",
    ".pnpmfile.cjs", /* pnpm runs it at the next install, --ignore-scripts too; any project */
    ".pnpmfile.mjs", /* pnpm 10's ESM pnpmfile, the same */
    /* cargo reads .cargo/config in the folder it runs in and every parent: rustc-wrapper,
     * target runners and aliases run at the next build. Data too: they land by their keys
     * like .npmrc (mirror/run-keys.c), profile.*.opt-level yes, build.rustc-wrapper never. */
    ".cargo/config.toml",
    ".cargo/config",
    /* rustup installs and runs the toolchain these name (a path too), from cwd upward. */
    "rust-toolchain",
    "rust-toolchain.toml",
    /* mise runs hooks, env scripts and tasks on `cd`, reading these from cwd up to /. */
    "mise.toml",
    ".mise.toml",
    "mise.*.toml", /* mise.local.toml, mise.ENV.toml */
    ".mise.*.toml",
    "mise/",
    ".mise/",
    "mise-tasks/",
    ".mise-tasks/",
    ".tool-versions",
    /* .config/mise/, .config/mise.toml and .config/mise.*.toml are the entries above at depth. */
    ".rtx.toml", /* mise's former name, still read */
    NULL,
};

/* Python's start-up code in environments (host-run too; the words name it apart): Python runs a
 * site folder's .pth lines and sitecustomize / usercustomize at every start of that interpreter
 * here, and editors start a folder's environments by themselves; a virtual environment's
 * activate scripts are sourced by the terminals they open, and its pyvenv.cfg names the
 * interpreter's home. Any depth; the rest of the environment lands. */
const char *const cp_host_run_python[] = {
    "site-packages/**/*.pth",
    "site-packages/**/sitecustomize.py",
    "site-packages/**/usercustomize.py",
    "dist-packages/**/*.pth",
    "dist-packages/**/sitecustomize.py",
    "dist-packages/**/usercustomize.py",
    ".venv/**/*.pth", /* Windows reads the environment's own top as a site folder */
    ".venv/**/sitecustomize.py",
    ".venv/**/usercustomize.py",
    "venv/**/*.pth",
    "venv/**/sitecustomize.py",
    "venv/**/usercustomize.py",
    "bin/activate*",
    "Scripts/activate*",
    "pyvenv.cfg",
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

/* Pattern components pat[0, plen) right to left against rel[0, rlen)'s, from its end: whether
 * all of them match, and where in rel the match began (*start_out). */
static bool tail_at(const char *pat, size_t plen, const char *rel, size_t rlen, size_t *start_out)
{
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
        if (ps == 0) {
            *start_out = rs;
            return true;
        }
        plen = ps - 1;
        rlen = rs > 0 ? rs - 1 : 0;
    }
    return false;
}

/* Whether pat[0, plen) matches consecutive components of rel[0, rlen) ending anywhere in it (at
 * its start, when top). */
static bool occurs_in(const char *pat, size_t plen, const char *rel, size_t rlen, bool top)
{
    size_t start = 0;
    for (size_t end = rlen;; end--) {
        if ((end == rlen || rel[end] == '/') && tail_at(pat, plen, rel, end, &start) &&
            (!top || start == 0))
            return true;
        if (end == 0)
            return false;
    }
}

/* One pattern against rel: a leading '/' matches only from the work folder's top, a "**"
 * component any number of components (none too), a trailing '/' is dropped here (the folder's
 * contents are cp_protected_within's). */
static bool pattern_matches(const char *pat, const char *rel, size_t rlen)
{
    bool top = pat[0] == '/';
    if (top)
        pat++;
    size_t plen = strlen(pat);
    while (plen > 0 && pat[plen - 1] == '/')
        plen--;
    if (plen == 0)
        return false;
    const char *any = NULL;
    for (const char *c = pat; c < pat + plen; c++)
        if ((c == pat || c[-1] == '/') && c[0] == '*' && c[1] == '*' &&
            (c + 2 == pat + plen || c[2] == '/'))
            any = c;
    size_t start = 0;
    if (any == NULL)
        return tail_at(pat, plen, rel, rlen, &start) && (!top || start == 0);
    /* "head/ ** /tail": the tail at rel's end, the head anywhere before it (from the top, when
     * top); one "**" (the last) is read as such. */
    size_t tail_off = any + 2 < pat + plen ? (size_t)(any + 3 - pat) : plen;
    size_t before = rlen;
    if (tail_off < plen) {
        if (!tail_at(pat + tail_off, plen - tail_off, rel, rlen, &start))
            return false;
        before = start > 0 ? start - 1 : 0;
        if (start == 0)
            return any == pat;
    }
    size_t head = any > pat ? (size_t)(any - pat) - 1 : 0;
    return head == 0 || occurs_in(pat, head, rel, before, top);
}

bool cp_protected_is_n(const char *const *patterns, const char *rel, size_t rlen)
{
    const char *const *pats = patterns != NULL ? patterns : cp_protected_default;
    for (size_t i = 0; pats[i] != NULL; i++)
        if (pattern_matches(pats[i], rel, rlen))
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
