/* HTTP/1.1 over a unix socket without libcurl (the engines' API): http.h's request and answer,
 * one request per connection. cp_http_perform sends a request with a unix_socket here. */
#ifndef CONCH_HTTP_UNIX_H
#define CONCH_HTTP_UNIX_H

#include <stdbool.h>

#include "src/base/http.h"

int cp_http_unix_perform(const struct cp_http_req *req, struct cp_http_resp *out, cp_error_t *err);

/* The same in two halves, so that several requests wait at once: the request sent on a new
 * connection (*fd_out, no streamed body), then its answer read there and the connection
 * closed. The time-out counts in each half. */
int cp_http_unix_send(const struct cp_http_req *req, int *fd_out, cp_error_t *err);
int cp_http_unix_receive(int fd, const struct cp_http_req *req, struct cp_http_resp *out,
                         cp_error_t *err);

/* Feeds the answer's bytes as they come (eof: the peer closed, data ignored): 1 when the answer
 * is whole, 0 for more, or an error. *state starts NULL; the caller frees it. out's buffers are
 * the caller's, initialised. Apart for the fuzz target: the answer is the engine's words. */
int cp_http_unix_parse(const struct cp_http_req *req, struct cp_http_resp *out, const char *data,
                       size_t len, bool eof, void **state, cp_error_t *err);

#endif
