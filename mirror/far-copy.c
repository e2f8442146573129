/* What push and pull share (mirror/far-copy.h): the far copy as one run knows it (which copy
 * is there, its files) and a far script's answer read to its end. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "mirror/far-copy.h"
#include "mirror/far.h"
#include "src/base/log.h"
#include "src/base/util.h"

#define TRANSFER_PROGRESS_MIN (20ULL * 1000 * 1000)
#define FAR_STDERR_MAX        (64u * 1024)

struct cp_limits cp_mirror_limits(const struct cp_mirror_opts *o)
{
    struct cp_limits lim = o->limits;
    if (lim.max_files == 0)
        lim.max_files = CP_MAX_FILES;
    if (lim.max_bytes == 0)
        lim.max_bytes = CP_MAX_BYTES;
    return lim;
}

/* Reads a stream to its end, keeping at most max bytes; over max is an error when strict. */
int cp_mirror_read_all(struct cp_far_proc *r, bool from_stderr, size_t max, bool strict,
                       struct cp_buf *out, cp_error_t *err)
{
    char chunk[64 * 1024];
    cp_buf_init(out, max);
    for (;;) {
        ssize_t n = from_stderr ? cp_far_proc_read_stderr(r, chunk, sizeof(chunk), err)
                                : cp_far_proc_read(r, chunk, sizeof(chunk), err);
        if (n < 0)
            return cp_error_code(err);
        if (n == 0)
            return 0;
        if (cp_buf_append(out, chunk, (size_t)n) < 0 && strict)
            return cp_error_make(err, CP_ERR_TOO_BIG, 0, "the far side sent more than %zu bytes",
                                 max);
    }
}

/* Collects the far side's held-back error output and its status; non-zero is a failure. */
int cp_mirror_far_finish(struct cp_far_proc *r, const char *what, cp_error_t *err)
{
    cleanup_buf struct cp_buf eb;
    int status = -1;
    if (cp_mirror_read_all(r, true, FAR_STDERR_MAX, false, &eb, err) < 0 ||
        cp_far_proc_wait(r, &status, err) < 0)
        return cp_error_wrap(err, "while %s", what);
    if (status == 0)
        return 0;
    cleanup_free char *shown = cp_escape(eb.data ? eb.data : "");
    /* The far scripts turn what only they can see into exit codes (far/common.sh). */
    int sys = status == CP_FAR_NO_SPACE ? ENOSPC : 0;
    int code = status == CP_FAR_BUSY ? CP_ERR_DENIED : CP_ERR_FAILED;
    return cp_error_make(err, code, sys, "the far side failed while %s (status %d): %s", what,
                         status, shown);
}

int cp_mirror_run_script(struct cp_transport *t, const char *script, const char *far_root,
                         struct cp_far_proc **out, cp_error_t *err)
{
    const char *argv[] = {far_root, NULL};
    return cp_far_proc_start(t, script, argv, out, err);
}

/* ---- the far copy's identity (issue 9) ---- */

#define ID_HEX 32

void cp_mirror_session_dispose(struct cp_mirror_session *s)
{
    free(s->far_id);
    s->far_id = NULL;
    cp_listing_dispose(&s->before);
    s->probed = s->pushed = s->fresh = false;
}

static bool id_ok(const char *v, size_t len)
{
    if (len != ID_HEX)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!((v[i] >= '0' && v[i] <= '9') || (v[i] >= 'a' && v[i] <= 'f')))
            return false;
    return true;
}

int cp_mirror_session_parse(struct cp_mirror_session *s, const char *data, size_t len,
                            size_t max_files, cp_error_t *err)
{
    static const char key[] = "conch-id ";
    const char *nl = data != NULL ? memchr(data, '\n', len) : NULL;
    if (nl == NULL || len < strlen(key) || memcmp(data, key, strlen(key)) != 0)
        return cp_error_make(err, CP_ERR_UNSAFE, 0, "the far side did not say which copy is there");
    const char *v = data + strlen(key);
    free(s->far_id);
    /* Anything but an id of ours reads as no copy: the safe side (everything sent again). */
    s->far_id = id_ok(v, (size_t)(nl - v)) ? xasprintf("%.*s", ID_HEX, v) : NULL;
    cp_listing_dispose(&s->before);
    size_t off = (size_t)(nl + 1 - data);
    if (cp_listing_parse_far(data + off, len - off, max_files, &s->before, err) < 0)
        return cp_error_code(err);
    s->probed = true;
    return 0;
}

char *cp_mirror_new_copy_id(void)
{
    unsigned char raw[ID_HEX / 2];
    size_t got = 0;
    while (got < sizeof(raw)) {
        ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);
        if (n > 0)
            got += (size_t)n;
        else if (errno != EINTR)
            abort(); /* no randomness: nothing here can be trusted to be unique */
    }
    char *hex = xcalloc(ID_HEX + 1, 1);
    for (size_t i = 0; i < sizeof(raw); i++)
        snprintf(hex + 2 * i, 3, "%02x", raw[i]);
    return hex;
}

bool cp_mirror_is_id_name(const char *path)
{
    return strcmp(path, CP_MIRROR_ID_NAME) == 0;
}

int cp_mirror_far_probe(struct cp_transport *t, const struct cp_mirror_opts *o, size_t max_files,
                        struct cp_mirror_session *s, cp_error_t *err)
{
    cleanup_far_proc struct cp_far_proc *r = NULL;
    cleanup_buf struct cp_buf out;
    cp_buf_init(&out, 0);
    if (cp_mirror_run_script(t, cp_far_list_script, o->far_root, &r, err) < 0 ||
        cp_far_proc_close_stdin(r, err) < 0 ||
        cp_mirror_read_all(r, false, CP_MIRROR_LISTING_MAX, true, &out, err) < 0 ||
        cp_mirror_far_finish(r, "listing the far copy", err) < 0)
        return cp_error_wrap(err, "while listing the far copy");
    return cp_mirror_session_parse(s, out.data, out.len, max_files, err);
}

/* A transfer draws its line (on a terminal only) when it passes about 20 MB. */
void cp_mirror_transfer_progress(struct cp_progress *p, const char *step, uint64_t total)
{
    cp_progress_begin(p, STDERR_FILENO, "the work folder");
    if (total < TRANSFER_PROGRESS_MIN)
        p->on = false;
    cp_progress_step(p, step, total);
}
