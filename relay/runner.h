/* The runner: `conch-place relay run URL`, what an assistant's shell runs in place of the
 * command it wrote. It fetches the run from the door on 127.0.0.1 in the framed form and
 * gives back the command's two streams apart and its exit status as its own (cp_relay_runner,
 * relay/relay.h). What the tests reach besides. */
#ifndef CONCH_RELAY_RUNNER_H
#define CONCH_RELAY_RUNNER_H

#include "relay/request.h"
#include "src/base/error.h"

/* http://127.0.0.1:PORT/run/TICKET (or localhost, which means 127.0.0.1 here: no lookup).
 * 0, or -1 for anything else. */
int cp_relay_parse_url(const char *url, unsigned *port, char ticket[CP_RELAY_TICKET_HEX + 1]);

#endif
