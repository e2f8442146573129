/* The runner's URL in a private file or on standard input instead of its argv. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "relay/relay.h"
#include "relay/tickets.h"
#include "src/base/digest.h"
#include "src/base/util.h"

#define PREFIX "url-"

/* Removes the URL files older than any ticket can live: their tickets are spent. */
static void sweep(const char *dir)
{
    cleanup_dir DIR *d = opendir(dir);
    time_t now = time(NULL);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        struct stat st;
        if (strncmp(e->d_name, PREFIX, strlen(PREFIX)) == 0 &&
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            now - st.st_mtime > CP_TICKET_TTL_MAX)
            unlinkat(dirfd(d), e->d_name, 0);
    }
}

int cp_relay_url_file_write(const char *url, char **out, cp_error_t *err)
{
    cleanup_free char *dir = NULL;
    if (cp_relay_dir(&dir, err) < 0)
        return cp_error_code(err);
    sweep(dir);
    uint8_t raw[12];
    char name[2 * sizeof(raw) + 1];
    if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
        return cp_error_make(err, CP_ERR_FAILED, errno, "no random bytes for a file name");
    cp_hex(raw, sizeof(raw), name);
    cleanup_free char *path = xasprintf("%s/" PREFIX "%s", dir, name);
    cleanup_close int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 || cp_write_all(fd, url, strlen(url)) < 0 || cp_write_all(fd, "\n", 1) < 0) {
        int e = errno;
        unlink(path);
        return cp_error_make(err, CP_ERR_FAILED, e, "cannot write the URL to %s", path);
    }
    *out = steal_pointer(&path);
    return 0;
}

int cp_relay_url_read(int fd, char **out, cp_error_t *err)
{
    char buf[CP_RELAY_URL_MAX + 2];
    size_t len = 0;
    while (len < sizeof(buf) - 1) {
        ssize_t n = read(fd, buf + len, sizeof(buf) - 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return cp_error_make(err, CP_ERR_FAILED, errno, "cannot read the relay URL");
        if (n == 0 || memchr(buf + len, '\n', (size_t)n) != NULL) {
            len += (size_t)n;
            break;
        }
        len += (size_t)n;
    }
    buf[len] = '\0';
    buf[strcspn(buf, "\r\n")] = '\0';
    int r = strlen(buf) > CP_RELAY_URL_MAX || buf[0] == '\0'
                ? cp_error_make(err, CP_ERR_USAGE, 0, "no relay URL (one line) was read")
                : 0;
    if (r == 0)
        *out = xstrdup(buf);
    explicit_bzero(buf, sizeof(buf));
    return r;
}

int cp_relay_url_file_take(const char *path, char **out, cp_error_t *err)
{
    cleanup_close int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0)
        return cp_error_make(err, CP_ERR_USAGE, errno, "cannot read the relay URL file %s", path);
    if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
        cp_error_make(err, CP_ERR_UNSAFE, 0, "%s is not a file only you can read", path);
        cp_error_hint(err, "Make it with 'conch-place relay ticket --file'.");
        return CP_ERR_UNSAFE;
    }
    if (cp_relay_url_read(fd, out, err) < 0)
        return cp_error_wrap(err, "in %s", path);
    unlink(path); /* the ticket is good once: so is its file */
    return 0;
}
