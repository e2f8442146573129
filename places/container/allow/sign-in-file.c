/* A file that holds secrets, read into a reader's records: its exact size read into one buffer
 * (so no buffer grown on the way keeps a copy), wiped after. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "places/container/allow/hostconf.h"
#include "places/container/allow/sign-ins-sources.h"
#include "src/base/util.h"

/* The file's text in *out (NULL when it does not exist); wiped by the caller. Its exact size
 * is read, so no buffer grown on the way keeps a copy. */
static int read_secret_file(const char *path, const char *shown, char **out, size_t *len_out,
                            cp_error_t *err)
{
    *out = NULL;
    cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0 && errno == ENOENT)
        return 0;
    int e = fd < 0 ? errno : fstat(fd, &st) < 0 ? errno : !S_ISREG(st.st_mode) ? EINVAL : 0;
    if (e == 0 && st.st_size > CP_HOSTCONF_MAX)
        e = EFBIG;
    if (e != 0)
        return cp_error_make(err, CP_ERR_FAILED, e,
                             "%s cannot be read (%s), so conch-place cannot tell which sign-ins "
                             "it gives; make it a readable file, or remove it",
                             shown, strerror(e));
    size_t want = (size_t)st.st_size, got = 0;
    char *text = xmalloc(want + 1);
    while (got < want) {
        ssize_t n = read(fd, text + got, want - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    text[got] = '\0';
    *out = text;
    *len_out = got;
    return 0;
}

void cp_sign_in_free_text(char *text, size_t len)
{
    if (text != NULL)
        explicit_bzero(text, len);
    free(text);
}

int cp_sign_in_records(const char *path, const char *shown, cp_sign_in_reader_fn reader,
                       char ***out, cp_error_t *err)
{
    char *text = NULL;
    size_t len = 0;
    *out = NULL;
    if (read_secret_file(path, shown, &text, &len, err) < 0)
        return cp_error_code(err);
    *out = text != NULL ? reader(text, len) : xcalloc(1, sizeof(char *));
    cp_sign_in_free_text(text, len);
    return 0;
}

bool cp_sign_in_fields(char *rec, char **f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        f[i] = rec;
        char *tab = strchr(rec, '\t');
        if ((tab == NULL) != (i == n - 1))
            return false;
        if (tab != NULL) {
            *tab = '\0';
            rec = tab + 1;
        }
    }
    return true;
}
