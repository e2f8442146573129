/* Cleanup attributes for libssh2 handles, and the one translator of libssh2's errors
 * (handles.c). The bottom of the ssh place's connection: it uses nothing else of it. */
#ifndef CONCH_SSH_HANDLES_H
#define CONCH_SSH_HANDLES_H

#include <libssh2.h>

#include "src/base/error.h"

void cp_cleanup_libssh2_channel(LIBSSH2_CHANNEL **c);
void cp_cleanup_libssh2_agent(LIBSSH2_AGENT **a);
void cp_cleanup_libssh2_session(LIBSSH2_SESSION **s);
#define cleanup_libssh2_channel __attribute__((cleanup(cp_cleanup_libssh2_channel)))
#define cleanup_libssh2_agent   __attribute__((cleanup(cp_cleanup_libssh2_agent)))
#define cleanup_libssh2_session __attribute__((cleanup(cp_cleanup_libssh2_session)))

/* Records "what: <libssh2's last error>" with code. */
int cp_ssh_lib_error(LIBSSH2_SESSION *s, int code, cp_error_t *err, const char *what);

#endif
