/* Unit tests for the sidecar's keys message (egress/sign-ins/keys-message.h): the message
 * conch-place writes parses back whole; a sign-ins message is not one; each bad shape is refused
 * without a value in the error; through the sign-in channel's feed the first keys are taken and
 * answered, the same keys answered again and others refused; the wait hands over the keys that
 * came on its channel and says why when none came. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "egress/sign-ins/keys-message.h"
#include "egress/sign-ins/sign-ins-feed.h"
#include "src/base/util.h"

#define SECRET "0123456789abcdef0123456789abcdef-SECRET"
#define CA                                                                                         \
    "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n-----BEGIN PRIVATE "            \
    "KEY-----\nKEYBODY\n-----END PRIVATE KEY-----\n"
#define PW_URL "http://user:Pa55word@proxy.corp:3128"

static char *message(const char *secret, const char *ca, const char *id)
{
    struct cp_egress_keys k = {.secret = (char *)secret,
                               .ca_pem = (char *)ca,
                               .https_proxy = PW_URL,
                               .no_proxy = "internal.corp"};
    return cp_egress_keys_message(&k, id);
}

static void test_egress_keys__message__parses_back_whole(void **state)
{
    (void)state;
    cleanup_free char *line = message(SECRET, CA, "ab12");
    size_t len = strlen(line);
    assert_int_equal(line[len - 1], '\n');
    assert_null(memchr(line, '\n', len - 1)); /* one line: the PEM's breaks escaped */
    struct cp_egress_keys k;
    char id[CP_EGRESS_SIGN_INS_ID_MAX + 1];
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_egress_keys_parse(line, len - 1, &k, id, &err), 1);
    assert_string_equal(k.secret, SECRET);
    assert_string_equal(k.ca_pem, CA);
    assert_string_equal(k.https_proxy, PW_URL);
    assert_string_equal(k.no_proxy, "internal.corp");
    assert_string_equal(id, "ab12");
    cp_egress_keys_dispose(&k);
    assert_null(k.secret);
}

static void test_egress_keys__sign_ins_message__is_not_keys(void **state)
{
    (void)state;
    static const char *const lines[] = {
        "{\"sign_ins\":[]}",
        "{\"id\":\"aa\",\"sign_ins\":[{\"host\":\"h\",\"prefix\":\"/\",\"authorization\":"
        "\"Bearer x\",\"source\":\"keys\"}]}",
    };
    for (size_t i = 0; i < ARRAY_SIZE(lines); i++) {
        struct cp_egress_keys k;
        char id[CP_EGRESS_SIGN_INS_ID_MAX + 1];
        cleanup_error cp_error_t err = NULL;
        assert_int_equal(cp_egress_keys_parse(lines[i], strlen(lines[i]), &k, id, &err), 0);
        assert_null(err);
    }
}

static void test_egress_keys__bad_shapes__refused_without_values(void **state)
{
    (void)state;
    static const char *const lines[] = {
        "{\"id\":\"aa\",\"keys\":{\"secret\":\"short-SECRET\",\"ca\":\"PEM-SECRET\"}}",
        "{\"id\":\"aa\",\"keys\":{\"ca\":\"PEM-SECRET\"}}",
        "{\"id\":\"aa\",\"keys\":{\"secret\":\"" SECRET "\"}}",
        "{\"id\":\"XY\",\"keys\":{\"secret\":\"" SECRET "\",\"ca\":\"PEM-SECRET\"}}",
        "{\"keys\":{\"secret\":\"" SECRET "\",\"ca\":\"PEM-SECRET\"}}",
        "{\"id\":\"aa\",\"keys\":{\"secret\":\"" SECRET "\",\"ca\":\"PEM-SECRET\",\"x\":\"y\"}}",
        "{\"id\":\"aa\",\"keys\":{\"secret\":\"" SECRET "\",\"ca\":7}}",
        "{\"id\":\"aa\",\"keys\":{\"secret\":\"" SECRET "\",\"ca\":\"PEM-SECRET\"},\"more\":1}",
        "{\"id\":\"aa\",\"keys\":{\"secret\":\"" SECRET "\"",
        "{\"id\":\"aa\",\"keys\":[\"SECRET\"]}",
    };
    for (size_t i = 0; i < ARRAY_SIZE(lines); i++) {
        struct cp_egress_keys k;
        char id[CP_EGRESS_SIGN_INS_ID_MAX + 1];
        cleanup_error cp_error_t err = NULL;
        assert_true(cp_egress_keys_parse(lines[i], strlen(lines[i]), &k, id, &err) < 0);
        assert_non_null(err);
        assert_null(strstr(err->msg, "SECRET"));
        assert_null(k.secret);
        assert_null(k.ca_pem);
    }
}

static size_t drain(int fd, char *buf, size_t cap)
{
    ssize_t n = read(fd, buf, cap - 1);
    buf[n > 0 ? n : 0] = '\0';
    return n > 0 ? (size_t)n : 0;
}

/* One process, one slot (keys-message.c): the feed's hook and the wait are tested together. */
static void test_egress_keys__channel__first_taken_same_answered_others_refused(void **state)
{
    (void)state;
    cleanup_error cp_error_t err = NULL;
    assert_int_equal(cp_egress_keys_expect(&err), 0);
    int in[2], answers[2];
    assert_int_equal(pipe(in), 0);
    assert_int_equal(pipe(answers), 0);
    struct cp_egress_sign_ins_holder table;
    cp_egress_sign_ins_holder_init(&table);
    /* Nothing came: the wait says why. */
    struct cp_egress_keys k = {0};
    assert_int_equal(cp_egress_keys_wait(in[0], &table, NULL, 50, &k, &err), CP_ERR_TIMEOUT);
    assert_non_null(strstr(err->msg, "no keys came"));
    cp_error_free(&err);
    /* The keys on the channel: taken, handed to the wait. */
    cleanup_free char *first = message(SECRET, CA, "0001");
    assert_int_equal(cp_write_all(in[1], first, strlen(first)), 0);
    assert_int_equal(cp_egress_keys_wait(in[0], &table, NULL, 5000, &k, &err), 0);
    assert_string_equal(k.secret, SECRET);
    assert_string_equal(k.https_proxy, PW_URL);
    cp_egress_keys_dispose(&k);
    /* Later lines through a feed of the loop: same keys answered, others refused. */
    struct cp_egress_sign_ins_feed f;
    assert_int_equal(cp_egress_sign_ins_feed_init(&f, -1, &table, NULL, &err), 0);
    f.answer_fd = answers[1];
    char got[256];
    cleanup_free char *same = message(SECRET, CA, "0002");
    cp_egress_sign_ins_feed_bytes(&f, same, strlen(same));
    assert_true(drain(answers[0], got, sizeof(got)) > 0);
    assert_string_equal(got, "keys 0002\n");
    cleanup_free char *other = message(SECRET "-other", CA, "0003");
    cleanup_free char *sign_ins = xstrdup("{\"id\":\"0004\",\"sign_ins\":[]}\n");
    cp_egress_sign_ins_feed_bytes(&f, other, strlen(other));
    cp_egress_sign_ins_feed_bytes(&f, sign_ins, strlen(sign_ins));
    drain(answers[0], got, sizeof(got));
    assert_string_equal(got, "sign-ins 0004 0\n"); /* no "keys 0003" before it */
    cp_egress_sign_ins_feed_dispose(&f);
    cp_egress_sign_ins_holder_set(&table, NULL);
    close(in[0]);
    close(in[1]);
    close(answers[0]);
    close(answers[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_egress_keys__message__parses_back_whole),
        cmocka_unit_test(test_egress_keys__sign_ins_message__is_not_keys),
        cmocka_unit_test(test_egress_keys__bad_shapes__refused_without_values),
        cmocka_unit_test(test_egress_keys__channel__first_taken_same_answered_others_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
