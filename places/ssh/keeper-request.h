/* The run request as it travels from a run to the ssh keeper: one encoder and one decoder
 * that carry every field of struct cp_run_request (the config included), so the keeper
 * serves exactly the run that was asked. JSON, checked field by field on the way in. */
#ifndef CONCH_SSH_REQUEST_H
#define CONCH_SSH_REQUEST_H

#include <stdbool.h>

#include "places/place.h"
#include "src/base/buf.h"
#include "src/base/error.h"
#include "src/base/settings/settings.h"
#include "src/base/strvec.h"

#define CP_SSH_REQUEST_MAGIC "conch-keeper 2"

/* A decoded request: req points into the strings and config it owns. */
struct cp_ssh_request {
    struct cp_run_request req;
    bool verbose;
    struct cp_strvec owned; /* argv and the other strings, freed together */
    struct cp_config config;
};

/* Appends the encoded request to out (bounded by out's maximum). */
int cp_ssh_request_encode(const struct cp_run_request *req, bool verbose, struct cp_buf *out,
                          cp_error_t *err);
/* Parses and checks data; hostile input (the socket is the user's own, but still) is refused
 * with err, nothing half-filled. */
int cp_ssh_request_decode(const char *data, size_t len, struct cp_ssh_request *out,
                          cp_error_t *err);
void cp_ssh_request_dispose(struct cp_ssh_request *r);

#endif
