/* The pull: what changed there since the push comes back through the landing, and the
 * deletions the command made are applied, only after the whole archive arrived and the far side
 * said it succeeded. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mirror/archive-util.h"
#include "mirror/far-copy.h"
#include "mirror/far.h"
#include "mirror/landing.h"
#include "mirror/manifest.h"
#include "mirror/staging.h"
#include "src/base/keyless.h"
#include "src/base/log.h"
#include "src/base/util.h"
#include "src/base/report.h"

#define TRAILER_MAX (1024u * 1024)

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
        if ((me != NULL && cp_sig_equal(&me->there, &f->sig)) || cp_mirror_is_id_name(f->path))
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
    cp_buf_init(b, CP_MIRROR_LISTING_MAX);
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
        cp_mirror_run_script(t, cp_far_pack_script, o->far_root, &r, err) < 0 ||
        cp_far_proc_write(r, list.data, list.len, err) < 0 || cp_far_proc_close_stdin(r, err) < 0)
        return cp_error_code(err);
    cleanup_free struct source *s = xcalloc(1, sizeof(*s));
    s->r = r;
    s->err = err;
    cp_mirror_transfer_progress(&s->progress, "bringing back", total);
    cleanup_archive_read struct archive *a = cp_archive_reader_new();
    int rc = archive_read_open(a, s, NULL, source_read, NULL) == ARCHIVE_OK
                 ? cp_landing_read(&l, a, err)
                 : cp_error_make(err, CP_ERR_UNSAFE, 0, "the far side sent no archive");
    cp_progress_end(&s->progress);
    if (rc == 0)
        rc = cp_mirror_read_all(r, false, TRAILER_MAX, true, &trailer, err);
    if (cp_mirror_far_finish(r, "packing the changes", err) < 0 || rc < 0)
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

/* Order for a pull killed at any moment: every file lands whole by rename (old or new, never
 * partial), deletions follow, the manifest is saved last. A run killed before the save left
 * files newer than the manifest says: the next push sends them back (the far side has the same
 * bytes), and what did not land yet still differs there, so the next pull brings it. */
int cp_mirror_pull(struct cp_transport *t, const struct cp_mirror_opts *o,
                   struct cp_mirror_report *rep, cp_error_t *err)
{
    cleanup_manifest struct cp_manifest m = {0};
    struct cp_mirror_session probed __attribute__((cleanup(cp_mirror_session_dispose))) = {0};
    struct cp_limits lim = cp_mirror_limits(o);
    cp_staging_sweep(o->rootfd);
    if (cp_manifest_load(o->manifest_path, &m, err) < 0 ||
        (o->listed_after == NULL && cp_mirror_far_probe(t, o, lim.max_files * 2, &probed, err) < 0))
        return cp_error_wrap(err, "while bringing back the changes");
    const struct cp_mirror_session now = o->listed_after != NULL ? *o->listed_after : probed;
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
