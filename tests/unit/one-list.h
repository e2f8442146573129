/* DESIGN.md's one list of protected places, written out here rather than read from the
 * table (src/base/protected.c), so that a pattern dropped from the table fails the tests of the
 * box and of the mirror alike. Each is a file, or a file inside the folder it names. */
#ifndef CONCH_TEST_ONE_LIST_H
#define CONCH_TEST_ONE_LIST_H

static const char *const one_list_paths[] = {
    ".env",
    ".env.local",
    ".netrc",
    ".pypirc",
    ".git-credentials",
    "server.pem",
    "tls.key",
    "id_rsa",
    "id_ed25519.pub",
    "id_ecdsa",
    ".ssh/config",
    ".aws/credentials",
    ".gnupg/pubring.kbx",
    ".conch/config.json",
    ".cargo/credentials.toml",
    ".cargo/credentials",
    ".gem/credentials",
    ".config/gh/hosts.yml",
    ".config/hub",
    ".config/glab-cli/config.yml",
    ".config/git/credentials",
    ".gcm/store",
    ".docker/config.json",
    ".terraformrc",
    ".terraform.d/credentials.tfrc.json",
    ".config/configstore/update-notifier.json",
    ".yarnrc",
};

#endif
