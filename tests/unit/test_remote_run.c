/* The shared remote run (mirror/remote-run.h) driven with a fake place over the local
 * transport: the far side is a folder run by /bin/sh, the command a C function. Proves the
 * order of the steps (lock here, connect, lock there, push, exec, pull), that a failed exec
 * or pull deletes nothing here and lands nothing, that a stop at the command answers 128+n,
 * and that the locks are let go however the run ends. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "mirror/far.h"
#include "mirror/remote-run.h"
#include "mirror/transport.h"
#include "src/base/settings/settings.h"
#include "src/base/util.h"
#include "tests/mirror/scratch.h"

static struct scratch S;
static char far_root[160], far_lock[160], home[128], manifest[256];

/* What the fake command does there. */
enum fake_mode { FAKE_EDIT, FAKE_EDIT_THEN_FAIL, FAKE_STOP, FAKE_REMOVE_COPY };

/* The fake place: a log of its calls, and what it saw at each. */
struct fake {
    struct cp_transport base; /* the local transport, the pack script swappable */
    struct cp_transport *inner;
    bool fail_pack;
    bool fail_connect;
    enum fake_mode mode;
    int status;           /* the fake command's exit code */
    const char *swap_id;  /* the command writes this as the copy's id there, or NULL */
    const char *make_too; /* the command also makes this file there, or NULL */
    char log[1024];
    char guard[512];
};
static struct fake F;
static const struct cp_config *run_config; /* the place's config.json, or NULL: read there */
static struct cp_transport_ops fake_transport_ops;

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
    size_t used = strlen(F.log);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(F.log + used, sizeof(F.log) - used, fmt, ap);
    va_end(ap);
}

static int fake_start(struct cp_transport *t, const char *script, const char *const *argv,
                      struct cp_far_proc **out, cp_error_t *err)
{
    struct fake *f = (struct fake *)t;
    if (script == cp_far_pack_script && f->fail_pack)
        return cp_error_make(err, CP_ERR_UNREACHABLE, 0, "the connection broke (the test's)");
    if (script == cp_far_list_script)
        note("probe ");
    return f->inner->ops->start(f->inner, script, argv, out, err);
}

static void fake_transport_free(struct cp_transport *t)
{
    (void)t;
}

/* Whether another process of this computer could take the lock here now. */
static bool here_locked(void)
{
    char path[300];
    snprintf(path, sizeof(path), "%s.lock", manifest);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool busy = flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK;
    close(fd);
    return busy;
}

static int fake_connect(void *place, int stop_fd, struct cp_far_link *out, cp_error_t *err)
{
    (void)place;
    (void)stop_fd;
    note("connect%s ", here_locked() ? "(here locked)" : "(here free)");
    if (F.fail_connect)
        return cp_error_make(err, CP_ERR_UNREACHABLE, 0, "no answer (the test's)");
    *out = (struct cp_far_link){.transport = &F.base,
                                .far_root = far_root,
                                .far_lock = far_lock,
                                .place_id = "fake place 1",
                                .where = "fakehost"};
    return 0;
}

static void fake_guard(struct cp_transport *t, const char *guard)
{
    (void)t;
    note("guard ");
    snprintf(F.guard, sizeof(F.guard), "%s", guard != NULL ? guard : "(none)");
}

/* What the far script does once the command ended: its status to the lock's fifo, whose
 * holder then lists the copy. */
static void fake_done(const struct cp_far_exec *x, int status)
{
    if (x->done_path == NULL)
        return;
    note("done ");
    int fd = open(x->done_path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) {
        dprintf(fd, "%d\n", status);
        close(fd);
    }
}

/* The command: it sees the pushed copy and the lock there, then edits the copy. */
static int fake_exec(void *place, const struct cp_far_exec *x, int *status_out, cp_error_t *err)
{
    (void)place;
    cleanup_free char *lock = get_file(S.top, "far/lock");
    cleanup_free char *pushed = get_file(x->far_root, "a.txt");
    note("exec(%s,%s,%s,%s) ", x->argv[0], lock != NULL ? "there locked" : "there free",
         pushed != NULL ? "pushed" : "not pushed", here_locked() ? "here locked" : "here free");
    struct pollfd stop = {.fd = x->stop_fd, .events = POLLIN};
    if (F.mode == FAKE_STOP && poll(&stop, 1, 0) == 1) {
        note("stop ");
        return CP_ERR_INTERRUPTED;
    }
    char path[300];
    snprintf(path, sizeof(path), "%s/b.txt", x->far_root);
    unlink(path);
    put_file(x->far_root, "new.txt", "made there\n");
    put_file(x->far_root, "a.txt", "changed there\n");
    if (F.make_too != NULL)
        put_file(x->far_root, F.make_too, "made there\n");
    if (F.swap_id != NULL)
        put_file(x->far_root, ".conch-mirror-id", F.swap_id);
    if (cp_far_lock_renew(x->lock, err) < 0)
        return cp_error_code(err);
    if (F.mode == FAKE_EDIT_THEN_FAIL)
        return cp_error_make(err, CP_ERR_UNREACHABLE, 0, "the channel broke (the test's)");
    if (F.mode == FAKE_REMOVE_COPY)
        rm_tree(x->far_root);
    *status_out = F.status;
    fake_done(x, F.status);
    return 0;
}

static void fake_closing(struct cp_transport *t)
{
    (void)t;
    note("closing");
}

static const struct cp_far_place_ops fake_far_ops = {
    .connect = fake_connect,
    .exec = fake_exec,
};

static int setup(void **state)
{
    (void)state;
    if (scratch_make(&S) < 0)
        return -1;
    snprintf(far_root, sizeof(far_root), "%s/far/copy", S.top);
    snprintf(far_lock, sizeof(far_lock), "%s/far/lock", S.top);
    snprintf(home, sizeof(home), "%s/home", S.top);
    snprintf(manifest, sizeof(manifest), "%s/chat.manifest", home);
    if (mkdir(home, 0700) < 0)
        return -1;
    memset(&F, 0, sizeof(F));
    cleanup_error cp_error_t err = NULL;
    if (cp_transport_local_new(&F.inner, &err) < 0)
        return -1;
    fake_transport_ops = *F.inner->ops;
    fake_transport_ops.start = fake_start;
    fake_transport_ops.free = fake_transport_free;
    fake_transport_ops.guard = fake_guard;
    fake_transport_ops.closing = fake_closing;
    F.base.ops = &fake_transport_ops;
    F.status = 3;
    run_config = NULL;
    setenv("CONCH_HOME", home, 1); /* config.json read there is the test's, never the person's */
    put_file(S.work, "a.txt", "a here\n");
    put_file(S.work, "b.txt", "b here\n");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    cp_transport_free(F.inner);
    scratch_remove(&S);
    return 0;
}

static int stop_fd = -1; /* the run's stop: -1, or a pipe a test made readable */

static int run(int *status, cp_error_t *err)
{
    char *argv[] = {"the-command", NULL};
    const struct cp_remote_args a = {.place = "fake:host",
                                     .workdir = S.work,
                                     .manifest_path = manifest,
                                     .argv = argv,
                                     .stop_fd = stop_fd,
                                     .config = run_config};
    F.log[0] = '\0';
    return cp_remote_run(&fake_far_ops, &F, &a, status, err);
}

static void test_remote__honest_run__steps_in_order_changes_back(void **state)
{
    (void)state;
    cleanup_error cp_error_t err = NULL;
    int status = -1;
    assert_int_equal(run(&status, &err), 0);
    assert_int_equal(status, 3); /* the command's own code, passed on */
    assert_string_equal(F.log, "connect(here locked) exec(the-command,there locked,pushed,here "
                               "locked) done closing");
    cleanup_free char *a = get_file(S.work, "a.txt");
    cleanup_free char *n = get_file(S.work, "new.txt");
    assert_string_equal(a, "changed there\n");
    assert_string_equal(n, "made there\n");
    assert_false(exists_nofollow(S.work, "b.txt")); /* the command removed it: so do we */
    assert_false(here_locked());
}

/* The exec fails after the command removed b.txt there: nothing comes back, nothing goes. */
static void test_remote__exec_fails__nothing_deleted_nothing_landed(void **state)
{
    (void)state;
    F.mode = FAKE_EDIT_THEN_FAIL;
    cleanup_error cp_error_t err = NULL;
    int status = -1;
    assert_true(run(&status, &err) < 0);
    assert_non_null(strstr(err->msg, "running the command on fakehost"));
    assert_non_null(err->hint);
    assert_non_null(strstr(err->hint, "nothing landed half-way"));
    cleanup_free char *a = get_file(S.work, "a.txt");
    cleanup_free char *b = get_file(S.work, "b.txt");
    assert_string_equal(a, "a here\n");
    assert_string_equal(b, "b here\n");
    assert_false(exists_nofollow(S.work, "new.txt"));
    assert_false(here_locked());
    assert_non_null(strstr(F.log, "closing"));
}

/* The pull breaks: b.txt, removed there by the command, stays here; the words carry the
 * command's exit code, which the person would otherwise never learn. */
static void test_remote__pull_fails__nothing_deleted_code_in_words(void **state)
{
    (void)state;
    F.fail_pack = true;
    F.status = 7;
    cleanup_error cp_error_t err = NULL;
    int status = -1;
    assert_true(run(&status, &err) < 0);
    assert_int_equal(cp_error_code(&err), CP_ERR_UNREACHABLE);
    assert_non_null(strstr(err->msg, "bringing the changes back from fakehost (the command "
                                     "exited 7)"));
    cleanup_free char *a = get_file(S.work, "a.txt");
    cleanup_free char *b = get_file(S.work, "b.txt");
    assert_string_equal(a, "a here\n");
    assert_string_equal(b, "b here\n");
    assert_false(exists_nofollow(S.work, "new.txt"));
    /* The next run finishes the job: b.txt is sent again (never deleted for a broken pull). */
    F.fail_pack = false;
    cp_error_free(&err);
    assert_int_equal(run(&status, &err), 0);
    assert_string_equal(F.log, "connect(here locked) exec(the-command,there locked,pushed,here "
                               "locked) done closing");
    assert_false(exists_nofollow(S.work, "b.txt")); /* removed by this run's command */
    cleanup_free char *n = get_file(S.work, "new.txt");
    assert_string_equal(n, "made there\n");
}

/* A stop already asked: a pipe with a byte in it (the keeper's client's way). */
static int stop_pipe[2] = {-1, -1};
static void ask_stop(void)
{
    assert_int_equal(pipe(stop_pipe), 0);
    assert_int_equal(write(stop_pipe[1], "\17", 1), 1);
    stop_fd = stop_pipe[0];
}

static void drop_stop(void)
{
    close(stop_pipe[0]);
    close(stop_pipe[1]);
    stop_fd = -1;
}

/* A stop during the command: the place's exec ends its group itself, the run answers 128+n
 * with the signal the stop carried, no pull. */
static void test_remote__stop_at_command__stop_op_and_128_plus_n(void **state)
{
    (void)state;
    F.mode = FAKE_STOP;
    ask_stop();
    cleanup_error cp_error_t err = NULL;
    int status = -1;
    assert_int_equal(run(&status, &err), 0);
    drop_stop();
    assert_null(err);
    assert_int_equal(status, 128 + SIGTERM);
    assert_string_equal(F.log, "connect(here locked) exec(the-command,there locked,pushed,here "
                               "locked) stop closing");
    cleanup_free char *b = get_file(S.work, "b.txt");
    assert_string_equal(b, "b here\n");
    assert_false(here_locked());
}

/* A connection that fails: the place's words pass through, the lock here is let go. */
static void test_remote__connect_fails__error_and_lock_here_free(void **state)
{
    (void)state;
    F.fail_connect = true;
    cleanup_error cp_error_t err = NULL;
    int status = -1;
    assert_true(run(&status, &err) < 0);
    assert_int_equal(cp_error_code(&err), CP_ERR_UNREACHABLE);
    assert_string_equal(F.log, "connect(here locked) ");
    assert_false(here_locked());
    cleanup_free char *lock = get_file(S.top, "far/lock");
    assert_null(lock); /* never reached there */
}

/* A leased lock (a batch transport: cloud): the guard is handed over, renewing works during
 * the command. */
static void test_remote__lease__guard_given_renew_ok(void **state)
{
    (void)state;
    fake_transport_ops.batch = true;
    cleanup_error cp_error_t err = NULL;
    int status = -1;
    assert_int_equal(run(&status, &err), 0);
    assert_int_equal(status, 3);
    assert_string_equal(F.log, "connect(here locked) guard exec(the-command,there locked,pushed,"
                               "here locked) probe closing");
    assert_non_null(strstr(F.guard, "lease "));
    assert_false(exists_nofollow(S.work, "b.txt"));
    cleanup_free char *lock = get_file(S.top, "far/lock"); /* released at the end */
    assert_null(lock);
}

/* Another command of this computer holds the copy: a stop while waiting for it ends the run
 * with 128+n before anything is reached. */
static void test_remote__stop_waiting_here__128_plus_n_nothing_reached(void **state)
{
    (void)state;
    char path[300];
    snprintf(path, sizeof(path), "%s.lock", manifest);
    int other = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    assert_true(other >= 0);
    assert_int_equal(flock(other, LOCK_EX), 0);
    ask_stop();
    cleanup_error cp_error_t err = NULL;
    int status = -1;
    assert_int_equal(run(&status, &err), 0);
    assert_int_equal(status, 128 + SIGTERM);
    assert_string_equal(F.log, ""); /* never connected */
    close(other);
    drop_stop();
    cleanup_free char *b = get_file(S.work, "b.txt");
    assert_string_equal(b, "b here\n");
}

/* Another run holds the copy there (a live holder): a stop while waiting ends the run with
 * 128+n; nothing pushed, nothing run, nothing deleted here. */
static void test_remote__stop_waiting_there__128_plus_n_nothing_run(void **state)
{
    (void)state;
    char holder[64];
    snprintf(holder, sizeof(holder), "hold %ld\n", (long)getpid());
    put_file(S.top, "far/lock", holder);
    ask_stop();
    cleanup_error cp_error_t err = NULL;
    int status = -1;
    assert_int_equal(run(&status, &err), 0);
    assert_int_equal(status, 128 + SIGTERM);
    assert_string_equal(F.log, "connect(here locked) closing");
    drop_stop();
    assert_false(exists_nofollow(far_root, "a.txt")); /* never pushed */
    cleanup_free char *lock = get_file(S.top, "far/lock");
    assert_string_equal(lock, holder); /* the other run's lock, left as it was */
    assert_false(here_locked());
}

/* Issue 20: the copy there is swapped for another copy with a valid id of its own while the
 * command runs (a sandbox replaced, a folder restored from elsewhere). What the push left is
 * not what is there: its missing files were never removed by this command, so none is
 * deleted here. */
/* The command removed its whole copy: the holder's listing after it finds no copy of ours, so
 * the run ends with the command's code and nothing here is deleted (as a probe would). */
static void test_remote__copy_removed_by_command__nothing_deleted_here(void **state)
{
    (void)state;
    F.mode = FAKE_REMOVE_COPY;
    cleanup_error cp_error_t err = NULL;
    int status = -1;
    assert_int_equal(run(&status, &err), 0);
    assert_null(err);
    assert_int_equal(status, 3);
    assert_string_equal(F.log, "connect(here locked) exec(the-command,there locked,pushed,here "
                               "locked) done closing");
    cleanup_free char *a = get_file(S.work, "a.txt");
    cleanup_free char *b = get_file(S.work, "b.txt");
    assert_string_equal(a, "a here\n");
    assert_string_equal(b, "b here\n");
}

static void test_remote__copy_id_swapped_between_push_and_pull__nothing_deleted(void **state)
{
    (void)state;
    F.swap_id = "0123456789abcdef0123456789abcdef\n";
    cleanup_error cp_error_t err = NULL;
    int status = -1;
    assert_int_equal(run(&status, &err), 0);
    assert_int_equal(status, 3);
    cleanup_free char *b = get_file(S.work, "b.txt");
    assert_non_null(b);
    assert_string_equal(b, "b here\n"); /* gone there, kept here */
    cleanup_free char *id = get_file(far_root, ".conch-mirror-id");
    assert_string_equal(id, F.swap_id); /* the swap really happened after the push */
}

static void write_config(const char *text)
{
    put_file(home, "config.json", text);
}

/* Issue 20: config.json's "protected" entries reach the mirror as they reach the box: never
 * sent, never brought back, whether the place hands its config over or the run reads it (the
 * keeper's runs). */
static void protected_additions_kept_here(void)
{
    put_file(S.work, "deploy/team-secrets.yaml", "TEAMKEY\n");
    put_file(S.work, "private/notes.txt", "PRIVKEY\n");
    F.make_too = "more/private/planted.txt";
    cleanup_error cp_error_t err = NULL;
    int status = -1;
    assert_int_equal(run(&status, &err), 0);
    assert_int_equal(status, 3);
    cleanup_free char *a = get_file(far_root, "a.txt");
    assert_non_null(a); /* the push went */
    assert_false(exists_nofollow(far_root, "deploy/team-secrets.yaml"));
    assert_false(exists_nofollow(far_root, "private"));
    assert_false(exists_nofollow(S.work, "more")); /* nor back */
    cleanup_free char *n = get_file(S.work, "new.txt");
    assert_non_null(n); /* the pull went */
}

static void test_remote__config_protected_read_there__not_sent_not_landed(void **state)
{
    (void)state;
    write_config("{\"protected\": [\"team-secrets.yaml\", \"private/\"]}\n");
    protected_additions_kept_here();
}

static void test_remote__config_protected_given__not_sent_not_landed(void **state)
{
    (void)state;
    write_config("{\"protected\": [\"team-secrets.yaml\", \"private/\"]}\n");
    cleanup_config struct cp_config cfg = {0};
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_config_load(&cfg, &err), 0);
    write_config("{}\n"); /* the place's own config is the one used, not a second reading */
    run_config = &cfg;
    protected_additions_kept_here();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_remote__honest_run__steps_in_order_changes_back, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_remote__exec_fails__nothing_deleted_nothing_landed,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_remote__pull_fails__nothing_deleted_code_in_words,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_remote__stop_at_command__stop_op_and_128_plus_n, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_remote__connect_fails__error_and_lock_here_free, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_remote__lease__guard_given_renew_ok, setup, teardown),
        cmocka_unit_test_setup_teardown(test_remote__stop_waiting_here__128_plus_n_nothing_reached,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_remote__stop_waiting_there__128_plus_n_nothing_run,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_remote__copy_id_swapped_between_push_and_pull__nothing_deleted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_remote__copy_removed_by_command__nothing_deleted_here,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_remote__config_protected_read_there__not_sent_not_landed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_remote__config_protected_given__not_sent_not_landed,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
