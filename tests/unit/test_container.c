/* Unit tests for the container place's pure parts: the seal in the create body, the frame
 * demultiplexer and the init-report sniffing, engine discovery order, protected places. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/one-list.h"

#include "places/container/box/box-spec.h"
#include "places/container/box/create-body.h"
#include "places/container/seal/egress-image.h"
#include "places/container/engine/images.h"
#include "places/container/engine/engine-client.h"
#include "places/container/engine/engine-start.h"
#include "places/container/engine/exit-event.h"
#include "src/base/keyless.h"
#include "places/container/box/protect.h"
#include "places/container/engine/stream.h"
#include "places/container/warm/warm-pool.h"
#include "places/container/warm/warm.h"
#include "src/base/json.h"
#include "src/base/paths.h"
#include "src/base/util.h"

static json_object *spec_json(bool sealed, bool podman)
{
    static char *argv[] = {"npm", "test", NULL};
    static char *dirs[] = {"/w/.ssh", NULL};
    static char *files[] = {"/w/.env", NULL};
    static char *gits[] = {"/w/.git", "/w/lib/sub/.git", NULL};
    static char *settings[] = {"/w/.npmrc", NULL};
    static char *copies[] = {"/c/0", NULL};
    struct cp_box_spec s = {.image = "img",
                            .argv = argv,
                            .workdir = "/w",
                            .uid = 1000,
                            .gid = 1000,
                            .sealed = sealed,
                            .tmpfs_copies_up = podman,
                            .gits = gits,
                            .settings = settings,
                            .copies = copies,
                            .protected_dirs = dirs,
                            .protected_files = files,
                            .empty_file = "/e",
                            .network = sealed ? "none" : NULL,
                            .cpus = 2};
    return cp_box_spec_json(&s);
}

static json_object *get(json_object *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", path);
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); k; k = strtok_r(NULL, ".", &save))
        if (!json_object_object_get_ex(o, k, &o))
            return NULL;
    return o;
}

static bool has_mount(json_object *mounts, const char *src, const char *dst, bool ro)
{
    for (size_t i = 0; i < json_object_array_length(mounts); i++) {
        json_object *m = json_object_array_get_idx(mounts, i);
        if (strcmp(cp_json_str(m, "Source"), src) == 0 &&
            strcmp(cp_json_str(m, "Target"), dst) == 0)
            return json_object_get_boolean(get(m, "ReadOnly")) == ro;
    }
    return false;
}

/* The rows every create body carries (create-body.c), whatever its options. */
static void assert_seal_rows(json_object *j)
{
    assert_string_equal(
        json_object_get_string(json_object_array_get_idx(get(j, "HostConfig.CapDrop"), 0)), "ALL");
    assert_string_equal(
        json_object_get_string(json_object_array_get_idx(get(j, "HostConfig.SecurityOpt"), 0)),
        "no-new-privileges");
    assert_true(json_object_get_boolean(get(j, "HostConfig.ReadonlyRootfs")));
}

static void test_box_spec__sealed__every_row_of_the_seal(void **state)
{
    cleanup_json json_object *j = spec_json(true, false);
    assert_seal_rows(j);
    assert_non_null(strstr(cp_json_str(get(j, "HostConfig.Tmpfs"), "/tmp"), "size=2g"));
    /* The box's /run and /var/tmp are its own to write, bounded; not the helpers' empty ones. */
    assert_string_equal(cp_json_str(get(j, "HostConfig.Tmpfs"), "/run"),
                        "rw,nosuid,nodev,size=16m");
    assert_string_equal(cp_json_str(get(j, "HostConfig.Tmpfs"), "/var/tmp"),
                        "rw,nosuid,nodev,size=64m");
    assert_int_equal(json_object_get_int64(get(j, "HostConfig.PidsLimit")), 512);
    assert_int_equal(json_object_get_int64(get(j, "HostConfig.Memory")), 4LL << 30);
    assert_int_equal(json_object_get_int64(get(j, "HostConfig.MemorySwap")), 4LL << 30);
    assert_int_equal(json_object_get_int64(get(j, "HostConfig.NanoCpus")), 2000000000LL);
    assert_true(json_object_get_boolean(get(j, "HostConfig.Init")));
    assert_string_equal(cp_json_str(j, "User"), "1000:1000");
    assert_string_equal(cp_json_str(j, "WorkingDir"), "/w");
    assert_string_equal(cp_json_str(get(j, "HostConfig"), "NetworkMode"), "none");
    /* no IPv6: the host's fe80:: on the box's bridge answered one (issue 10) */
    assert_string_equal(cp_json_str(get(j, "HostConfig.Sysctls"), "net.ipv6.conf.all.disable_ipv6"),
                        "1");
    assert_string_equal(cp_json_str(get(j, "Labels"), "conch.work"), "1");
    json_object *mounts = get(j, "HostConfig.Mounts");
    assert_true(has_mount(mounts, "/w", "/w", false));
    assert_true(has_mount(mounts, "/w/.git", "/w/.git", true));
    assert_true(has_mount(mounts, "/w/lib/sub/.git", "/w/lib/sub/.git", true));
    assert_true(has_mount(mounts, "/e", "/w/.env", true));
    assert_true(has_mount(mounts, "/c/0", "/w/.npmrc", true));
    assert_non_null(cp_json_str(get(j, "HostConfig.Tmpfs"), "/w/.ssh"));
    json_object *env = get(j, "Env");
    assert_int_equal(json_object_array_length(env), 2);
    assert_string_equal(json_object_get_string(json_object_array_get_idx(env, 0)), "HOME=/tmp");
}

/* The sidecar, the holder, the probes and the npm helper ask for less than a box; the seal's
 * rows come all the same, from the one writer. */
static void test_sealed_body__helper_options__seal_rows_still_there(void **state)
{
    struct cp_sealed_body_opts o = {
        .image = "img", .user = "65534:65534", .pids = 8, .memory = 32 << 20, .cpus = 1};
    cleanup_json json_object *j = cp_sealed_create_body(&o);
    assert_seal_rows(j);
    assert_int_equal(json_object_get_int64(get(j, "HostConfig.MemorySwap")), 32 << 20);
    assert_int_equal(json_object_get_int64(get(j, "HostConfig.NanoCpus")), 1000000000LL);
    assert_string_equal(cp_json_str(get(j, "HostConfig.LogConfig"), "Type"), "none");
    assert_string_equal(cp_json_str(j, "User"), "65534:65534");
    assert_null(get(j, "HostConfig.Init"));
    /* Nothing writable: an empty read-only tmpfs where Podman would mount a writable one. */
    json_object *t = get(j, "HostConfig.Tmpfs");
    for (const char *const *d = (const char *const[]){"/tmp", "/run", "/var/tmp", NULL}; *d; d++) {
        assert_non_null(strstr(cp_json_str(t, *d), "ro,"));
        assert_null(strstr(cp_json_str(t, *d), "notmpcopyup")); /* Docker refuses it */
    }
    o.tmpfs_copies_up = true;
    o.tmp = "rw,size=64m";
    cleanup_json json_object *p = cp_sealed_create_body(&o);
    t = get(p, "HostConfig.Tmpfs");
    assert_string_equal(cp_json_str(t, "/tmp"), "rw,size=64m");
    assert_non_null(strstr(cp_json_str(t, "/run"), "ro,"));
    assert_non_null(strstr(cp_json_str(t, "/var/tmp"), "notmpcopyup"));
}

/* A kind read back from a job gets its kind's quirks; Docker's are all false. */
static void test_engine_recalled__kind__its_quirks(void **state)
{
    cleanup_engine struct cp_engine *p = cp_engine_recalled("/s", "podman", "1.41");
    cleanup_engine struct cp_engine *d = cp_engine_recalled("/s", "docker", "1.41");
    assert_true(p->quirks.libpod_routes && p->quirks.joins_by_ns_path);
    struct cp_engine_quirks none = {0};
    assert_memory_equal(&d->quirks, &none, sizeof(none));
    assert_string_equal(d->kind, "docker");
    assert_null(cp_engine_recalled("/s", "docker", "1.41.0000000000000000"));
}

static void test_box_spec__unsealed__git_writable_default_network(void **state)
{
    cleanup_json json_object *j = spec_json(false, false);
    assert_false(has_mount(get(j, "HostConfig.Mounts"), "/w/.git", "/w/.git", true));
    assert_false(
        has_mount(get(j, "HostConfig.Mounts"), "/w/lib/sub/.git", "/w/lib/sub/.git", true));
    /* Keys stay out unsealed too: the covers and the keyless copy are not the seal's. */
    assert_true(has_mount(get(j, "HostConfig.Mounts"), "/e", "/w/.env", true));
    assert_true(has_mount(get(j, "HostConfig.Mounts"), "/c/0", "/w/.npmrc", true));
    assert_null(get(j, "HostConfig.NetworkMode"));
    assert_null(get(j, "HostConfig.Sysctls"));
    assert_int_equal(json_object_array_length(get(j, "HostConfig.CapDrop")), 1);
}

/* A box joining its folder's holder (sidecar-hold.c) takes the holder's network as made: Docker
 * refuses a resolver or net sysctls there. Every other row stays, resolv.conf's cover too. */
static void test_box_spec__joins_holder__network_rows_left_to_the_holder(void **state)
{
    struct cp_box_spec s = {.image = "img",
                            .workdir = "/w",
                            .sealed = true,
                            .empty_file = "/e",
                            .network = "container:0123abcd",
                            .no_dns = "10.9.0.2",
                            .cpus = 2};
    cleanup_json json_object *j = cp_box_spec_json(&s);
    assert_string_equal(cp_json_str(get(j, "HostConfig"), "NetworkMode"), "container:0123abcd");
    assert_null(get(j, "HostConfig.Sysctls"));
    assert_null(get(j, "HostConfig.Dns"));
    assert_true(has_mount(get(j, "HostConfig.Mounts"), "/e", "/etc/resolv.conf", true));
    assert_true(json_object_get_boolean(get(j, "HostConfig.ReadonlyRootfs")));
    s.network = "conch-egress-0123";
    cleanup_json json_object *own = cp_box_spec_json(&s);
    assert_non_null(get(own, "HostConfig.Sysctls"));
    assert_string_equal(
        json_object_get_string(json_object_array_get_idx(get(own, "HostConfig.Dns"), 0)),
        "10.9.0.2");
}

static void test_box_spec__podman__tmpfs_cover_not_copied_up(void **state)
{
    cleanup_json json_object *p = spec_json(true, true);
    cleanup_json json_object *d = spec_json(true, false);
    assert_non_null(strstr(cp_json_str(get(p, "HostConfig.Tmpfs"), "/w/.ssh"), "notmpcopyup"));
    assert_null(strstr(cp_json_str(get(d, "HostConfig.Tmpfs"), "/w/.ssh"), "notmpcopyup"));
}

static void test_box_spec__hostile_argv__stays_one_json_string(void **state)
{
    char *argv[] = {"sh", "-c", "echo \"}, \\\"Privileged\\\": true", NULL};
    struct cp_box_spec s = {.image = "img", .argv = argv, .workdir = "/w\", \"x", .cpus = 1};
    cleanup_json json_object *j = cp_box_spec_json(&s);
    const char *text = json_object_to_json_string(j);
    cleanup_json json_object *back = NULL;
    assert_int_equal(cp_json_parse(text, strlen(text), "spec", &back, NULL), 0);
    assert_null(get(back, "HostConfig.Privileged"));
    assert_string_equal(json_object_get_string(json_object_array_get_idx(get(back, "Cmd"), 2)),
                        argv[2]);
}

static void test_warm_key__what_the_box_is_made_from__all_in_the_key(void **state)
{
    char *argv1[] = {"npm", "test", NULL}, *argv2[] = {"true", NULL};
    char *files1[] = {"/w/.env", NULL}, *files2[] = {"/w/.env", "/w/new.pem", NULL};
    struct cp_box_spec a = {.image = "img",
                            .argv = argv1,
                            .workdir = "/w",
                            .uid = 1,
                            .gid = 1,
                            .sealed = true,
                            .protected_files = files1,
                            .empty_file = "/e",
                            .network = "none",
                            .cpus = 2};
    struct cp_box_spec b = a;
    b.argv = argv2;
    b.interactive = true;
    cleanup_free char *ka = cp_warm_key(&a, "sha256:1");
    cleanup_free char *kb = cp_warm_key(&b, "sha256:1");
    assert_string_equal(ka, kb); /* the command and -i are not what the box is made from */
    struct cp_box_spec c = a;
    c.protected_files = files2;
    struct cp_box_spec d = a;
    d.sealed = false;
    d.network = NULL;
    struct cp_box_spec e = a;
    e.workdir = "/other";
    cleanup_free char *kc = cp_warm_key(&c, "sha256:1");
    cleanup_free char *kd = cp_warm_key(&d, "sha256:1");
    cleanup_free char *ke = cp_warm_key(&e, "sha256:1");
    cleanup_free char *kimg = cp_warm_key(&a, "sha256:2");
    assert_string_not_equal(ka, kc);
    assert_string_not_equal(ka, kd);
    assert_string_not_equal(ka, ke);
    assert_string_not_equal(ka, kimg);
}

static void test_warm_spec__waiter__same_seal_and_labelled(void **state)
{
    char *argv[] = {"true", NULL};
    struct cp_box_spec a = {.image = "img",
                            .argv = argv,
                            .workdir = "/w",
                            .uid = 1,
                            .gid = 1,
                            .sealed = true,
                            .network = "none",
                            .cpus = 2};
    cleanup_json json_object *fresh = cp_box_spec_json(&a);
    cleanup_json json_object *warm = cp_warm_spec(&a, "KEY");
    /* The same seal; the box is not removed as it leaves (its exit status is read after). */
    assert_false(json_object_get_boolean(get(get(warm, "HostConfig"), "AutoRemove")));
    json_object_object_del(get(warm, "HostConfig"), "AutoRemove");
    json_object_object_del(get(fresh, "HostConfig"), "AutoRemove");
    assert_string_equal(json_object_to_json_string(get(fresh, "HostConfig")),
                        json_object_to_json_string(get(warm, "HostConfig")));
    assert_true(json_object_get_boolean(get(warm, "StdinOnce")));
    assert_string_equal(cp_json_str(get(warm, "Labels"), "conch.key"), "KEY");
    assert_string_equal(cp_json_str(get(warm, "Labels"), "conch.warm"), "1");
    assert_true(json_object_get_boolean(get(warm, "OpenStdin")));
    assert_true(cp_warm_unclaimed("/conch-warm-abc"));
    assert_false(cp_warm_unclaimed("/conch-123-456-abc"));
}

/* The demultiplexer writes into two pipes we read back. */
struct pipes {
    int out[2], err[2];
};

static void open_pipes(struct pipes *p)
{
    assert_int_equal(pipe2(p->out, O_NONBLOCK), 0);
    assert_int_equal(pipe2(p->err, O_NONBLOCK), 0);
}

static size_t drain(int fd, char *buf, size_t len)
{
    ssize_t n = read(fd, buf, len - 1);
    buf[n > 0 ? n : 0] = '\0';
    return n > 0 ? (size_t)n : 0;
}

static void frame(uint8_t *dst, uint8_t type, const char *payload, size_t *len)
{
    size_t n = strlen(payload);
    uint8_t h[8] = {type,      0, 0, 0, (uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8),
                    (uint8_t)n};
    memcpy(dst + *len, h, 8);
    memcpy(dst + *len + 8, payload, n);
    *len += 8 + n;
}

static void rm_rf(const char *dir);

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* The egress image's name is kept beside the identities of the binary and the roots: used while
 * both are the same, made again when either is not or the kept name is not an image's. */
static void test_egress_image_name__kept__used_only_for_the_same_files(void **state)
{
    char home[] = "/tmp/conch-eimg-XXXXXX";
    assert_non_null(mkdtemp(home));
    setenv("CONCH_HOME", home, 1);
    cleanup_error cp_error_t err = NULL;
    cleanup_free char *first = NULL, *again = NULL, *kept = NULL, *remade = NULL, *bad = NULL;
    assert_int_equal(cp_egress_image_name(&first, &err), 0);
    assert_int_equal(cp_egress_image_name(&again, &err), 0);
    assert_string_equal(first, again);
    cleanup_free char *path = xasprintf("%s/workplaces/egress-image-name", home);
    cleanup_free char *text = NULL;
    size_t len = 0;
    assert_int_equal(cp_read_file(path, 512, &text, &len, &err), 0);
    /* The same identities with another image's name: the kept one is what is used. */
    char *sp = strrchr(text, ' ');
    assert_non_null(sp);
    sp[1] = '\0';
    cleanup_free char *other = xasprintf("%s" CP_IMAGE_EGRESS_REPO ":0123456789ab\n", text);
    write_text(path, other);
    assert_int_equal(cp_egress_image_name(&kept, &err), 0);
    assert_string_equal(kept, CP_IMAGE_EGRESS_REPO ":0123456789ab");
    /* Not an image's name: made again. */
    cleanup_free char *junk = xasprintf("%s../../evil\n", text);
    write_text(path, junk);
    assert_int_equal(cp_egress_image_name(&bad, &err), 0);
    assert_string_equal(bad, first);
    /* Another binary (another identity): made again. */
    cleanup_free char *stale = xasprintf("1.2.3.4.5.6.7 %s", strchr(other, ' ') + 1);
    write_text(path, stale);
    assert_int_equal(cp_egress_image_name(&remade, &err), 0);
    assert_string_equal(remade, first);
    rm_rf(home);
    unsetenv("CONCH_HOME");
}

static void test_demux__frames_split_anywhere__streams_kept_apart(void **state)
{
    uint8_t stream[256];
    size_t len = 0;
    frame(stream, 1, "hello ", &len);
    frame(stream, 2, "oops\n", &len);
    frame(stream, 1, "world", &len);
    for (size_t cut = 1; cut < len; cut++) {
        struct pipes p;
        open_pipes(&p);
        struct cp_demux d;
        cp_demux_init(&d, p.out[1], p.err[1]);
        assert_int_equal(cp_demux_feed(&d, stream, cut), 0);
        assert_int_equal(cp_demux_feed(&d, stream + cut, len - cut), 0);
        assert_int_equal(cp_demux_finish(&d), 0);
        char out[64], errb[64];
        drain(p.out[0], out, sizeof(out));
        drain(p.err[0], errb, sizeof(errb));
        assert_string_equal(out, "hello world");
        assert_string_equal(errb, "oops\n");
        assert_int_equal(d.launch_status, 0);
        close(p.out[0]), close(p.out[1]), close(p.err[0]), close(p.err[1]);
    }
}

/* A reader that never reads must not hold the run once a signal came: the blocked write
 * gives up with EINTR when the stop fd becomes readable, and wrote only what fitted. */
static void test_demux__output_full_and_stopped__gives_up(void **state)
{
    (void)state;
    int out[2], stop[2];
    assert_int_equal(pipe(out), 0);
    assert_int_equal(pipe(stop), 0);
    int cap = fcntl(out[1], F_SETPIPE_SZ, 4096);
    assert_true(cap >= 4096);
    /* non-blocking only so that a broken demux fails here instead of hanging the test */
    assert_int_equal(fcntl(out[1], F_SETFL, O_NONBLOCK), 0);
    static uint8_t big[8 + 65536];
    size_t n = 65536;
    big[0] = 1;
    big[4] = (uint8_t)(n >> 24), big[5] = (uint8_t)(n >> 16), big[6] = (uint8_t)(n >> 8);
    big[7] = (uint8_t)n;
    memset(big + 8, 'x', n);
    assert_int_equal(write(stop[1], "x", 1), 1);
    struct cp_demux d;
    cp_demux_init(&d, out[1], out[1]);
    cp_demux_set_stop(&d, stop[0]);
    errno = 0;
    assert_int_equal(cp_demux_feed(&d, big, sizeof(big)), -1);
    assert_int_equal(errno, EINTR);
    /* the stop fd is looked at before each write, so nothing was written at all */
    int pending = -1;
    assert_int_equal(ioctl(out[0], FIONREAD, &pending), 0);
    assert_int_equal(pending, 0);
    close(out[0]), close(out[1]), close(stop[0]), close(stop[1]);
}

/* Without a stop fd the same output goes through whole (a reader that reads). */
static void test_demux__no_stop__writes_whole(void **state)
{
    (void)state;
    struct pipes p;
    open_pipes(&p);
    uint8_t stream[64];
    size_t len = 0;
    frame(stream, 1, "all of it", &len);
    struct cp_demux d;
    cp_demux_init(&d, p.out[1], p.err[1]);
    assert_int_equal(cp_demux_feed(&d, stream, len), 0);
    char out[64];
    drain(p.out[0], out, sizeof(out));
    assert_string_equal(out, "all of it");
    close(p.out[0]), close(p.out[1]), close(p.err[0]), close(p.err[1]);
}

/* A stdin-exec box's shell reports a failed exec of the command itself in its own words: read
 * as 127 / 126; the same words about another name (a shell command's own exec) pass through. */
static int shell_report(const char *name, const char *report, char *passed, size_t len)
{
    uint8_t stream[512];
    size_t n = 0;
    frame(stream, 2, report, &n);
    struct pipes p;
    open_pipes(&p);
    struct cp_demux d;
    cp_demux_init(&d, p.out[1], p.err[1]);
    d.launch_name = name;
    assert_int_equal(cp_demux_feed(&d, stream, n), 0);
    assert_int_equal(cp_demux_finish(&d), 0);
    drain(p.err[0], passed, len);
    close(p.out[0]), close(p.out[1]), close(p.err[0]), close(p.err[1]);
    return d.launch_status;
}

static void test_demux__shell_exec_report__read_only_for_the_command(void **state)
{
    (void)state;
    char passed[256];
    assert_int_equal(shell_report("nope", "sh: exec: line 0: nope: not found\n", passed, 256), 127);
    assert_string_equal(passed, "");
    assert_int_equal(shell_report("./f", "sh: 1: exec: ./f: Permission denied\n", passed, 256),
                     126);
    assert_int_equal(shell_report("sh", "sh: exec: line 0: other: not found\n", passed, 256), 0);
    assert_string_equal(passed, "sh: exec: line 0: other: not found\n");
}

static int sniff_status(const char *report, char *passed, size_t passed_len)
{
    uint8_t stream[512];
    size_t len = 0;
    frame(stream, 2, report, &len);
    struct pipes p;
    open_pipes(&p);
    struct cp_demux d;
    cp_demux_init(&d, p.out[1], p.err[1]);
    assert_int_equal(cp_demux_feed(&d, stream, len), 0);
    assert_int_equal(cp_demux_finish(&d), 0);
    drain(p.err[0], passed, passed_len);
    close(p.out[0]), close(p.out[1]), close(p.err[0]), close(p.err[1]);
    return d.launch_status;
}

static void test_demux__init_reports__become_126_and_127(void **state)
{
    char passed[256];
    assert_int_equal(
        sniff_status("ERROR (catatonit:6): failed to exec pid1: No such file or directory\n",
                     passed, sizeof(passed)),
        127);
    assert_string_equal(passed, "");
    assert_int_equal(sniff_status("[FATAL tini (7)] exec ./x failed: Permission denied\n", passed,
                                  sizeof(passed)),
                     126);
    assert_int_equal(
        sniff_status("[FATAL tini (7)] exec ./x failed: No such file or directory\nmore\n", passed,
                     sizeof(passed)),
        127);
    assert_string_equal(passed, "more\n");
}

static void test_demux__lookalike_output__passed_through_untouched(void **state)
{
    char passed[256];
    assert_int_equal(sniff_status("[FATAL tix\n", passed, sizeof(passed)), 0);
    assert_string_equal(passed, "[FATAL tix\n");
    assert_int_equal(sniff_status("ERROR (catatonit:1): something else\n", passed, sizeof(passed)),
                     0);
    assert_string_equal(passed, "ERROR (catatonit:1): something else\n");
    assert_int_equal(sniff_status("plain error\n", passed, sizeof(passed)), 0);
    assert_string_equal(passed, "plain error\n");
}

static void test_engine__discovery__env_first_unix_only(void **state)
{
    setenv("DOCKER_HOST", "tcp://10.0.0.1:2375", 1);
    setenv("CONTAINER_HOST", "unix:///custom/podman.sock", 1);
    cleanup_strv char **auto_order = cp_engine_candidates("auto");
    /* Named engines only: nothing found elsewhere may stand in for them. */
    assert_string_equal(auto_order[0], "/custom/podman.sock");
    assert_null(auto_order[1]);
    setenv("DOCKER_HOST", "unix:///custom/docker.sock", 1);
    cleanup_strv char **docker = cp_engine_candidates("docker");
    assert_string_equal(docker[0], "/custom/docker.sock");
    assert_null(docker[1]);
    unsetenv("DOCKER_HOST");
    unsetenv("CONTAINER_HOST");
    cleanup_strv char **found = cp_engine_candidates("docker");
    assert_string_equal(found[0], "/var/run/docker.sock");
    for (size_t i = 0; found[i]; i++)
        assert_null(strstr(found[i], "podman"));
}

static void test_engine__named_by_env__used_or_fails_never_passed_over(void **state)
{
    cleanup_engine struct cp_engine *e = NULL;
    cleanup_error cp_error_t err = NULL;
    setenv("DOCKER_HOST", "tcp://10.0.0.1:2375", 1);
    assert_int_equal(cp_engine_connect("auto", &e, &err), CP_ERR_UNREACHABLE);
    assert_non_null(strstr(err->msg, "DOCKER_HOST"));
    assert_null(e);
    cp_error_free(&err);
    setenv("DOCKER_HOST", "unix:///nonexistent/conch-test.sock", 1);
    assert_int_equal(cp_engine_connect("auto", &e, &err), CP_ERR_UNREACHABLE);
    assert_non_null(strstr(err->msg, "DOCKER_HOST"));
    assert_null(e);
    cp_error_free(&err);
    /* --engine podman is not DOCKER_HOST's business. */
    cleanup_strv char **podman = cp_engine_candidates("podman");
    assert_string_equal(podman[0], "/run/podman/podman.sock");
    unsetenv("DOCKER_HOST");
}

/* A person's own rootless Podman: under XDG_RUNTIME_DIR, else in their own 0700 folder, never
 * a relative runtime folder (which would be wherever the command started). */
static void test_engine__rootless_socket__runtime_dir_else_own_folder(void **state)
{
    setenv("XDG_RUNTIME_DIR", "/run/user/1000", 1);
    cleanup_free char *xdg = cp_rootless_podman_socket();
    assert_string_equal(xdg, "/run/user/1000/podman/podman.sock");
    cleanup_strv char **podman = cp_engine_candidates("podman");
    assert_string_equal(podman[0], "/run/podman/podman.sock");
    assert_string_equal(podman[1], "/run/user/1000/podman/podman.sock");
    setenv("XDG_RUNTIME_DIR", "run/user/1000", 1);
    cleanup_free char *relative = cp_rootless_podman_socket();
    cleanup_free char *own = xasprintf("/tmp/conch-place-%u/podman.sock", (unsigned)geteuid());
    assert_string_equal(relative, own);
    unsetenv("XDG_RUNTIME_DIR");
    cleanup_free char *unset = cp_rootless_podman_socket();
    assert_string_equal(unset, own);
}

static void touch(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT, 0600);
    assert_true(fd >= 0);
    close(fd);
}

static void test_protect__keys_anywhere__found_links_not_followed(void **state)
{
    char dir[] = "/tmp/conch-test-protect-XXXXXX";
    assert_non_null(mkdtemp(dir));
    cleanup_free char *sub = xasprintf("%s/a/b", dir);
    cleanup_free char *a = xasprintf("%s/a", dir);
    cleanup_free char *ssh = xasprintf("%s/a/.ssh", dir);
    cleanup_free char *nm = xasprintf("%s/node_modules", dir);
    assert_int_equal(mkdir(a, 0700), 0);
    assert_int_equal(mkdir(sub, 0700), 0);
    assert_int_equal(mkdir(ssh, 0700), 0);
    assert_int_equal(mkdir(nm, 0700), 0);
    cleanup_free char *env = xasprintf("%s/.env", dir);
    cleanup_free char *pem = xasprintf("%s/a/b/cert.pem", dir);
    cleanup_free char *deppem = xasprintf("%s/node_modules/test.pem", dir);
    cleanup_free char *link = xasprintf("%s/link.key", dir);
    touch(env);
    touch(pem);
    touch(deppem);
    assert_int_equal(symlink("/etc/passwd", link), 0);
    struct cp_protected p;
    cleanup_error cp_error_t err = NULL;
    char **owned = NULL;
    const char *const *pats = cp_protect_patterns(NULL, &owned);
    assert_null(owned);
    assert_int_equal(cp_protect_scan(dir, pats, &p, &err), 0);
    size_t nf = cp_strv_len(p.files), nd = cp_strv_len(p.dirs);
    assert_int_equal(nd, 1);
    assert_string_equal(p.dirs[0], ssh);
    assert_int_equal(nf, 2);
    bool saw_env = false, saw_pem = false;
    for (size_t i = 0; i < nf; i++) {
        saw_env |= strcmp(p.files[i], env) == 0;
        saw_pem |= strcmp(p.files[i], pem) == 0;
    }
    assert_true(saw_env && saw_pem);
    cp_protected_dispose(&p);
    unlink(env), unlink(pem), unlink(deppem), unlink(link);
    rmdir(ssh), rmdir(sub), rmdir(a), rmdir(nm), rmdir(dir);
}

/* Writes rel under dir, making the folders on its way. */
static void put(const char *dir, const char *rel, const char *text)
{
    cleanup_free char *path = xasprintf("%s/%s", dir, rel);
    for (char *p = path + strlen(dir) + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        mkdir(path, 0700);
        *p = '/';
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static void rm_rf(const char *dir)
{
    nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static bool listed(char **v, const char *path)
{
    for (size_t i = 0; v != NULL && v[i] != NULL; i++)
        if (strcmp(v[i], path) == 0)
            return true;
    return false;
}

/* The cover for one_list_paths[i]: the folder its pattern names, or the file itself. */
static char *cover_of(const char *dir, const char *rel)
{
    static const char *const folders[] = {".ssh",       ".aws",
                                          ".gnupg",     ".conch",
                                          ".config/gh", ".config/glab-cli",
                                          ".gcm",       ".config/configstore",
                                          NULL};
    for (size_t i = 0; folders[i] != NULL; i++) {
        size_t n = strlen(folders[i]);
        if (strncmp(rel, folders[i], n) == 0 && rel[n] == '/')
            return xasprintf("%s/a/b/%s", dir, folders[i]);
    }
    return xasprintf("%s/a/b/%s", dir, rel);
}

static void test_protect__one_list__every_pattern_covered_at_depth(void **state)
{
    char dir[] = "/tmp/conch-test-protect-XXXXXX";
    assert_non_null(mkdtemp(dir));
    for (size_t i = 0; i < ARRAY_SIZE(one_list_paths); i++) {
        cleanup_free char *rel = xasprintf("a/b/%s", one_list_paths[i]);
        put(dir, rel, "KEY");
    }
    put(dir, "a/b/.config/other/settings.json", "plain"); /* .config itself is not a key */
    put(dir, "a/b/credentials", "plain");                 /* nor is the bare name */
    cleanup_protected struct cp_protected p = {0};
    cleanup_error cp_error_t err = NULL;
    char **owned = NULL;
    assert_int_equal(cp_protect_scan(dir, cp_protect_patterns(NULL, &owned), &p, &err), 0);
    for (size_t i = 0; i < ARRAY_SIZE(one_list_paths); i++) {
        cleanup_free char *cover = cover_of(dir, one_list_paths[i]);
        if (!listed(p.dirs, cover) && !listed(p.files, cover))
            fail_msg("%s is not covered", one_list_paths[i]);
    }
    cleanup_free char *other = xasprintf("%s/a/b/.config/other/settings.json", dir);
    cleanup_free char *bare = xasprintf("%s/a/b/credentials", dir);
    assert_false(listed(p.files, other) || listed(p.files, bare));
    rm_rf(dir);
}

static void test_protect__nested_git__every_one_found(void **state)
{
    char dir[] = "/tmp/conch-test-protect-XXXXXX";
    assert_non_null(mkdtemp(dir));
    put(dir, ".git/HEAD", "ref: refs/heads/main\n");
    put(dir, ".git/modules/m/HEAD", "ref: refs/heads/main\n");
    put(dir, "m/.git", "gitdir: ../.git/modules/m\n");             /* a submodule */
    put(dir, "vendor/lib/.git/HEAD", "ref: refs/heads/x\n");       /* a nested repository */
    put(dir, "wt/.git", "gitdir: /elsewhere/.git/worktrees/wt\n"); /* a worktree */
    put(dir, "repos/real.git/HEAD", "ref: refs/heads/main\n");     /* reached by a link */
    cleanup_free char *link = xasprintf("%s/linked/.git", dir);
    cleanup_free char *linked = xasprintf("%s/linked", dir);
    assert_int_equal(mkdir(linked, 0700), 0);
    assert_int_equal(symlink("../repos/real.git", link), 0);
    cleanup_protected struct cp_protected p = {0};
    cleanup_error cp_error_t err = NULL;
    char **owned = NULL;
    assert_int_equal(cp_protect_scan(dir, cp_protect_patterns(NULL, &owned), &p, &err), 0);
    const char *want[] = {".git", "m/.git", "vendor/lib/.git", "wt/.git", "repos/real.git"};
    assert_int_equal(cp_strv_len(p.gits), ARRAY_SIZE(want));
    for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
        cleanup_free char *path = xasprintf("%s/%s", dir, want[i]);
        assert_true(listed(p.gits, path));
    }
    rm_rf(dir);
}

static void test_protect__settings__keyless_copy_private_and_removed(void **state)
{
    char dir[] = "/tmp/conch-test-protect-XXXXXX";
    assert_non_null(mkdtemp(dir));
    cleanup_free char *home = xasprintf("%s/home", dir);
    setenv("CONCH_HOME", home, 1);
    put(dir, "w/.npmrc", "registry=https://npm.example/\n//npm.example/:_authToken=SEKRIT\n");
    put(dir, "w/app/.yarnrc.yml",
        "npmRegistryServer: \"https://r.example\"\nnpmAuthToken: SEKRIT\n");
    put(dir, "w/venv-conf/pip.conf",
        "[global]\nindex-url = https://u:SEKRIT@pypi.example/simple\n");
    cleanup_free char *work = xasprintf("%s/w", dir);
    cleanup_protected struct cp_protected p = {0};
    cleanup_error cp_error_t err = NULL;
    char **owned = NULL;
    assert_int_equal(cp_protect_scan(work, cp_protect_patterns(NULL, &owned), &p, &err), 0);
    assert_int_equal(cp_strv_len(p.settings), 3);
    assert_int_equal(cp_protect_make_copies(&p, "conch-box-t", &err), 0);
    assert_int_equal(cp_strv_len(p.copies), 3);
    struct stat st;
    assert_int_equal(stat(p.copy_dir, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    for (size_t i = 0; i < 3; i++) {
        cleanup_free char *text = NULL;
        assert_int_equal(stat(p.copies[i], &st), 0);
        assert_int_equal(st.st_mode & 0777, 0600);
        assert_int_equal(cp_read_file(p.copies[i], 4096, &text, NULL, NULL), 0);
        assert_null(strstr(text, "SEKRIT"));
        assert_non_null(strstr(text, ".example")); /* the registry setting stays */
    }
    cleanup_free char *copy_dir = xstrdup(p.copy_dir);
    cp_protected_dispose(&p);
    assert_int_equal(stat(copy_dir, &st), -1);
    unsetenv("CONCH_HOME");
    rm_rf(dir);
}

/* Issue 20: a settings file that cannot be read as settings is covered like a key, never shown
 * whole: one over 1 MB, and one swapped for a link to a key file after the scan found it (so it
 * cannot be opened without following the link; as root, the one way a file is unreadable). */
static void test_protect__settings_over_1mb_or_unreadable__covered_not_copied(void **state)
{
    char dir[] = "/tmp/conch-test-protect-XXXXXX";
    assert_non_null(mkdtemp(dir));
    cleanup_free char *home = xasprintf("%s/home", dir);
    setenv("CONCH_HOME", home, 1);
    size_t big = 1024 * 1024 + 1; /* DESIGN.md's bound, not the code's constant */
    cleanup_free char *text = xmalloc(big + 1);
    memset(text, '#', big);
    memcpy(text, "//r.example/:_authToken=SEKRIT\n", 31);
    text[big] = '\0';
    put(dir, "w/.npmrc", text);
    put(dir, "w/app/.npmrc", "registry=https://npm.example/\n//npm.example/:_authToken=SEKRIT\n");
    put(dir, "keyfile", "//npm.example/:_authToken=SEKRIT\n");
    cleanup_free char *work = xasprintf("%s/w", dir);
    cleanup_free char *bigpath = xasprintf("%s/.npmrc", work);
    cleanup_free char *swapped = xasprintf("%s/app/.npmrc", work);
    cleanup_protected struct cp_protected p = {0};
    cleanup_error cp_error_t err = NULL;
    char **owned = NULL;
    assert_int_equal(cp_protect_scan(work, cp_protect_patterns(NULL, &owned), &p, &err), 0);
    assert_int_equal(cp_strv_len(p.settings), 2);
    assert_int_equal(unlink(swapped), 0);
    assert_int_equal(symlink("../../keyfile", swapped), 0);
    assert_int_equal(cp_protect_make_copies(&p, "conch-box-u", &err), 0);
    assert_int_equal(cp_strv_len(p.copies), 0);
    assert_int_equal(cp_strv_len(p.settings), 0);
    assert_true(listed(p.files, bigpath));
    assert_true(listed(p.files, swapped));
    unsetenv("CONCH_HOME");
    rm_rf(dir);
}

static void expect_keyless(const char *in, const char *out)
{
    cleanup_free char *got = cp_keyless_text(in, strlen(in));
    assert_string_equal(got, out);
}

static void test_keyless__each_credential_key__its_line_removed(void **state)
{
    expect_keyless("registry=https://r.example/\n//r.example/:_authToken=T\nsave-exact=true\n",
                   "registry=https://r.example/\nsave-exact=true\n");
    expect_keyless("_auth = dXNlcjpwYXNz\nfund=false\n", "fund=false\n");
    expect_keyless("//r.example/:username=u\n//r.example/:_password=cGFzcw==\n",
                   "//r.example/:username=u\n");
    expect_keyless("npmRegistryServer: \"https://r.example\"\nnpmAuthToken: T\n",
                   "npmRegistryServer: \"https://r.example\"\n");
    expect_keyless("npmScopes:\n  co:\n    npmAuthIdent: \"u:p\"\n    npmRegistryServer: x\n",
                   "npmScopes:\n  co:\n    npmRegistryServer: x\n");
    /* A value continued on more-indented lines goes with its key. */
    expect_keyless("npmAuthToken: |\n  T1\n  T2\nenableTelemetry: false\n",
                   "enableTelemetry: false\n");
    /* Lookalikes stay: a key only counts as a whole key. */
    expect_keyless("_authTokenHelper=x\nmy_auth=y\n", "_authTokenHelper=x\nmy_auth=y\n");
}

static void test_keyless__user_password_in_address__taken_out(void **state)
{
    expect_keyless("[global]\nindex-url = https://u:p@pypi.example/simple\n",
                   "[global]\nindex-url = https://pypi.example/simple\n");
    expect_keyless("extra-index-url =\n    https://tok@a.example/simple\n    https://b.example/\n",
                   "extra-index-url =\n    https://a.example/simple\n    https://b.example/\n");
    expect_keyless("registry=https://u:p@r.example:8443/npm/\n",
                   "registry=https://r.example:8443/npm/\n");
}

/* Docker's die event carries the exit code as a string attribute; only this box's die counts. */
static int die_line(const char *line, int *status)
{
    *status = -1;
    return cp_exit_event_parse(line, strlen(line), "4f1c0ffee", status);
}

static void test_exit_event__this_box_dies__its_code_taken(void **state)
{
    (void)state;
    int status = -1;
    assert_int_equal(die_line("{\"Type\":\"container\",\"Action\":\"die\",\"Actor\":{\"ID\":"
                              "\"4f1c0ffee\",\"Attributes\":{\"exitCode\":\"7\",\"name\":\"x\"}}}",
                              &status),
                     1);
    assert_int_equal(status, 7);
    assert_int_equal(die_line("{\"Type\":\"container\",\"Action\":\"die\",\"Actor\":{\"ID\":"
                              "\"4f1c0ffee\",\"Attributes\":{\"exitCode\":\"255\"}}}",
                              &status),
                     1);
    assert_int_equal(status, 255);
}

static void test_exit_event__anything_else__not_taken(void **state)
{
    (void)state;
    static const char *const others[] = {
        /* another box, another action, another type */
        "{\"Type\":\"container\",\"Action\":\"die\",\"Actor\":{\"ID\":\"4f1c0ffee0\","
        "\"Attributes\":{\"exitCode\":\"0\"}}}",
        "{\"Type\":\"container\",\"Action\":\"kill\",\"Actor\":{\"ID\":\"4f1c0ffee\","
        "\"Attributes\":{\"exitCode\":\"0\"}}}",
        "{\"Type\":\"network\",\"Action\":\"die\",\"Actor\":{\"ID\":\"4f1c0ffee\","
        "\"Attributes\":{\"exitCode\":\"0\"}}}",
        /* no code, a code out of range, not a string, not a number */
        "{\"Type\":\"container\",\"Action\":\"die\",\"Actor\":{\"ID\":\"4f1c0ffee\"}}",
        "{\"Type\":\"container\",\"Action\":\"die\",\"Actor\":{\"ID\":\"4f1c0ffee\","
        "\"Attributes\":{\"exitCode\":\"256\"}}}",
        "{\"Type\":\"container\",\"Action\":\"die\",\"Actor\":{\"ID\":\"4f1c0ffee\","
        "\"Attributes\":{\"exitCode\":\"-1\"}}}",
        "{\"Type\":\"container\",\"Action\":\"die\",\"Actor\":{\"ID\":\"4f1c0ffee\","
        "\"Attributes\":{\"exitCode\":0}}}",
        "{\"Type\":\"container\",\"Action\":\"die\",\"Actor\":{\"ID\":\"4f1c0ffee\","
        "\"Attributes\":{\"exitCode\":\"0x1\"}}}",
        /* not one JSON document */
        "{\"Type\":\"container\",\"Action\":\"die\"",
        "",
    };
    for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
        int status = -1;
        assert_int_equal(die_line(others[i], &status), 0);
        assert_int_equal(status, -1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_box_spec__sealed__every_row_of_the_seal),
        cmocka_unit_test(test_sealed_body__helper_options__seal_rows_still_there),
        cmocka_unit_test(test_engine_recalled__kind__its_quirks),
        cmocka_unit_test(test_box_spec__unsealed__git_writable_default_network),
        cmocka_unit_test(test_box_spec__joins_holder__network_rows_left_to_the_holder),
        cmocka_unit_test(test_box_spec__podman__tmpfs_cover_not_copied_up),
        cmocka_unit_test(test_box_spec__hostile_argv__stays_one_json_string),
        cmocka_unit_test(test_warm_key__what_the_box_is_made_from__all_in_the_key),
        cmocka_unit_test(test_warm_spec__waiter__same_seal_and_labelled),
        cmocka_unit_test(test_egress_image_name__kept__used_only_for_the_same_files),
        cmocka_unit_test(test_demux__frames_split_anywhere__streams_kept_apart),
        cmocka_unit_test(test_demux__init_reports__become_126_and_127),
        cmocka_unit_test(test_demux__lookalike_output__passed_through_untouched),
        cmocka_unit_test(test_demux__output_full_and_stopped__gives_up),
        cmocka_unit_test(test_demux__shell_exec_report__read_only_for_the_command),
        cmocka_unit_test(test_demux__no_stop__writes_whole),
        cmocka_unit_test(test_engine__discovery__env_first_unix_only),
        cmocka_unit_test(test_engine__named_by_env__used_or_fails_never_passed_over),
        cmocka_unit_test(test_engine__rootless_socket__runtime_dir_else_own_folder),
        cmocka_unit_test(test_protect__keys_anywhere__found_links_not_followed),
        cmocka_unit_test(test_protect__one_list__every_pattern_covered_at_depth),
        cmocka_unit_test(test_protect__nested_git__every_one_found),
        cmocka_unit_test(test_protect__settings__keyless_copy_private_and_removed),
        cmocka_unit_test(test_protect__settings_over_1mb_or_unreadable__covered_not_copied),
        cmocka_unit_test(test_keyless__each_credential_key__its_line_removed),
        cmocka_unit_test(test_keyless__user_password_in_address__taken_out),
        cmocka_unit_test(test_exit_event__this_box_dies__its_code_taken),
        cmocka_unit_test(test_exit_event__anything_else__not_taken),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
