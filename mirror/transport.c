/* Thin dispatch to a transport's ops, so callers hold one handle and never a vtable. */
#include "config.h"

#include "mirror/transport.h"

int cp_remote_start(struct cp_transport *t, const char *script, const char *const *argv,
                    struct cp_remote **out, cp_error_t *err)
{
    return t->ops->start(t, script, argv, out, err);
}

int cp_remote_write(struct cp_remote *r, const void *buf, size_t len, cp_error_t *err)
{
    return r->ops->write_stdin(r, buf, len, err);
}

int cp_remote_close_stdin(struct cp_remote *r, cp_error_t *err)
{
    return r->ops->close_stdin(r, err);
}

ssize_t cp_remote_read(struct cp_remote *r, void *buf, size_t len, cp_error_t *err)
{
    return r->ops->read_stdout(r, buf, len, err);
}

ssize_t cp_remote_read_stderr(struct cp_remote *r, void *buf, size_t len, cp_error_t *err)
{
    return r->ops->read_stderr(r, buf, len, err);
}

int cp_remote_wait(struct cp_remote *r, int *status_out, cp_error_t *err)
{
    return r->ops->wait(r, status_out, err);
}

void cp_remote_free(struct cp_remote *r)
{
    if (r != NULL)
        r->ops->remote_free(r);
}

void cp_transport_free(struct cp_transport *t)
{
    if (t != NULL)
        t->ops->free(t);
}

void cp_transport_guard(struct cp_transport *t, const char *text)
{
    if (t->ops->guard != NULL)
        t->ops->guard(t, text);
}

void cp_transport_closing(struct cp_transport *t)
{
    if (t != NULL && t->ops->closing != NULL)
        t->ops->closing(t);
}

void cp_cleanup_remotep(struct cp_remote **r)
{
    cp_remote_free(*r);
}

void cp_cleanup_transportp(struct cp_transport **t)
{
    cp_transport_free(*t);
}
