/* The landing as a pull drives it: begin, read, commit only on success, dispose. */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mirror/archive-util.h"
#include "tests/mirror/landrun.h"

static void collect(void *ctx, const char *line)
{
    struct landrun *r = ctx;
    size_t used = strlen(r->said);
    snprintf(r->said + used, sizeof(r->said) - used, "%s\n", line);
}

void landrun(struct landrun *r, struct scratch *s, struct tb *t, const char *const *asked,
             int known, uint64_t max_bytes)
{
    memset(r, 0, sizeof(*r));
    r->rep.say = collect;
    r->rep.ctx = r;
    size_t want = 0;
    while (asked != NULL && asked[want] != NULL)
        want++;
    r->asks = calloc(want + 1, sizeof(*r->asks));
    for (; r->n < want; r->n++) {
        struct cp_ask *a = &r->asks[r->n];
        struct stat st;
        a->path = asked[r->n];
        if (known && fstatat(s->workfd, a->path, &st, AT_SYMLINK_NOFOLLOW) == 0) {
            a->expect_present = true;
            cp_sig_from_stat(&st, &a->expect);
        }
    }
    cleanup_error cp_error_t err = NULL;
    cleanup_landing struct cp_landing l = {.stagefd = -1};
    cleanup_archive_read struct archive *a = cp_archive_reader_new();
    r->rc = cp_landing_begin(&l, s->workfd, r->asks, r->n, NULL, max_bytes, &r->rep, &err);
    if (r->rc == 0 && archive_read_open_memory(a, t->data, t->len) != ARCHIVE_OK)
        r->rc = -1;
    if (r->rc == 0)
        r->rc = cp_landing_read(&l, a, &err);
    if (r->rc == 0)
        r->rc = cp_landing_commit(&l, &err);
    if (err != NULL)
        collect(r, err->msg);
}

const struct cp_ask *landrun_ask(const struct landrun *r, const char *path)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->asks[i].path, path) == 0)
            return &r->asks[i];
    return NULL;
}

void landrun_done(struct landrun *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->asks[i].beside);
    free(r->asks);
    r->asks = NULL;
    r->n = 0;
}
