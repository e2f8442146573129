/* Thin dispatch to a transport's ops, so callers hold one handle and never a vtable. */
#include "config.h"

#include "mirror/transport.h"

int cp_far_proc_start(struct cp_transport *t, const char *script, const char *const *argv,
                      struct cp_far_proc **out, cp_error_t *err)
{
    return t->ops->start(t, script, argv, out, err);
}

int cp_far_proc_write(struct cp_far_proc *r, const void *buf, size_t len, cp_error_t *err)
{
    return r->ops->write_stdin(r, buf, len, err);
}

int cp_far_proc_close_stdin(struct cp_far_proc *r, cp_error_t *err)
{
    return r->ops->close_stdin(r, err);
}

ssize_t cp_far_proc_read(struct cp_far_proc *r, void *buf, size_t len, cp_error_t *err)
{
    return r->ops->read_stdout(r, buf, len, err);
}

ssize_t cp_far_proc_read_stderr(struct cp_far_proc *r, void *buf, size_t len, cp_error_t *err)
{
    return r->ops->read_stderr(r, buf, len, err);
}

int cp_far_proc_wait(struct cp_far_proc *r, int *status_out, cp_error_t *err)
{
    return r->ops->wait(r, status_out, err);
}

void cp_far_proc_free(struct cp_far_proc *r)
{
    if (r != NULL)
        r->ops->proc_free(r);
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

void cp_cleanup_far_procp(struct cp_far_proc **r)
{
    cp_far_proc_free(*r);
}

void cp_cleanup_transportp(struct cp_transport **t)
{
    cp_transport_free(*t);
}
