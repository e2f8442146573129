/* Push and pull: plan from the manifest, talk to the far scripts, record the agreed state. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "mirror/archive-util.h"
#include "mirror/far.h"
#include "mirror/landing.h"
#include "mirror/manifest.h"
#include "mirror/mirror.h"
#include "mirror/pack.h"
#include "src/base/buf.h"
#include "src/base/keyless.h"
#include "src/base/log.h"
#include "src/base/progress.h"
#include "src/base/util.h"
#include "src/base/run-report.h"

#define TRANSFER_PROGRESS_MIN (20ULL * 1000 * 1000)

#define LISTING_MAX    (256u * 1024 * 1024)
#define FAR_STDERR_MAX (64u * 1024)
#define TRAILER_MAX    (1024u * 1024)

static struct cp_limits limits_of(const struct cp_mirror_opts *o)
{
    struct cp_limits lim = o->limits;
    if (lim.max_files == 0)
        lim.max_files = CP_MAX_FILES;
    if (lim.max_bytes == 0)
        lim.max_bytes = CP_MAX_BYTES;
    return lim;
}

/* Reads a stream to its end, keeping at most max bytes; over max is an error when strict. */
static int read_all(struct cp_far_proc *r, bool from_stderr, size_t max, bool strict,
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
static int far_finish(struct cp_far_proc *r, const char *what, cp_error_t *err)
{
    cleanup_buf struct cp_buf eb;
    int status = -1;
    if (read_all(r, true, FAR_STDERR_MAX, false, &eb, err) < 0 ||
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

static int run_script(struct cp_transport *t, const char *script, const char *far_root,
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

static char *new_copy_id(void)
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

static bool is_id_name(const char *path)
{
    return strcmp(path, CP_MIRROR_ID_NAME) == 0;
}

/* Runs the listing script: the copy's id, then its files. */
static int far_probe(struct cp_transport *t, const struct cp_mirror_opts *o, size_t max_files,
                     struct cp_mirror_session *s, cp_error_t *err);

/* The manifest describes the copy that is there, in the place it names. */
static bool same_copy(const struct cp_manifest *m, const struct cp_mirror_session *s,
                      const struct cp_mirror_opts *o)
{
    if (m->copy_id == NULL || s->far_id == NULL || strcmp(m->copy_id, s->far_id) != 0)
        return false;
    return o->place_id == NULL || (m->place_id != NULL && strcmp(m->place_id, o->place_id) == 0);
}

/* ---- push ---- */

struct push_plan {
    const struct cp_entry **send;
    size_t nsend;
    const char **del;
    size_t ndel;
    bool *sent;
    uint64_t *sizes; /* what each sent file went out as (a settings file: its keyless copy) */
};

static void push_plan_dispose(struct push_plan *p)
{
    free(p->send);
    free(p->del);
    free(p->sent);
    free(p->sizes);
}

/* A settings file went there without its keys and never comes back (plan_pull): a change to
 * it there is undone by sending the keyless copy again. */
static bool keyless_changed_there(const struct cp_entry *e, const struct cp_mentry *me,
                                  const struct cp_listing *there)
{
    const struct cp_entry *f = cp_listing_find(there, e->path);
    return cp_keyless_is(e->path) && f != NULL && !cp_sig_equal(&me->there, &f->sig);
}

/* What to send: what changed here since the manifest, and what the copy lost behind our back
 * (removed there between runs: sent again, never deleted here). */
static void plan_push(const struct cp_listing *here, const struct cp_manifest *m,
                      const struct cp_listing *there, struct push_plan *p,
                      struct cp_mirror_report *rep)
{
    p->send = xcalloc(here->n, sizeof(*p->send));
    p->sent = xcalloc(here->n, sizeof(*p->sent));
    p->sizes = xcalloc(here->n, sizeof(*p->sizes));
    p->del = xcalloc(m->n, sizeof(*p->del));
    for (size_t i = 0; i < here->n; i++) {
        if (is_id_name(here->v[i].path)) {
            cp_report(rep, "not sent: %s (the name of the copy's own id)", CP_MIRROR_ID_NAME);
            if (rep != NULL)
                rep->not_carried++;
            continue;
        }
        const struct cp_mentry *me = cp_manifest_find(m, here->v[i].path);
        if (me == NULL || !cp_sig_equal(&me->here, &here->v[i].sig) ||
            cp_listing_find(there, here->v[i].path) == NULL ||
            keyless_changed_there(&here->v[i], me, there))
            p->send[p->nsend++] = &here->v[i];
    }
    for (size_t i = 0; i < m->n; i++)
        if (cp_listing_find(here, m->v[i].path) == NULL)
            p->del[p->ndel++] = m->v[i].path;
}

/* The agreed state after a push: a sent file as the far side now lists it; an unsent one as
 * the last sync left it, so a far change still pending comes back at the next pull. */
static void record_push(const struct cp_listing *here, const struct cp_manifest *old,
                        const struct push_plan *p, const struct cp_listing *there,
                        struct cp_manifest *out)
{
    size_t k = 0;
    for (size_t i = 0; i < here->n; i++) {
        const struct cp_entry *e = &here->v[i];
        bool was_sent = k < p->nsend && p->send[k] == e;
        if (was_sent) {
            const struct cp_entry *f = cp_listing_find(there, e->path);
            if (p->sent[k] && f != NULL && f->sig.size == p->sizes[k])
                cp_manifest_put(out, e->path, &e->sig, &f->sig);
            k++;
            continue;
        }
        const struct cp_mentry *me = cp_manifest_find(old, e->path);
        if (me != NULL)
            cp_manifest_put(out, e->path, &me->here, &me->there);
    }
    cp_manifest_sort(out);
}

/* A transfer draws its line (on a terminal only) when it passes about 20 MB. */
static void transfer_progress(struct cp_progress *p, const char *step, uint64_t total)
{
    cp_progress_begin(p, STDERR_FILENO, "the work folder");
    if (total < TRANSFER_PROGRESS_MIN)
        p->on = false;
    cp_progress_step(p, step, total);
}

static int push_exchange(struct cp_transport *t, const struct cp_mirror_opts *o, const char *new_id,
                         struct push_plan *p, struct cp_listing *there,
                         struct cp_mirror_report *rep, cp_error_t *err)
{
    cleanup_far_proc struct cp_far_proc *r = NULL;
    cleanup_buf struct cp_buf out;
    cp_buf_init(&out, 0);
    const char *argv[] = {o->far_root, new_id, NULL};
    if (cp_far_proc_start(t, cp_far_unpack_script, argv, &r, err) < 0)
        return cp_error_wrap(err, "while starting the far side's unpack");
    uint64_t total = 0;
    for (size_t i = 0; i < p->nsend; i++)
        total += p->send[i]->sig.size;
    struct cp_progress progress;
    transfer_progress(&progress, "sending", total);
    int rc = cp_pack_push(r, o->rootfd, p->send, p->nsend, p->del, p->ndel, p->sent, p->sizes, rep,
                          &progress, err);
    cp_progress_end(&progress);
    if (rc == 0)
        rc = cp_far_proc_close_stdin(r, err);
    if (rc == 0)
        rc = read_all(r, false, LISTING_MAX, true, &out, err);
    /* The far side's own words explain a broken stream better than EPIPE does. */
    cleanup_error cp_error_t ferr = NULL;
    if (far_finish(r, "unpacking the changes", &ferr) < 0) {
        cp_error_free(err);
        return cp_error_make(err, cp_error_code(&ferr), ferr->sys_errno, "%s", ferr->msg);
    }
    if (rc < 0)
        return rc;
    return cp_listing_parse_far(out.data, out.len, SIZE_MAX / 2, there, err);
}

static int entry_cmp(const void *a, const void *b)
{
    return strcmp(((const struct cp_entry *)a)->path, ((const struct cp_entry *)b)->path);
}

/* The copy's files as the push left them: what was there, less the deletions, with what was
 * sent. The pull deletes here only names of this list that the command removed. */
static void after_push(struct cp_listing *before, const struct push_plan *p,
                       const struct cp_listing *sent)
{
    struct cp_listing next = {0};
    next.cap = before->n + sent->n + 1;
    next.v = xcalloc(next.cap, sizeof(*next.v));
    for (size_t i = 0; i < before->n; i++) {
        bool deleted = false;
        for (size_t k = 0; k < p->ndel && !deleted; k++)
            deleted = strcmp(p->del[k], before->v[i].path) == 0;
        if (!deleted && cp_listing_find(sent, before->v[i].path) == NULL) {
            next.v[next.n] = before->v[i];
            next.v[next.n++].path = xstrdup(before->v[i].path);
        }
    }
    for (size_t i = 0; i < sent->n; i++) {
        next.v[next.n] = sent->v[i];
        next.v[next.n++].path = xstrdup(sent->v[i].path);
    }
    qsort(next.v, next.n, sizeof(*next.v), entry_cmp);
    cp_listing_dispose(before);
    *before = next;
}

int cp_mirror_push(struct cp_transport *t, const struct cp_mirror_opts *o,
                   struct cp_mirror_report *rep, cp_error_t *err)
{
    cleanup_manifest struct cp_manifest m = {0};
    cleanup_listing struct cp_listing here = {0};
    struct cp_mirror_session own __attribute__((cleanup(cp_mirror_session_dispose))) = {0};
    struct cp_mirror_session *s = o->session != NULL ? o->session : &own;
    struct cp_limits lim = limits_of(o);
    if (cp_manifest_load(o->manifest_path, &m, err) < 0 ||
        cp_listing_local(o->rootfd, o->rules, &lim, &here, rep, err) < 0 ||
        (!s->probed && far_probe(t, o, lim.max_files * 2, s, err) < 0))
        return cp_error_wrap(err, "while preparing to send the work folder");
    cleanup_free char *new_id = NULL;
    s->fresh = !same_copy(&m, s, o);
    if (s->fresh) {
        /* No copy we know there (none, a new one, another place's): it is treated as empty.
         * Everything goes, and nothing is deleted on either side for what it lacks. */
        cp_debug("mirror: %s at %s; sending the whole folder and deleting nothing",
                 s->far_id == NULL ? "no copy there" : "the copy there is not the one we left",
                 o->far_root);
        cp_manifest_dispose(&m);
        new_id = new_copy_id();
    }
    struct push_plan p __attribute__((cleanup(push_plan_dispose))) = {0};
    plan_push(&here, &m, &s->before, &p, rep);
    if (!s->fresh && p.nsend == 0 && p.ndel == 0) {
        s->pushed = true;
        return 0;
    }
    cleanup_listing struct cp_listing there = {0};
    if (push_exchange(t, o, new_id, &p, &there, rep, err) < 0)
        return cp_error_wrap(err, "while sending the work folder");
    if (rep != NULL)
        rep->deleted_there += p.ndel;
    for (size_t i = 0; i < p.ndel; i++)
        cp_run_report_file("deleted_there", p.del[i], NULL);
    after_push(&s->before, &p, &there);
    s->pushed = true;
    if (new_id != NULL) {
        free(s->far_id);
        s->far_id = xstrdup(new_id);
    }
    cleanup_manifest struct cp_manifest next = {0};
    record_push(&here, &m, &p, &there, &next);
    cp_manifest_set_identity(&next, s->far_id, o->place_id);
    return cp_manifest_save(o->manifest_path, &next, err);
}

/* ---- pull ---- */

static int far_probe(struct cp_transport *t, const struct cp_mirror_opts *o, size_t max_files,
                     struct cp_mirror_session *s, cp_error_t *err)
{
    cleanup_far_proc struct cp_far_proc *r = NULL;
    cleanup_buf struct cp_buf out;
    cp_buf_init(&out, 0);
    if (run_script(t, cp_far_list_script, o->far_root, &r, err) < 0 ||
        cp_far_proc_close_stdin(r, err) < 0 ||
        read_all(r, false, LISTING_MAX, true, &out, err) < 0 ||
        far_finish(r, "listing the far copy", err) < 0)
        return cp_error_wrap(err, "while listing the far copy");
    return cp_mirror_session_parse(s, out.data, out.len, max_files, err);
}

struct pull_plan {
    struct cp_ask *asks;
    size_t nasks;
    const struct cp_mentry **gone; /* in the manifest, no longer there */
    size_t ngone;
};

static void pull_plan_dispose(struct pull_plan *p)
{
    for (size_t i = 0; i < p->nasks; i++)
        free(p->asks[i].beside);
    free(p->asks);
    free(p->gone);
}

/* A settings file that is here went there as its keyless copy: what the far side did with it
 * never replaces or removes the one here, which holds the keys. A new one there lands as any
 * file does (beside one made here meanwhile). */
#define KEYLESS_STAYS "it went there without its keys; this computer's copy stays"

/* Deletions come back only for names the command removed: there after the push, gone now.
 * A run that knows no state after its push (or found the copy replaced) infers none. */
static void plan_pull(const struct cp_listing *there, const struct cp_manifest *m,
                      const struct cp_listing *after_push, const struct cp_rules *rules,
                      struct pull_plan *p, struct cp_mirror_report *rep)
{
    p->asks = xcalloc(there->n, sizeof(*p->asks));
    p->gone = xcalloc(m->n, sizeof(*p->gone));
    for (size_t i = 0; i < there->n; i++) {
        const struct cp_entry *f = &there->v[i];
        const struct cp_mentry *me = cp_manifest_find(m, f->path);
        if ((me != NULL && cp_sig_equal(&me->there, &f->sig)) || is_id_name(f->path))
            continue;
        const char *why = cp_rules_check(rules, f->path);
        if (why == NULL && me != NULL && cp_keyless_is(f->path))
            why = KEYLESS_STAYS;
        if (why != NULL) {
            cleanup_free char *shown = cp_escape(f->path);
            cp_report(rep, "not brought back: %s (%s)", shown, why);
            cp_run_report_file("refused_back", f->path, why);
            if (rep != NULL)
                rep->not_carried++;
            continue;
        }
        struct cp_ask *a = &p->asks[p->nasks++];
        a->path = f->path;
        a->expect_present = me != NULL;
        if (me != NULL)
            a->expect = me->here;
    }
    for (size_t i = 0; i < m->n && after_push != NULL; i++) {
        if (cp_listing_find(there, m->v[i].path) != NULL ||
            cp_listing_find(after_push, m->v[i].path) == NULL)
            continue;
        if (cp_keyless_is(m->v[i].path)) {
            cleanup_free char *shown = cp_escape(m->v[i].path);
            cp_report(rep, "not deleted here: %s (%s)", shown, KEYLESS_STAYS);
            continue;
        }
        p->gone[p->ngone++] = &m->v[i];
    }
}

struct source {
    struct cp_far_proc *r;
    cp_error_t *err;
    struct cp_progress progress;
    char buf[64 * 1024];
};

static la_ssize_t source_read(struct archive *a, void *ctx, const void **out)
{
    struct source *s = ctx;
    ssize_t n = cp_far_proc_read(s->r, s->buf, sizeof(s->buf), s->err);
    if (n < 0) {
        archive_set_error(a, EIO, "the stream from the far side broke");
        return -1;
    }
    cp_progress_add(&s->progress, (uint64_t)n);
    *out = s->buf;
    return n;
}

static int ask_list(const struct pull_plan *p, struct cp_buf *b, cp_error_t *err)
{
    cp_buf_init(b, LISTING_MAX);
    for (size_t i = 0; i < p->nasks; i++)
        if (p->asks[i].outcome != CP_LAND_REFUSED &&
            cp_buf_append(b, p->asks[i].path, strlen(p->asks[i].path) + 1) < 0)
            return cp_error_make(err, CP_ERR_TOO_BIG, 0, "too many files to ask for");
    return 0;
}

/* Stages everything the far side sends; commits only after its end and a zero status. */
static int pull_exchange(struct cp_transport *t, const struct cp_mirror_opts *o,
                         struct pull_plan *p, uint64_t total, struct cp_mirror_report *rep,
                         cp_error_t *err)
{
    cleanup_landing struct cp_landing l = {.stagefd = -1};
    uint64_t max = o->max_pull_bytes ? o->max_pull_bytes : CP_LAND_MAX_BYTES;
    if (cp_landing_begin(&l, o->rootfd, p->asks, p->nasks, o->rules, max, rep, err) < 0)
        return cp_error_code(err);
    cleanup_buf struct cp_buf list;
    cleanup_buf struct cp_buf trailer;
    cp_buf_init(&trailer, 0);
    cleanup_far_proc struct cp_far_proc *r = NULL;
    if (ask_list(p, &list, err) < 0 ||
        run_script(t, cp_far_pack_script, o->far_root, &r, err) < 0 ||
        cp_far_proc_write(r, list.data, list.len, err) < 0 || cp_far_proc_close_stdin(r, err) < 0)
        return cp_error_code(err);
    cleanup_free struct source *s = xcalloc(1, sizeof(*s));
    s->r = r;
    s->err = err;
    transfer_progress(&s->progress, "bringing back", total);
    cleanup_archive_read struct archive *a = cp_archive_reader_new();
    int rc = archive_read_open(a, s, NULL, source_read, NULL) == ARCHIVE_OK
                 ? cp_landing_read(&l, a, err)
                 : cp_error_make(err, CP_ERR_UNSAFE, 0, "the far side sent no archive");
    cp_progress_end(&s->progress);
    if (rc == 0)
        rc = read_all(r, false, TRAILER_MAX, true, &trailer, err);
    if (far_finish(r, "packing the changes", err) < 0 || rc < 0)
        return cp_error_code(err);
    return cp_landing_commit(&l, err);
}

/* A far side that deleted everything it had is more likely broken than right. */
static bool deletes_everything(const struct pull_plan *p, const struct cp_manifest *m)
{
    return p->ngone >= 10 && p->ngone == m->n;
}

static void apply_deletions(const struct cp_mirror_opts *o, struct pull_plan *p,
                            const struct cp_manifest *m, struct cp_mirror_report *rep,
                            cp_error_t *err)
{
    if (deletes_everything(p, m)) {
        cp_report(rep,
                  "not deleted here: the far side deleted all %zu files; if that was meant, "
                  "delete them here yourself",
                  p->ngone);
        return;
    }
    for (size_t i = 0; i < p->ngone; i++) {
        cleanup_error cp_error_t derr = NULL;
        int r =
            cp_landing_delete(o->rootfd, o->rules, p->gone[i]->path, &p->gone[i]->here, rep, &derr);
        if (r == 1 && rep != NULL)
            rep->deleted_here++;
        if (r == 1)
            cp_run_report_file("deleted_here", p->gone[i]->path, NULL);
        if (r < 0)
            cp_report(rep, "not deleted here: %s", derr->msg);
    }
}

static size_t count_still_there(const struct cp_manifest *m, const struct cp_listing *there)
{
    size_t n = 0;
    for (size_t i = 0; i < m->n; i++)
        n += cp_listing_find(there, m->v[i].path) != NULL;
    return n;
}

/* The agreed state after a pull, from the outcome of each asked name. */
static void record_pull(const struct cp_manifest *m, const struct pull_plan *p,
                        const struct cp_listing *there, struct cp_manifest *out)
{
    for (size_t i = 0; i < m->n; i++)
        if (cp_listing_find(there, m->v[i].path) != NULL)
            cp_manifest_put(out, m->v[i].path, &m->v[i].here, &m->v[i].there);
    for (size_t i = 0; i < p->nasks; i++) {
        const struct cp_ask *a = &p->asks[i];
        const struct cp_entry *f = cp_listing_find(there, a->path);
        struct cp_sig unknown = {0};
        if (a->outcome == CP_LAND_LANDED)
            cp_manifest_put(out, a->path, &a->landed, &f->sig);
        else if (a->outcome == CP_LAND_BESIDE) /* yours differs: the next push sends it */
            cp_manifest_put(out, a->path, a->expect_present ? &a->expect : &unknown, &f->sig);
    }
    cp_manifest_sort(out);
}

/* Staging folders a killed run left in the work folder (a pull cut by kill -9): their
 * owner is gone, and what they hold never landed. Flat, made by the landing only. */
static void sweep_stale_staging(int rootfd)
{
    int dfd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (d == NULL) {
        if (dfd >= 0)
            close(dfd);
        return;
    }
    size_t plen = strlen(CP_STAGING_PREFIX);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        char *end = NULL;
        if (strncmp(e->d_name, CP_STAGING_PREFIX, plen) != 0)
            continue;
        long pid = strtol(e->d_name + plen, &end, 10);
        if (pid <= 0 || end == NULL || *end != '-' || pid == (long)getpid() ||
            kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        int sfd = openat(rootfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        DIR *sd = sfd >= 0 ? fdopendir(sfd) : NULL;
        for (struct dirent *f; sd != NULL && (f = readdir(sd)) != NULL;)
            if (strcmp(f->d_name, ".") != 0 && strcmp(f->d_name, "..") != 0)
                unlinkat(sfd, f->d_name, 0);
        if (sd != NULL)
            closedir(sd);
        else if (sfd >= 0)
            close(sfd);
        if (unlinkat(rootfd, e->d_name, AT_REMOVEDIR) == 0)
            cp_debug("mirror: removed %s, left by a run that was killed", e->d_name);
    }
    closedir(d);
}

/* Order for a pull killed at any moment: every file lands whole by rename (old or new, never
 * partial), deletions follow, the manifest is saved last. A run killed before the save left
 * files newer than the manifest says: the next push sends them back (the far side has the same
 * bytes), and what did not land yet still differs there, so the next pull brings it. */
int cp_mirror_pull(struct cp_transport *t, const struct cp_mirror_opts *o,
                   struct cp_mirror_report *rep, cp_error_t *err)
{
    cleanup_manifest struct cp_manifest m = {0};
    struct cp_mirror_session now __attribute__((cleanup(cp_mirror_session_dispose))) = {0};
    struct cp_limits lim = limits_of(o);
    sweep_stale_staging(o->rootfd);
    if (cp_manifest_load(o->manifest_path, &m, err) < 0 ||
        far_probe(t, o, lim.max_files * 2, &now, err) < 0)
        return cp_error_wrap(err, "while bringing back the changes");
    const struct cp_mirror_session *s = o->session;
    const struct cp_listing *after = NULL;
    if (s != NULL && s->pushed && s->far_id != NULL && now.far_id != NULL &&
        strcmp(s->far_id, now.far_id) == 0)
        after = &s->before;
    else
        cp_debug("mirror: the copy at %s is not the one this run sent; deleting nothing here",
                 o->far_root);
    const struct cp_listing *there_l = &now.before;
    struct pull_plan p __attribute__((cleanup(pull_plan_dispose))) = {0};
    plan_pull(there_l, &m, after, o->rules, &p, rep);
    uint64_t total = 0;
    for (size_t i = 0; i < p.nasks; i++) {
        const struct cp_entry *f = cp_listing_find(there_l, p.asks[i].path);
        total += f != NULL ? f->sig.size : 0;
    }
    if (p.nasks > 0 && pull_exchange(t, o, &p, total, rep, err) < 0)
        return cp_error_wrap(err, "while bringing back the changes; nothing landed");
    if (p.nasks == 0 && p.ngone == 0 && m.n == count_still_there(&m, there_l))
        return 0; /* the agreed state is the one already saved */
    apply_deletions(o, &p, &m, rep, err);
    cleanup_manifest struct cp_manifest next = {0};
    record_pull(&m, &p, there_l, &next);
    cp_manifest_set_identity(&next, m.copy_id, m.place_id);
    return cp_manifest_save(o->manifest_path, &next, err);
}
