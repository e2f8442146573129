/* The TLS contexts of terminated tunnels (tls.h), and the BIO both ends read and write
 * through.
 *
 * Why a BIO of our own rather than OpenSSL's socket BIO or a memory BIO chain: the proxy has
 * already read the ClientHello off the box's socket to check its name, so the server end must
 * first be fed those bytes and then the socket, with nothing lost or reordered; a prefix in
 * front of recv() does that in a dozen lines, where a memory BIO would need a switch of BIOs
 * at the exact record boundary. And it sends with MSG_NOSIGNAL: a box that leaves mid-write
 * must be an error return, not a SIGPIPE for the whole sidecar. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "egress/terminate/ca.h"
#include "egress/terminate/mint.h"
#include "egress/terminate/tls.h"
#include "src/base/paths.h"
#include "src/base/util.h"

static const unsigned char alpn_h1[] = "\x08http/1.1";

struct cp_egress_tls {
    SSL_CTX *server, *client;
    struct cp_egress_minter *minter;
};

/* ---- the BIO ---- */

struct fdbio {
    int fd;
    uint8_t *prefix;
    size_t off, len;
};

static int fdbio_read(BIO *b, char *buf, size_t size, size_t *got)
{
    struct fdbio *d = BIO_get_data(b);
    BIO_clear_retry_flags(b);
    if (d->off < d->len) {
        size_t n = d->len - d->off < size ? d->len - d->off : size;
        memcpy(buf, d->prefix + d->off, n);
        d->off += n;
        *got = n;
        return 1;
    }
    ssize_t n = recv(d->fd, buf, size, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        BIO_set_retry_read(b);
    if (n <= 0)
        return 0;
    *got = (size_t)n;
    return 1;
}

static int fdbio_write(BIO *b, const char *buf, size_t size, size_t *put)
{
    struct fdbio *d = BIO_get_data(b);
    BIO_clear_retry_flags(b);
    ssize_t n = send(d->fd, buf, size, MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        BIO_set_retry_write(b);
    if (n <= 0)
        return 0;
    *put = (size_t)n;
    return 1;
}

static long fdbio_ctrl(BIO *b, int cmd, long num, void *ptr)
{
    return cmd == BIO_CTRL_FLUSH ? 1 : 0;
}

static int fdbio_destroy(BIO *b)
{
    struct fdbio *d = BIO_get_data(b);
    if (d != NULL) {
        free(d->prefix);
        free(d);
    }
    BIO_set_data(b, NULL);
    return 1;
}

static BIO_METHOD *fdbio_method;
static pthread_once_t fdbio_once = PTHREAD_ONCE_INIT;

static void fdbio_init(void)
{
    BIO_METHOD *m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "conch-fd");
    if (m == NULL)
        return;
    BIO_meth_set_read_ex(m, fdbio_read);
    BIO_meth_set_write_ex(m, fdbio_write);
    BIO_meth_set_ctrl(m, fdbio_ctrl);
    BIO_meth_set_destroy(m, fdbio_destroy);
    fdbio_method = m;
}

/* A BIO over fd (not closed with it) that first yields prefix[0..len) (copied). */
static BIO *fdbio_new(int fd, const uint8_t *prefix, size_t len)
{
    pthread_once(&fdbio_once, fdbio_init);
    BIO *b = fdbio_method != NULL ? BIO_new(fdbio_method) : NULL;
    if (b == NULL)
        return NULL;
    struct fdbio *d = xcalloc(1, sizeof(*d));
    d->fd = fd;
    if (len > 0) {
        d->prefix = xmalloc(len);
        memcpy(d->prefix, prefix, len);
        d->len = len;
    }
    BIO_set_data(b, d);
    BIO_set_init(b, 1);
    return b;
}

/* ---- contexts ---- */

/* Only http/1.1 is spoken inside: a client offering it gets it; one asking only for h2 gets
 * no ALPN answer at all, which every client reads as HTTP/1.1 (a handshake failure would
 * leave curl, git, npm and pip nothing to fall back to). */
static int select_alpn(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                       const unsigned char *in, unsigned int inlen, void *arg)
{
    unsigned char *sel = NULL;
    if (SSL_select_next_proto(&sel, outlen, alpn_h1, sizeof(alpn_h1) - 1, in, inlen) !=
        OPENSSL_NPN_NEGOTIATED)
        return SSL_TLSEXT_ERR_NOACK;
    *out = sel;
    return SSL_TLSEXT_ERR_OK;
}

static SSL_CTX *ctx_common(const SSL_METHOD *method)
{
    SSL_CTX *ctx = SSL_CTX_new(method);
    if (ctx == NULL)
        return NULL;
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    /* No tickets, no cache, no 0-RTT: nothing a box could replay, nothing kept per box. */
    SSL_CTX_set_options(ctx,
                        SSL_OP_NO_TICKET | SSL_OP_NO_RENEGOTIATION | SSL_OP_IGNORE_UNEXPECTED_EOF);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_max_early_data(ctx, 0);
    return ctx;
}

static int server_ctx(struct cp_egress_tls *t, cp_error_t *err)
{
    t->server = ctx_common(TLS_server_method());
    if (t->server == NULL)
        return cp_egress_ssl_error(err, "cannot make the box-side TLS context");
    SSL_CTX_set_num_tickets(t->server, 0);
    SSL_CTX_set_alpn_select_cb(t->server, select_alpn, NULL);
    return 0;
}

/* Every certificate in PEM text, into store. */
static int add_pem(X509_STORE *store, const char *pem, const char *what, cp_error_t *err)
{
    BIO *b = BIO_new_mem_buf(pem, -1);
    int count = 0;
    for (X509 *x; b != NULL && (x = PEM_read_bio_X509(b, NULL, NULL, NULL)) != NULL; count++) {
        X509_STORE_add_cert(store, x);
        X509_free(x);
    }
    BIO_free(b);
    ERR_clear_error(); /* the end of the text reads as an error */
    if (count == 0)
        return cp_error_make(err, CP_ERR_USAGE, 0, "%s holds no PEM certificate", what);
    return 0;
}

static int add_file(X509_STORE *store, const char *path, cp_error_t *err)
{
    cleanup_free char *text = NULL;
    size_t len = 0;
    if (cp_read_file(path, 16 * 1024 * 1024, &text, &len, err) < 0)
        return cp_error_wrap(err, "--trust");
    return add_pem(store, text, path, err);
}

static int client_ctx(struct cp_egress_tls *t, const struct cp_egress_tls_options *o,
                      cp_error_t *err)
{
    t->client = ctx_common(TLS_client_method());
    if (t->client == NULL)
        return cp_egress_ssl_error(err, "cannot make the host-side TLS context");
    SSL_CTX_set_verify(t->client, SSL_VERIFY_PEER, NULL);
    if (SSL_CTX_set_default_verify_paths(t->client) != 1)
        return cp_egress_ssl_error(err, "cannot load this computer's trusted roots");
    X509_STORE *store = SSL_CTX_get_cert_store(t->client);
    for (size_t i = 0; i < o->ntrust; i++)
        if (add_file(store, o->trust_files[i], err) < 0)
            return cp_error_code(err);
    if (o->trust_pem != NULL && add_pem(store, o->trust_pem, CP_EGRESS_TRUST_ENV, err) < 0)
        return cp_error_code(err);
    return 0;
}

int cp_egress_tls_new(const struct cp_egress_tls_options *o, struct cp_egress_tls **out,
                      cp_error_t *err)
{
    struct cp_egress_tls *t = xcalloc(1, sizeof(*t));
    if (cp_egress_minter_new(o->ca_pem, &t->minter, err) < 0 || server_ctx(t, err) < 0 ||
        client_ctx(t, o, err) < 0) {
        cp_egress_tls_free(t);
        return cp_error_code(err);
    }
    *out = t;
    return 0;
}

void cp_egress_tls_free(struct cp_egress_tls *t)
{
    if (t == NULL)
        return;
    SSL_CTX_free(t->server);
    SSL_CTX_free(t->client);
    cp_egress_minter_free(t->minter);
    free(t);
}

static void cleanup_ssl(SSL **s)
{
    SSL_free(*s);
}

int cp_egress_tls_server(struct cp_egress_tls *t, const char *host, int fd, const uint8_t *prefix,
                         size_t prefix_len, SSL **out, cp_error_t *err)
{
    cleanup_x509 X509 *cert = NULL;
    bool minted = false;
    if (cp_egress_mint(t->minter, host, &cert, &minted, err) < 0)
        return cp_error_code(err);
    __attribute__((cleanup(cleanup_ssl))) SSL *ssl = SSL_new(t->server);
    BIO *b = fdbio_new(fd, prefix, prefix_len);
    if (ssl == NULL || b == NULL) {
        BIO_free(b);
        return cp_egress_ssl_error(err, "cannot start the box-side TLS");
    }
    SSL_set_bio(ssl, b, b);
    if (SSL_use_certificate(ssl, cert) != 1 ||
        SSL_use_PrivateKey(ssl, cp_egress_minter_key(t->minter)) != 1)
        return cp_egress_ssl_error(err, "cannot use the minted certificate");
    SSL_set_accept_state(ssl);
    *out = steal_pointer(&ssl);
    return 0;
}

int cp_egress_tls_client(struct cp_egress_tls *t, const char *host, int fd, SSL **out,
                         cp_error_t *err)
{
    __attribute__((cleanup(cleanup_ssl))) SSL *ssl = SSL_new(t->client);
    BIO *b = fdbio_new(fd, NULL, 0);
    if (ssl == NULL || b == NULL) {
        BIO_free(b);
        return cp_egress_ssl_error(err, "cannot start the host-side TLS");
    }
    SSL_set_bio(ssl, b, b);
    if (SSL_set_tlsext_host_name(ssl, host) != 1 || SSL_set1_host(ssl, host) != 1 ||
        SSL_set_alpn_protos(ssl, alpn_h1, sizeof(alpn_h1) - 1) != 0)
        return cp_egress_ssl_error(err, "cannot name the host for TLS");
    SSL_set_connect_state(ssl);
    *out = steal_pointer(&ssl);
    return 0;
}
