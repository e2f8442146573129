/* The sidecar's CA on disk, the box's bundle, egress.ca_file (see egress-trust.h). */
#include "config.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "places/container/box/box.h"
#include "places/container/seal/egress-trust.h"
#include "egress/egress.h"
#include "src/base/buf.h"
#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/paths.h"
#include "src/base/strvec.h"
#include "src/base/util.h"

#define CA_MAX    (64 * 1024)
#define ROOTS_MAX (4 * 1024 * 1024)
#define TRUST_MAX (4 * 1024 * 1024)
#define LINK_HOPS 4
#define PEM_CERT  "-----BEGIN CERTIFICATE-----"
#define PEM_END   "-----END CERTIFICATE-----"
/* Where images keep their roots, the bundle's own path first. Each that is a file in the image
 * is covered by the bundle; links to one of them are covered with it. */
static const char *const image_bundles[] = {
    CP_BOX_CA_BUNDLE,                   /* Debian, Ubuntu, Alpine, Arch */
    "/etc/pki/tls/certs/ca-bundle.crt", /* Fedora, RHEL */
    "/etc/ssl/ca-bundle.pem",           /* openSUSE */
    "/etc/ssl/cert.pem",                /* Alpine's and others' link, sometimes a file */
};

static int egress_dir(char **out, cp_error_t *err)
{
    cleanup_free char *home = NULL;
    if (cp_conch_home(1, &home, err) < 0)
        return cp_error_code(err);
    cleanup_free char *dir = xasprintf("%s/egress", home);
    if (mkdir(dir, 0700) < 0 && errno != EEXIST)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot make %s", dir);
    *out = steal_pointer(&dir);
    return 0;
}

/* ---- the CA ---- */

static int ca_check_file(const char *path, int fd, cp_error_t *err)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot read %s", path);
    if (S_ISREG(st.st_mode) && st.st_uid == getuid() && (st.st_mode & 077) == 0)
        return 0;
    cp_error_make(err, CP_ERR_UNSAFE, 0,
                  "the egress sidecar's CA key %s is not yours alone (owner %u, mode %03o): "
                  "another user may know it and could read what sealed boxes send",
                  path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 0777));
    cp_error_hint(err, "Remove it ('rm %s'); the next sealed run makes a new CA.", path);
    return cp_error_code(err);
}

/* 0 with *pem_out, or CP_ERR_NOT_FOUND when there is none yet. */
static int ca_read(const char *path, char **pem_out, cp_error_t *err)
{
    cleanup_close int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT)
        return cp_error_make(err, CP_ERR_NOT_FOUND, 0, "no CA yet");
    if (fd < 0)
        return cp_error_make(err, CP_ERR_FAILED, errno, "cannot open %s", path);
    cleanup_free char *pem = NULL;
    if (ca_check_file(path, fd, err) < 0 || cp_read_fd(path, fd, CA_MAX, &pem, NULL, err) < 0)
        return cp_error_code(err);
    cleanup_free char *cert = NULL;
    if (cp_egress_ca_cert_pem(pem, &cert, err) < 0) {
        cp_free_secret(steal_pointer(&pem));
        cp_error_wrap(err, "%s", path);
        cp_error_hint(err, "Remove it ('rm %s'); the next sealed run makes a new CA.", path);
        return cp_error_code(err);
    }
    *pem_out = steal_pointer(&pem);
    return 0;
}

/* Made beside its place and linked in, so two first runs at once keep one CA between them. */
static int ca_make(const char *path, cp_error_t *err)
{
    __attribute__((cleanup(cp_cleanup_freep))) char *pem = NULL;
    if (cp_egress_ca_generate(&pem, err) < 0)
        return cp_error_wrap(err, "making the egress sidecar's CA");
    cleanup_free char *tmp = xasprintf("%s.new.%ld", path, (long)getpid());
    cleanup_close int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    int r = fd < 0 ? -1 : cp_write_all(fd, pem, strlen(pem));
    if (r == 0)
        r = fsync(fd);
    explicit_bzero(pem, strlen(pem));
    if (r == 0 && link(tmp, path) < 0 && errno != EEXIST)
        r = -1;
    int e = errno;
    if (fd >= 0)
        unlink(tmp);
    if (fd < 0 || r < 0)
        return cp_error_make(err, CP_ERR_FAILED, e, "cannot write %s", path);
    return 0;
}

int cp_egress_ca_from_home(char **pem_out, cp_error_t *err)
{
    cleanup_free char *dir = NULL;
    if (egress_dir(&dir, err) < 0)
        return cp_error_code(err);
    cleanup_free char *path = xasprintf("%s/ca.pem", dir);
    int r = ca_read(path, pem_out, err);
    if (r != CP_ERR_NOT_FOUND)
        return r;
    cp_error_free(err);
    if (ca_make(path, err) < 0)
        return cp_error_code(err);
    return ca_read(path, pem_out, err);
}

/* ---- the box's bundle ---- */

/* The one entry of an archive GET: a regular file's bytes, or a link's target. */
struct entry {
    char *data;
    size_t len;
    char *link; /* NULL unless a symbolic link */
};

static void entry_dispose(struct entry *e)
{
    free(e->data);
    free(e->link);
    memset(e, 0, sizeof(*e));
}

static int tar_entry(const char *tar, size_t len, struct entry *out, cp_error_t *err)
{
    struct archive *a = archive_read_new();
    archive_read_support_format_tar(a);
    struct archive_entry *ae = NULL;
    int r = -1;
    if (archive_read_open_memory(a, tar, len) == ARCHIVE_OK &&
        archive_read_next_header(a, &ae) == ARCHIVE_OK) {
        if (archive_entry_filetype(ae) == AE_IFLNK && archive_entry_symlink(ae) != NULL) {
            out->link = xstrdup(archive_entry_symlink(ae));
            r = 0;
        } else if (archive_entry_filetype(ae) == AE_IFREG && archive_entry_size(ae) <= ROOTS_MAX) {
            size_t n = (size_t)archive_entry_size(ae);
            out->data = xmalloc(n + 1);
            r = archive_read_data(a, out->data, n) == (la_ssize_t)n ? 0 : -1;
            out->data[n] = '\0';
            out->len = n;
        } else {
            r = 1; /* a folder or a device: no roots there */
        }
    }
    archive_read_free(a);
    if (r < 0)
        return cp_error_make(err, CP_ERR_FAILED, 0, "the engine sent an archive that is not a tar");
    return r;
}

/* 1 with *out filled, 0 when the image has nothing at path. */
static int image_entry(struct cp_engine *e, const char *id, const char *path, struct entry *out,
                       cp_error_t *err)
{
    cleanup_free char *esc = cp_engine_escape(path);
    cleanup_free char *call = xasprintf("/containers/%s/archive?path=%s", id, esc);
    cleanup_free char *tar = NULL;
    size_t len = 0;
    long status = 0;
    if (cp_engine_get_bytes(e, call, &status, &tar, &len, err) < 0)
        return cp_error_code(err);
    if (status == 404)
        return 0;
    if (status != 200)
        return cp_error_make(err, CP_ERR_FAILED, 0, "the engine answered GET %s with HTTP %ld",
                             call, status);
    int r = tar_entry(tar, len, out, err);
    return r < 0 ? r : r == 0;
}

/* The roots at path, through at most a few links; NULL when none. */
static int image_roots(struct cp_engine *e, const char *id, const char *path, bool *is_file,
                       char **roots_out, cp_error_t *err)
{
    cleanup_free char *at = xstrdup(path);
    *is_file = false;
    for (int hop = 0; hop < LINK_HOPS; hop++) {
        __attribute__((cleanup(entry_dispose))) struct entry en = {0};
        int r = image_entry(e, id, at, &en, err);
        if (r <= 0)
            return r;
        if (en.link == NULL) {
            *is_file = hop == 0;
            *roots_out = steal_pointer(&en.data);
            return 0;
        }
        char *next = en.link[0] == '/'
                         ? xstrdup(en.link)
                         : xasprintf("%.*s/%s", (int)(strrchr(at, '/') - at), at, en.link);
        free(at);
        at = next;
    }
    return 0;
}

/* A box made from the image and never started, for its files. */
static int scratch_box(struct cp_engine *e, const char *image_id, char **id_out, cp_error_t *err)
{
    cleanup_json json_object *spec = json_object_new_object();
    json_object *cmd = json_object_new_array(), *labels = json_object_new_object();
    json_object_array_add(cmd, json_object_new_string("true"));
    json_object_object_add(spec, "Image", json_object_new_string(image_id));
    json_object_object_add(spec, "Cmd", cmd);
    cleanup_strv char **owner = cp_box_owner_labels();
    for (size_t i = 0; owner != NULL && owner[i] != NULL; i++) {
        char *eq = strchr(owner[i], '=');
        if (eq != NULL) {
            *eq = '\0';
            json_object_object_add(labels, owner[i], json_object_new_string(eq + 1));
        }
    }
    json_object_object_add(spec, "Labels", labels);
    cleanup_free char *name = cp_box_name();
    return cp_box_create(e, spec, name, id_out, err);
}

struct found {
    char *roots; /* the first bundle found */
    char **paths;
    size_t npaths;
};

static int read_image_bundles(struct cp_engine *e, const char *image_id, struct found *f,
                              cp_error_t *err)
{
    cleanup_free char *id = NULL;
    if (scratch_box(e, image_id, &id, err) < 0)
        return cp_error_wrap(err, "reading the image's CA bundle");
    int r = 0;
    f->paths = xcalloc(ARRAY_SIZE(image_bundles) + 1, sizeof(char *));
    f->paths[f->npaths++] = xstrdup(CP_BOX_CA_BUNDLE);
    for (size_t i = 0; i < ARRAY_SIZE(image_bundles) && r == 0; i++) {
        cleanup_free char *roots = NULL;
        bool is_file = false;
        r = image_roots(e, id, image_bundles[i], &is_file, &roots, err);
        if (r == 0 && is_file && i > 0)
            f->paths[f->npaths++] = xstrdup(image_bundles[i]);
        if (r == 0 && roots != NULL && f->roots == NULL)
            f->roots = steal_pointer(&roots);
    }
    cleanup_error cp_error_t rm = NULL;
    (void)cp_box_remove(e, id, &rm);
    return r < 0 ? cp_error_wrap(err, "reading the image's CA bundle") : 0;
}

static char *bundle_text(const char *roots, const char *ca_cert)
{
    size_t n = roots != NULL ? strlen(roots) : 0;
    return xasprintf("%s%s# conch-place's egress sidecar: sealed boxes reach HTTPS through it\n%s",
                     n > 0 ? roots : "", n > 0 && roots[n - 1] != '\n' ? "\n" : "", ca_cert);
}

/* The files are named by the image and the CA: a box never gets another image's roots. */
static int bundle_names(const char *image_id, const char *ca_pem, char **pem, char **list,
                        cp_error_t *err)
{
    char fp[65];
    cleanup_free char *dir = NULL;
    if (cp_egress_ca_fingerprint(ca_pem, fp, err) < 0 || egress_dir(&dir, err) < 0)
        return cp_error_code(err);
    const char *hex = strncmp(image_id, "sha256:", 7) == 0 ? image_id + 7 : image_id;
    if (strspn(hex, "0123456789abcdef") < 16)
        return cp_error_make(err, CP_ERR_FAILED, 0, "the image id %s is not a digest", image_id);
    *pem = xasprintf("%s/bundle-%.16s-%.16s.pem", dir, hex, fp);
    *list = xasprintf("%s/bundle-%.16s-%.16s.paths", dir, hex, fp);
    return 0;
}

static char **split_lines(char *text)
{
    struct cp_strvec v = {0};
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
        cp_strvec_push(&v, l);
    return cp_strvec_steal(&v);
}

static int bundle_cached(const char *pem, const char *list, char ***paths_out)
{
    cleanup_free char *text = NULL;
    cleanup_error cp_error_t err = NULL;
    if (access(pem, R_OK) != 0 || cp_read_file(list, 64 * 1024, &text, NULL, &err) < 0)
        return 0;
    *paths_out = split_lines(text);
    return (*paths_out)[0] != NULL && strcmp((*paths_out)[0], CP_BOX_CA_BUNDLE) == 0;
}

static int bundle_write(const char *pem, const char *list, const struct found *f,
                        const char *ca_pem, cp_error_t *err)
{
    cleanup_free char *cert = NULL;
    if (cp_egress_ca_cert_pem(ca_pem, &cert, err) < 0)
        return cp_error_code(err);
    cleanup_free char *text = bundle_text(f->roots, cert);
    cleanup_buf struct cp_buf paths;
    cp_buf_init(&paths, 64 * 1024);
    for (size_t i = 0; i < f->npaths; i++)
        if (cp_buf_append(&paths, f->paths[i], strlen(f->paths[i])) < 0 ||
            cp_buf_append(&paths, "\n", 1) < 0)
            return cp_error_make(err, CP_ERR_TOO_BIG, 0, "too many bundle paths");
    /* The list first: a bundle file is only ever read beside a whole list. */
    if (cp_write_file_atomic(list, paths.data, paths.len, 0644, err) < 0 ||
        cp_write_file_atomic(pem, text, strlen(text), 0644, err) < 0)
        return cp_error_code(err);
    return 0;
}

int cp_egress_box_bundle(struct cp_engine *e, const char *image_id, const char *ca_pem,
                         char **file_out, char ***paths_out, cp_error_t *err)
{
    cleanup_free char *pem = NULL, *list = NULL;
    if (bundle_names(image_id, ca_pem, &pem, &list, err) < 0)
        return cp_error_code(err);
    if (bundle_cached(pem, list, paths_out)) {
        *file_out = steal_pointer(&pem);
        return 0;
    }
    cp_strv_free(*paths_out);
    *paths_out = NULL;
    struct found f = {0};
    int r = read_image_bundles(e, image_id, &f, err);
    if (r == 0)
        r = bundle_write(pem, list, &f, ca_pem, err);
    free(f.roots);
    if (r < 0) {
        cp_strv_free(f.paths);
        return r;
    }
    cp_debug("the box's CA bundle %s: %s the image's roots", pem,
             f.roots != NULL ? "with" : "without");
    *paths_out = f.paths;
    *file_out = steal_pointer(&pem);
    return 0;
}

/* ---- egress.ca_file ---- */

/* The certificates of text alone, each block whole: a bundle that also holds a private key (a
 * cert-and-key file named by mistake) gives the sidecar's environment none of it. NULL when
 * there is no whole certificate. */
static char *certificates_only(const char *text)
{
    cleanup_buf struct cp_buf b;
    cp_buf_init(&b, TRUST_MAX + 1);
    for (const char *at = strstr(text, PEM_CERT); at != NULL; at = strstr(at, PEM_CERT)) {
        const char *end = strstr(at, PEM_END);
        if (end == NULL)
            break;
        end += strlen(PEM_END);
        const char *next = strstr(at + strlen(PEM_CERT), PEM_CERT);
        if (next == NULL || next > end) {
            (void)cp_buf_append(&b, at, (size_t)(end - at));
            (void)cp_buf_append(&b, "\n", 1);
        }
        at = end;
    }
    return b.len > 0 ? steal_pointer(&b.data) : NULL;
}

int cp_egress_extra_trust(const struct cp_config *cfg, char **out, cp_error_t *err)
{
    const char *path = cfg != NULL ? cp_config_egress_ca_file(cfg) : NULL;
    *out = NULL;
    if (path == NULL)
        return 0;
    cleanup_free char *text = NULL;
    cleanup_free char *certs = NULL;
    if (cp_read_file(path, TRUST_MAX, &text, NULL, err) < 0 ||
        (certs = certificates_only(text)) == NULL) {
        if (*err == NULL)
            cp_error_make(err, CP_ERR_USAGE, 0, "%s holds no PEM certificate", path);
        cp_error_wrap(err, "egress.ca_file");
        cp_error_hint(err,
                      "Point it at a PEM bundle ('conch-place config set egress.ca_file FILE'), "
                      "or unset it ('conch-place config unset egress.ca_file').");
        return cp_error_code(err);
    }
    explicit_bzero(text, strlen(text));
    *out = steal_pointer(&certs);
    return 0;
}
