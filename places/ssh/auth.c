/* Authentication: the agent first, then key files that need no passphrase. Never a prompt:
 * a key that needs a passphrase is skipped (load it into ssh-agent instead). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "places/ssh/auth.h"
#include "places/ssh/session.h"
#include "src/base/digest.h"
#include "src/base/log.h"
#include "src/base/paths.h"
#include "src/base/util.h"

/* The public key blob of IdentityFile's .pub, for IdentitiesOnly; NULL when unreadable. */
static unsigned char *pub_blob(const char *identity, size_t *len_out)
{
    cleanup_free char *path = xasprintf("%s.pub", identity);
    cleanup_free char *text = NULL;
    cleanup_error cp_error_t err = NULL;
    if (cp_read_file(path, 64 * 1024, &text, NULL, &err) < 0)
        return NULL;
    char *save = NULL;
    if (strtok_r(text, " \t\n", &save) == NULL)
        return NULL;
    char *b64 = strtok_r(NULL, " \t\n", &save);
    unsigned char *blob = NULL;
    if (b64 == NULL || cp_base64_decode(b64, strlen(b64), &blob, len_out) < 0)
        return NULL;
    return blob;
}

/* With IdentitiesOnly, an agent key is offered only if an IdentityFile names it. */
static bool agent_key_allowed(const struct cp_ssh_host *h, const struct libssh2_agent_publickey *k)
{
    if (!h->identities_only)
        return true;
    for (size_t i = 0; i < h->identity_files.n; i++) {
        size_t len = 0;
        cleanup_free unsigned char *blob = pub_blob(h->identity_files.v[i], &len);
        if (blob != NULL && len == k->blob_len && memcmp(blob, k->blob, len) == 0)
            return true;
    }
    return false;
}

static bool try_agent(struct cp_ssh_session *s, const struct cp_ssh_host *h)
{
    if (strcmp(h->identity_agent, "none") == 0)
        return false;
    cleanup_libssh2_agent LIBSSH2_AGENT *agent = libssh2_agent_init(s->lib);
    if (agent == NULL)
        return false;
    if (strcmp(h->identity_agent, "SSH_AUTH_SOCK") != 0)
        libssh2_agent_set_identity_path(agent, h->identity_agent);
    else if (getenv("SSH_AUTH_SOCK") == NULL)
        return false;
    if (libssh2_agent_connect(agent) != 0 || libssh2_agent_list_identities(agent) != 0)
        return false;
    struct libssh2_agent_publickey *k = NULL, *prev = NULL;
    while (libssh2_agent_get_identity(agent, &k, prev) == 0) {
        prev = k;
        if (agent_key_allowed(h, k) && libssh2_agent_userauth(agent, h->user, k) == 0)
            return true;
    }
    return false;
}

/* A private key others can read is skipped, as ssh skips it. */
static bool key_file_usable(const char *path)
{
    cleanup_close int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
        return false;
    if ((st.st_uid != 0 && st.st_uid != getuid()) || (st.st_mode & 077) != 0) {
        cp_say("%s: others can read or change this private key; it is not used", path);
        return false;
    }
    return true;
}

static bool try_files(struct cp_ssh_session *s, const struct cp_ssh_host *h)
{
    for (size_t i = 0; i < h->identity_files.n; i++) {
        const char *path = h->identity_files.v[i];
        if (!key_file_usable(path))
            continue;
        /* An empty passphrase, never NULL: a prompt is never possible, and libssh2's OpenSSL
         * backend reads a NULL passphrase as a string. */
        if (libssh2_userauth_publickey_fromfile_ex(s->lib, h->user, (unsigned)strlen(h->user), NULL,
                                                   path, "") == 0)
            return true;
        cp_debug("%s: not accepted, or needs a passphrase", path);
    }
    return false;
}

int ssh_authenticate(struct cp_ssh_session *s, const struct cp_ssh_host *h, cp_error_t *err)
{
    const char *methods = libssh2_userauth_list(s->lib, h->user, (unsigned)strlen(h->user));
    if (methods == NULL && libssh2_userauth_authenticated(s->lib))
        return 0;
    if (methods == NULL)
        return cp_ssh_lib_error(s->lib, CP_ERR_DENIED, err, "cannot ask how to log in");
    if (strstr(methods, "publickey") == NULL)
        return cp_error_make(err, CP_ERR_DENIED, 0, "%s offers no key login for %s (only: %s)",
                             h->alias, h->user, methods);
    if (try_agent(s, h) || try_files(s, h))
        return 0;
    cp_error_make(err, CP_ERR_DENIED, 0, "%s refused every key offered for %s", h->alias, h->user);
    cp_error_hint(err, "Load the key into ssh-agent (`ssh-add`), or name a key that needs no "
                       "passphrase with IdentityFile; conch-place never asks for a passphrase.");
    return CP_ERR_DENIED;
}
