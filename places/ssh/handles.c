/* libssh2's handles and errors: the cleanup attributes every owner of a libssh2 handle uses,
 * and the one translator of libssh2's errors into ours (handles.h). */
#include "config.h"

#include "places/ssh/handles.h"

void cp_cleanup_libssh2_channel(LIBSSH2_CHANNEL **c)
{
    if (*c != NULL)
        libssh2_channel_free(*c);
}

void cp_cleanup_libssh2_agent(LIBSSH2_AGENT **a)
{
    if (*a == NULL)
        return;
    libssh2_agent_disconnect(*a);
    libssh2_agent_free(*a);
}

void cp_cleanup_libssh2_session(LIBSSH2_SESSION **s)
{
    if (*s != NULL)
        libssh2_session_free(*s);
}

int cp_ssh_lib_error(LIBSSH2_SESSION *s, int code, cp_error_t *err, const char *what)
{
    char *msg = NULL;
    int rc = s != NULL ? libssh2_session_last_error(s, &msg, NULL, 0) : 0;
    if (msg == NULL || msg[0] == '\0')
        return cp_error_make(err, code, 0, "%s (libssh2 error %d)", what, rc);
    return cp_error_make(err, code, 0, "%s: %s", what, msg);
}
