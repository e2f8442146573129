/* Unit tests for the container place's pure parts: the seal in the create body, the frame
 * demultiplexer and the init-report sniffing, engine discovery order, protected places. */
#include "config.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "places/container/box-spec.h"
#include "places/container/engine.h"
#include "places/container/protect.h"
#include "places/container/stream.h"
#include "places/container/warm.h"
#include "src/base/json.h"
#include "src/base/paths.h"
#include "src/base/util.h"

static json_object *spec_json(bool sealed, bool podman)
{
    static char *argv[] = {"npm", "test", NULL};
    static char *dirs[] = {"/w/.ssh", NULL};
    static char *files[] = {"/w/.env", NULL};
    struct cp_box_spec s = {.image = "img",
                            .argv = argv,
                            .workdir = "/w",
                            .uid = 1000,
                            .gid = 1000,
                            .sealed = sealed,
                            .podman = podman,
                            .git_is_present = true,
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

static void test_box_spec__sealed__every_row_of_the_seal(void **state)
{
    cleanup_json json_object *j = spec_json(true, false);
    assert_string_equal(
        json_object_get_string(json_object_array_get_idx(get(j, "HostConfig.CapDrop"), 0)), "ALL");
    assert_string_equal(
        json_object_get_string(json_object_array_get_idx(get(j, "HostConfig.SecurityOpt"), 0)),
        "no-new-privileges");
    assert_true(json_object_get_boolean(get(j, "HostConfig.ReadonlyRootfs")));
    assert_non_null(strstr(cp_json_str(get(j, "HostConfig.Tmpfs"), "/tmp"), "size=2g"));
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
    assert_true(has_mount(mounts, "/e", "/w/.env", true));
    assert_non_null(cp_json_str(get(j, "HostConfig.Tmpfs"), "/w/.ssh"));
    json_object *env = get(j, "Env");
    assert_int_equal(json_object_array_length(env), 2);
    assert_string_equal(json_object_get_string(json_object_array_get_idx(env, 0)), "HOME=/tmp");
}

static void test_box_spec__unsealed__git_writable_default_network(void **state)
{
    cleanup_json json_object *j = spec_json(false, false);
    assert_false(has_mount(get(j, "HostConfig.Mounts"), "/w/.git", "/w/.git", true));
    assert_null(get(j, "HostConfig.NetworkMode"));
    assert_null(get(j, "HostConfig.Sysctls"));
    assert_int_equal(json_object_array_length(get(j, "HostConfig.CapDrop")), 1);
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
    assert_string_equal(json_object_to_json_string(get(fresh, "HostConfig")),
                        json_object_to_json_string(get(warm, "HostConfig")));
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
    assert_string_equal(auto_order[0], "/custom/podman.sock");
    assert_string_equal(auto_order[1], "/run/podman/podman.sock");
    for (size_t i = 0; auto_order[i]; i++)
        assert_null(strstr(auto_order[i], "10.0.0.1"));
    setenv("DOCKER_HOST", "unix:///custom/docker.sock", 1);
    cleanup_strv char **docker = cp_engine_candidates("docker");
    assert_string_equal(docker[0], "/custom/docker.sock");
    for (size_t i = 0; docker[i]; i++)
        assert_null(strstr(docker[i], "podman"));
    unsetenv("DOCKER_HOST");
    unsetenv("CONTAINER_HOST");
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_box_spec__sealed__every_row_of_the_seal),
        cmocka_unit_test(test_box_spec__unsealed__git_writable_default_network),
        cmocka_unit_test(test_box_spec__podman__tmpfs_cover_not_copied_up),
        cmocka_unit_test(test_box_spec__hostile_argv__stays_one_json_string),
        cmocka_unit_test(test_warm_key__what_the_box_is_made_from__all_in_the_key),
        cmocka_unit_test(test_warm_spec__waiter__same_seal_and_labelled),
        cmocka_unit_test(test_demux__frames_split_anywhere__streams_kept_apart),
        cmocka_unit_test(test_demux__init_reports__become_126_and_127),
        cmocka_unit_test(test_demux__lookalike_output__passed_through_untouched),
        cmocka_unit_test(test_engine__discovery__env_first_unix_only),
        cmocka_unit_test(test_protect__keys_anywhere__found_links_not_followed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
