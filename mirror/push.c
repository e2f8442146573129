/* The push: what changed here since the manifest goes there, with the deletions; the far
 * side's state right after is recorded, which the pull compares against. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mirror/far-copy.h"
#include "mirror/far.h"
#include "mirror/manifest.h"
#include "mirror/pack.h"
#include "src/base/keyless.h"
#include "src/base/log.h"
#include "src/base/util.h"
#include "src/base/report.h"

/* The manifest describes the copy that is there, in the place it names. */
static bool same_copy(const struct cp_manifest *m, const struct cp_mirror_session *s,
                      const struct cp_mirror_opts *o)
{
    if (m->copy_id == NULL || s->far_id == NULL || strcmp(m->copy_id, s->far_id) != 0)
        return false;
    return o->place_id == NULL || (m->place_id != NULL && strcmp(m->place_id, o->place_id) == 0);
}

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
        if (cp_mirror_is_id_name(here->v[i].path)) {
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

static int push_exchange(struct cp_transport *t, const struct cp_mirror_opts *o, const char *new_id,
                         struct push_plan *p, struct cp_listing *there,
                         struct cp_mirror_report *rep, cp_error_t *err)
{
    cleanup_far_proc struct cp_far_proc *r = NULL;
    cleanup_buf struct cp_buf out;
    cp_buf_init(&out, 0);
    const char *argv[] = {o->far_root, new_id != NULL ? new_id : "", o->pushed_path, NULL};
    if (cp_far_proc_start(t, cp_far_unpack_script, argv, &r, err) < 0)
        return cp_error_wrap(err, "while starting the far side's unpack");
    uint64_t total = 0;
    for (size_t i = 0; i < p->nsend; i++)
        total += p->send[i]->sig.size;
    struct cp_progress progress;
    cp_mirror_transfer_progress(&progress, "sending", total);
    int rc = cp_pack_push(r, o->rootfd, p->send, p->nsend, p->del, p->ndel, p->sent, p->sizes, rep,
                          &progress, err);
    cp_progress_end(&progress);
    if (rc == 0)
        rc = cp_far_proc_close_stdin(r, err);
    if (rc == 0 && o->pushed_path != NULL && o->sent != NULL)
        o->sent(o->sent_ctx);
    if (rc == 0)
        rc = cp_mirror_read_all(r, false, CP_MIRROR_LISTING_MAX, true, &out, err);
    /* The far side's own words explain a broken stream better than EPIPE does. */
    cleanup_error cp_error_t ferr = NULL;
    if (cp_mirror_far_finish(r, "unpacking the changes", &ferr) < 0) {
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
    struct cp_limits lim = cp_mirror_limits(o);
    if (cp_manifest_load(o->manifest_path, &m, err) < 0 ||
        cp_listing_local(o->rootfd, o->rules, &lim, &here, rep, err) < 0 ||
        (!s->probed && cp_mirror_far_probe(t, o, lim.max_files * 2, s, err) < 0))
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
        new_id = cp_mirror_new_copy_id();
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
