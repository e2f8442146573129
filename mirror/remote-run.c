/* The shared remote run (mirror/remote-run.h): each step in order, each failure worded once. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "mirror/remote-lock.h"
#include "mirror/remote-run.h"
#include "mirror/sync.h"
#include "src/base/git-hooks/git-hooks.h"
#include "src/base/settings/settings.h"
#include "src/base/protected.h"
#include "src/base/log.h"
#include "src/base/signals.h"
#include "src/base/util.h"
#include "src/base/report.h"

struct run {
    const struct cp_far_place_ops *ops;
    void *place;
    const struct cp_remote_args *a;
    int stop_fd;
    int local_lock;
    int rootfd;
    struct cp_far_link link;
    struct cp_far_lock flock;
    struct cp_mirror_session mirror; /* what the push learned, for the pull */
    struct cp_mirror_session after;  /* the copy as the lock's holder listed it after the command */
    struct cp_config own_config;     /* read here when the place gave none */
    char **protected_owned;
    char **named;
    struct cp_rules rules;
    char *done_path;   /* the lock's fifos there (held), or NULL */
    char *pushed_path; /* set only where the command may follow the pack at once */
};

static void run_dispose(struct run *r)
{
    free(r->done_path);
    free(r->pushed_path);
    cp_far_lock_release(&r->flock);
    cp_cleanup_closep(&r->rootfd);
    cp_cleanup_closep(&r->local_lock);
    cp_mirror_session_dispose(&r->mirror);
    cp_mirror_session_dispose(&r->after);
    cp_strv_free(r->protected_owned);
    cp_strv_free(r->named);
    cp_config_dispose(&r->own_config);
}

/* The one list and the person's additions, as the box covers them. */
static int protected_places(struct run *r, cp_error_t *err)
{
    const struct cp_config *cfg = r->a->config;
    if (cfg == NULL) {
        if (cp_config_load(&r->own_config, err) < 0)
            return cp_error_code(err);
        cfg = &r->own_config;
    }
    r->rules.protected = cp_protected_in_force(cfg, &r->protected_owned);
    r->named = cp_host_run_named(r->a->workdir);
    r->rules.named = (const char *const *)r->named;
    return 0;
}

static struct cp_mirror_opts mirror_opts(struct run *r)
{
    return (struct cp_mirror_opts){.rootfd = r->rootfd,
                                   .far_root = r->link.far_root,
                                   .manifest_path = r->a->manifest_path,
                                   .place_id = r->link.place_id,
                                   .rules = &r->rules,
                                   .session = &r->mirror};
}

/* The command as the place's exec (and exec_start) gets it. */
static struct cp_far_exec far_exec(struct run *r)
{
    return (struct cp_far_exec){.argv = r->a->argv,
                                .far_root = r->link.far_root,
                                .interactive = r->a->interactive,
                                .stop_fd = r->stop_fd,
                                .lock = &r->flock,
                                .done_path = r->done_path,
                                .pushed_path = r->pushed_path};
}

/* The pack is on its way: the command follows it now, and waits there for the unpack. */
static void start_command(void *ctx)
{
    struct run *r = ctx;
    struct cp_far_exec x = far_exec(r);
    cleanup_error cp_error_t e = NULL;
    if (r->ops->exec_start(r->place, &x, &e) < 0)
        cp_debug("%s: the command did not go with the push (%s); it follows it", r->link.where,
                 e->msg);
}

/* The lock here (before any connection: two commands of this computer never both connect),
 * the work folder opened once, the connection. */
static int here_and_connect(struct run *r, cp_error_t *err)
{
    const struct cp_remote_args *a = r->a;
    if (cp_remote_lock_here(a->manifest_path, a->place, a->stop_fd, &r->local_lock, err) < 0)
        return cp_error_code(err);
    r->rootfd = open(a->workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (r->rootfd < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot open %s", a->workdir);
    cp_debug("%s: connecting", a->place);
    return r->ops->connect(r->place, r->stop_fd, &r->link, err);
}

/* The lock there, whose answer names and lists the copy, then the push. */
static int lock_and_push(struct run *r, cp_error_t *err)
{
    const char *where = r->link.where;
    if (cp_far_lock_take(r->link.transport, r->link.far_lock, r->link.far_root, where,
                         r->a->stop_fd, &r->mirror, &r->flock, err) < 0)
        return cp_remote_words(err, where, "taking the copy's lock on %s", where);
    cp_debug("%s: far lock held", where);
    cleanup_free char *guard = cp_far_lock_guard(&r->flock); /* a lease's; NULL when held */
    if (guard != NULL)
        cp_transport_guard(r->link.transport, guard);
    r->done_path = cp_far_lock_done_path(&r->flock);
    if (r->ops->exec_start != NULL && !r->a->interactive)
        r->pushed_path = cp_far_lock_pushed_path(&r->flock);
    struct cp_mirror_opts o = mirror_opts(r);
    if (r->pushed_path != NULL) {
        o.pushed_path = r->pushed_path;
        o.sent = start_command;
        o.sent_ctx = r;
    }
    struct cp_mirror_report rep = {.say = r->a->say};
    if (cp_mirror_push(r->link.transport, &o, &rep, err) < 0)
        return cp_remote_words(err, where, "sending the work folder to %s", where);
    cp_debug("%s: pushed", where);
    cp_run_report_stage("push");
    return 0;
}

/* The command, then the pull. A failed command's status is the person's; a failed exec or
 * pull lands nothing and deletes nothing here. A held lock's holder lists the copy as soon
 * as the command's far script says it ended: that listing is on its way with the command's
 * end, and the pull asks for none. */
static int exec_and_pull(struct run *r, int *status_out, cp_error_t *err)
{
    const char *where = r->link.where;
    struct cp_far_exec x = far_exec(r);
    cp_debug("%s: running", where);
    int rc = r->ops->exec(r->place, &x, status_out, err);
    cp_run_report_stage("command");
    if (rc == CP_ERR_INTERRUPTED)
        return rc;
    if (rc < 0)
        return cp_remote_words(err, where, "running the command on %s", where);
    cp_debug("%s: ran, status %d", where, *status_out);
    struct cp_mirror_opts o = mirror_opts(r);
    if (r->done_path != NULL) {
        if (cp_far_lock_after(&r->flock, &r->after, err) < 0)
            return cp_remote_words(err, where,
                                   "bringing the changes back from %s (the command exited %d)",
                                   where, *status_out);
        o.listed_after = &r->after;
    }
    struct cp_mirror_report rep __attribute__((cleanup(cp_report_dispose))) = {.say = r->a->say};
    rc = cp_mirror_pull(r->link.transport, &o, &rep, err);
    cp_report_host_run_said(&rep, "to take them, copy them from the far copy by hand, or run the "
                                  "command with --place container --unsealed");
    if (rc == CP_ERR_INTERRUPTED)
        return rc;
    if (rc < 0)
        return cp_remote_words(err, where,
                               "bringing the changes back from %s (the command exited %d)", where,
                               *status_out);
    cp_debug("%s: pulled", where);
    cp_run_report_stage("pull");
    return 0;
}

/* The signal a stop came with: the asker's byte on its stop_fd, or this process's. */
static int stop_signal(const struct cp_remote_args *a)
{
    if (a->stop_fd < 0)
        return cp_signals_caught();
    unsigned char sig = 0;
    return read(a->stop_fd, &sig, 1) == 1 && sig > 0 && sig < 65 ? sig : SIGHUP;
}

int cp_remote_run(const struct cp_far_place_ops *ops, void *place, const struct cp_remote_args *a,
                  int *status_out, cp_error_t *err)
{
    struct run r __attribute__((cleanup(run_dispose))) = {
        .ops = ops,
        .place = place,
        .a = a,
        .stop_fd = a->stop_fd >= 0 ? a->stop_fd : cp_signals_install(),
        .local_lock = -1,
        .rootfd = -1,
    };
    int rc = protected_places(&r, err);
    if (rc == 0)
        rc = here_and_connect(&r, err);
    if (rc == 0)
        rc = lock_and_push(&r, err);
    if (rc == 0)
        rc = exec_and_pull(&r, status_out, err);
    /* A stop during any step ends the run as a stop during the command does: 128+n. */
    if (rc == CP_ERR_INTERRUPTED) {
        cp_error_free(err);
        *status_out = 128 + stop_signal(a);
        return 0;
    }
    return rc;
}
