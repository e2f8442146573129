/* The mirror's transport over an ssh session (mirror-transport.c; mirror/transport.h). */
#ifndef CONCH_SSH_MIRROR_TRANSPORT_H
#define CONCH_SSH_MIRROR_TRANSPORT_H

#include "mirror/mirror.h"
#include "src/base/error.h"

struct cp_ssh_session;

/* Seconds without a byte from the far side before a transfer is given up, when the config
 * sets no ServerAliveInterval (with one: four intervals). */
#define CP_SSH_IDLE_TIMEOUT 120

/* The transport over s (borrowed: it must outlive the transport). Each far script runs on its
 * own channel; a far side silent past the idle limit is given up, and every wait ends when the
 * session's stop_fd becomes readable (CP_ERR_INTERRUPTED). */
int cp_ssh_transport_new(struct cp_ssh_session *s, struct cp_transport **out, cp_error_t *err);

#endif
