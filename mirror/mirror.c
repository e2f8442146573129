/* Push and pull: plan from the manifest, talk to the far scripts, record the agreed state. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mirror/archive-util.h"
#include "mirror/far.h"
#include "mirror/landing.h"
#include "mirror/manifest.h"
#include "mirror/mirror.h"
#include "mirror/pack.h"
#include "src/base/buf.h"
#include "src/base/util.h"
#include "src/base/run-report.h"

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
static int read_all(struct cp_remote *r, bool from_stderr, size_t max, bool strict,
                    struct cp_buf *out, cp_error_t *err)
{
    char chunk[64 * 1024];
    cp_buf_init(out, max);
    for (;;) {
        ssize_t n = from_stderr ? cp_remote_read_stderr(r, chunk, sizeof(chunk), err)
                                : cp_remote_read(r, chunk, sizeof(chunk), err);
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
static int far_finish(struct cp_remote *r, const char *what, cp_error_t *err)
{
    cleanup_buf struct cp_buf eb;
    int status = -1;
    if (read_all(r, true, FAR_STDERR_MAX, false, &eb, err) < 0 ||
        cp_remote_wait(r, &status, err) < 0)
        return cp_error_wrap(err, "while %s", what);
    if (status == 0)
        return 0;
    cleanup_free char *shown = cp_escape(eb.data ? eb.data : "");
    return cp_error_make(err, CP_ERR_FAILED, 0, "the far side failed while %s (status %d): %s",
                         what, status, shown);
}

static int run_script(struct cp_transport *t, const char *script, const char *far_root,
                      struct cp_remote **out, cp_error_t *err)
{
    const char *argv[] = {far_root, NULL};
    return cp_remote_start(t, script, argv, out, err);
}

/* ---- push ---- */

struct push_plan {
    const struct cp_entry **send;
    size_t nsend;
    const char **del;
    size_t ndel;
    bool *sent;
};

static void push_plan_dispose(struct push_plan *p)
{
    free(p->send);
    free(p->del);
    free(p->sent);
}

static void plan_push(const struct cp_listing *here, const struct cp_manifest *m,
                      struct push_plan *p)
{
    p->send = xcalloc(here->n, sizeof(*p->send));
    p->sent = xcalloc(here->n, sizeof(*p->sent));
    p->del = xcalloc(m->n, sizeof(*p->del));
    for (size_t i = 0; i < here->n; i++) {
        const struct cp_mentry *me = cp_manifest_find(m, here->v[i].path);
        if (me == NULL || !cp_sig_equal(&me->here, &here->v[i].sig))
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
            if (p->sent[k] && f != NULL && f->sig.size == e->sig.size)
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

static int push_exchange(struct cp_transport *t, const struct cp_mirror_opts *o,
                         struct push_plan *p, struct cp_listing *there,
                         struct cp_mirror_report *rep, cp_error_t *err)
{
    cleanup_remote struct cp_remote *r = NULL;
    cleanup_buf struct cp_buf out;
    cp_buf_init(&out, 0);
    if (run_script(t, cp_far_unpack_script, o->far_root, &r, err) < 0)
        return cp_error_wrap(err, "while starting the far side's unpack");
    int rc = cp_pack_push(r, o->rootfd, p->send, p->nsend, p->del, p->ndel, p->sent, rep, err);
    if (rc == 0)
        rc = cp_remote_close_stdin(r, err);
    if (rc == 0)
        rc = read_all(r, false, LISTING_MAX, true, &out, err);
    /* The far side's own words explain a broken stream better than EPIPE does. */
    cleanup_error cp_error_t ferr = NULL;
    if (far_finish(r, "unpacking the changes", &ferr) < 0) {
        cp_error_free(err);
        return cp_error_make(err, cp_error_code(&ferr), 0, "%s", ferr->msg);
    }
    if (rc < 0)
        return rc;
    return cp_listing_parse_far(out.data, out.len, SIZE_MAX / 2, there, err);
}

int cp_mirror_push(struct cp_transport *t, const struct cp_mirror_opts *o,
                   struct cp_mirror_report *rep, cp_error_t *err)
{
    cleanup_manifest struct cp_manifest m = {0};
    cleanup_listing struct cp_listing here = {0};
    struct cp_limits lim = limits_of(o);
    if (cp_manifest_load(o->manifest_path, &m, err) < 0 ||
        cp_listing_local(o->rootfd, o->rules, &lim, &here, rep, err) < 0)
        return cp_error_wrap(err, "while preparing to send the work folder");
    struct push_plan p __attribute__((cleanup(push_plan_dispose))) = {0};
    plan_push(&here, &m, &p);
    if (p.nsend == 0 && p.ndel == 0 && m.n > 0)
        return 0;
    cleanup_listing struct cp_listing there = {0};
    if (push_exchange(t, o, &p, &there, rep, err) < 0)
        return cp_error_wrap(err, "while sending the work folder");
    if (rep != NULL)
        rep->deleted_there += p.ndel;
    for (size_t i = 0; i < p.ndel; i++)
        cp_run_report_file("deleted_there", p.del[i], NULL);
    cleanup_manifest struct cp_manifest next = {0};
    record_push(&here, &m, &p, &there, &next);
    return cp_manifest_save(o->manifest_path, &next, err);
}

/* ---- pull ---- */

static int far_listing(struct cp_transport *t, const struct cp_mirror_opts *o, size_t max_files,
                       struct cp_listing *there, cp_error_t *err)
{
    cleanup_remote struct cp_remote *r = NULL;
    cleanup_buf struct cp_buf out;
    cp_buf_init(&out, 0);
    if (run_script(t, cp_far_list_script, o->far_root, &r, err) < 0 ||
        cp_remote_close_stdin(r, err) < 0 || read_all(r, false, LISTING_MAX, true, &out, err) < 0 ||
        far_finish(r, "listing the far copy", err) < 0)
        return cp_error_wrap(err, "while listing the far copy");
    return cp_listing_parse_far(out.data, out.len, max_files, there, err);
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

static void plan_pull(const struct cp_listing *there, const struct cp_manifest *m,
                      const struct cp_rules *rules, struct pull_plan *p,
                      struct cp_mirror_report *rep)
{
    p->asks = xcalloc(there->n, sizeof(*p->asks));
    p->gone = xcalloc(m->n, sizeof(*p->gone));
    for (size_t i = 0; i < there->n; i++) {
        const struct cp_entry *f = &there->v[i];
        const struct cp_mentry *me = cp_manifest_find(m, f->path);
        if (me != NULL && cp_sig_equal(&me->there, &f->sig))
            continue;
        const char *why = cp_rules_check(rules, f->path);
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
    for (size_t i = 0; i < m->n; i++)
        if (cp_listing_find(there, m->v[i].path) == NULL)
            p->gone[p->ngone++] = &m->v[i];
}

struct source {
    struct cp_remote *r;
    cp_error_t *err;
    char buf[64 * 1024];
};

static la_ssize_t source_read(struct archive *a, void *ctx, const void **out)
{
    struct source *s = ctx;
    ssize_t n = cp_remote_read(s->r, s->buf, sizeof(s->buf), s->err);
    if (n < 0) {
        archive_set_error(a, EIO, "the stream from the far side broke");
        return -1;
    }
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
                         struct pull_plan *p, struct cp_mirror_report *rep, cp_error_t *err)
{
    cleanup_landing struct cp_landing l = {.stagefd = -1};
    uint64_t max = o->max_pull_bytes ? o->max_pull_bytes : CP_LAND_MAX_BYTES;
    if (cp_landing_begin(&l, o->rootfd, p->asks, p->nasks, o->rules, max, rep, err) < 0)
        return cp_error_code(err);
    cleanup_buf struct cp_buf list;
    cleanup_buf struct cp_buf trailer;
    cp_buf_init(&trailer, 0);
    cleanup_remote struct cp_remote *r = NULL;
    if (ask_list(p, &list, err) < 0 ||
        run_script(t, cp_far_pack_script, o->far_root, &r, err) < 0 ||
        cp_remote_write(r, list.data, list.len, err) < 0 || cp_remote_close_stdin(r, err) < 0)
        return cp_error_code(err);
    cleanup_free struct source *s = xcalloc(1, sizeof(*s));
    s->r = r;
    s->err = err;
    cleanup_archive_read struct archive *a = cp_archive_reader_new();
    int rc = archive_read_open(a, s, NULL, source_read, NULL) == ARCHIVE_OK
                 ? cp_landing_read(&l, a, err)
                 : cp_error_make(err, CP_ERR_UNSAFE, 0, "the far side sent no archive");
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

int cp_mirror_pull(struct cp_transport *t, const struct cp_mirror_opts *o,
                   struct cp_mirror_report *rep, cp_error_t *err)
{
    cleanup_manifest struct cp_manifest m = {0};
    cleanup_listing struct cp_listing there = {0};
    struct cp_limits lim = limits_of(o);
    if (cp_manifest_load(o->manifest_path, &m, err) < 0 ||
        far_listing(t, o, lim.max_files * 2, &there, err) < 0)
        return cp_error_wrap(err, "while bringing back the changes");
    struct pull_plan p __attribute__((cleanup(pull_plan_dispose))) = {0};
    plan_pull(&there, &m, o->rules, &p, rep);
    if (p.nasks > 0 && pull_exchange(t, o, &p, rep, err) < 0)
        return cp_error_wrap(err, "while bringing back the changes; nothing landed");
    if (p.nasks == 0 && p.ngone == 0)
        return 0; /* the agreed state is the one already saved */
    apply_deletions(o, &p, &m, rep, err);
    cleanup_manifest struct cp_manifest next = {0};
    record_pull(&m, &p, &there, &next);
    return cp_manifest_save(o->manifest_path, &next, err);
}
