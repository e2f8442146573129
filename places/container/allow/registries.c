/* REGISTRY_HOSTS of ADR 0148. Each is reached on port 443 only (the sidecar allows nothing
 * else), so neither SSH to GitHub nor plain HTTP is in reach. Exact names, never a *.suffix:
 * a suffix would take in hosts that serve anyone's uploads. Left off on purpose, because
 * anyone can upload to them with a signed address or their own key: upload.pypi.org,
 * api.github.com, gist.githubusercontent.com and the clouds' buckets. When a registry moves,
 * a missing host only means that command fails sealed and the hint names it. */
#include "config.h"

#include <stddef.h>

#include "places/container/allow/registries.h"

const struct cp_registry cp_registries[] = {
    /* npm's own registry is not written here: it is npm's default, asked of this computer's
     * npm (npm-default.c). Yarn 1 and Bun read the same packages through Yarn's mirror. */
    {"registry.yarnpkg.com", CP_REG_NPM, "Yarn's registry"},
    /* Python: the index, then the files it points at. */
    {"pypi.org", CP_REG_PYPI, "PyPI, the Python package index"},
    {"files.pythonhosted.org", CP_REG_PYPI, "PyPI's package files"},
    /* Rust: the site's API for downloads, the sparse index, the files. */
    {"crates.io", CP_REG_OTHER, "crates.io, the Rust registry"},
    {"index.crates.io", CP_REG_OTHER, "crates.io's sparse index"},
    {"static.crates.io", CP_REG_OTHER, "crates.io's package files"},
    /* Go: the module proxy and the checksum database it is checked against. */
    {"proxy.golang.org", CP_REG_OTHER, "the Go module proxy"},
    {"sum.golang.org", CP_REG_OTHER, "the Go checksum database"},
    /* Ruby. */
    {"rubygems.org", CP_REG_OTHER, "RubyGems"},
    {"index.rubygems.org", CP_REG_OTHER, "RubyGems' compact index"},
    /* Homebrew: the formulae's API, and bottles from GitHub's package registry. */
    {"formulae.brew.sh", CP_REG_OTHER, "Homebrew's formulae"},
    {"ghcr.io", CP_REG_OTHER, "Homebrew's bottles (GitHub's package registry)"},
    {"pkg-containers.githubusercontent.com", CP_REG_OTHER, "Homebrew's bottle downloads"},
    /* GitHub: clones and pulls, archives, release files, raw files. */
    {"github.com", CP_REG_OTHER, "GitHub (clones, pulls, releases)"},
    {"codeload.github.com", CP_REG_OTHER, "GitHub's archive downloads"},
    {"objects.githubusercontent.com", CP_REG_OTHER, "GitHub's release downloads"},
    {"release-assets.githubusercontent.com", CP_REG_OTHER, "GitHub's release downloads"},
    {"raw.githubusercontent.com", CP_REG_OTHER, "GitHub's raw files"},
    /* The other two forges. */
    {"gitlab.com", CP_REG_OTHER, "GitLab"},
    {"bitbucket.org", CP_REG_OTHER, "Bitbucket"},
    {NULL, CP_REG_OTHER, NULL},
};
