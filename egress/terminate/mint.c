/* Minting and keeping per-host certificates (mint.h). The cache is a fixed table searched
 * in full: at its bound of 4,096 names that is microseconds, far below a handshake, and it
 * needs no hashing of names a box chose. When full, the entry least recently used goes. */
#include "config.h"

#include <pthread.h>
#include <string.h>

#include <openssl/x509v3.h>

#include "egress/terminate/ca.h"
#include "egress/terminate/mint.h"
#include "src/base/util.h"

struct entry {
    char *host;
    X509 *cert;
    time_t not_after;
    unsigned long long used; /* the cache's clock when last handed out */
};

struct cp_egress_minter {
    X509 *ca;
    EVP_PKEY *ca_key;
    EVP_PKEY *key;
    pthread_mutex_t lock;
    struct entry *entries; /* CP_EGRESS_MINT_CACHE_MAX */
    size_t n;
    unsigned long long clock;
};

int cp_egress_minter_new(const char *ca_pem, struct cp_egress_minter **out, cp_error_t *err)
{
    cleanup_x509 X509 *ca = NULL;
    cleanup_pkey EVP_PKEY *ca_key = NULL;
    if (cp_egress_ca_load(ca_pem, &ca, &ca_key, err) < 0)
        return cp_error_code(err);
    cleanup_pkey EVP_PKEY *key = EVP_EC_gen("P-256");
    if (key == NULL)
        return cp_egress_ssl_error(err, "cannot make the key for minted certificates");
    struct cp_egress_minter *m = xcalloc(1, sizeof(*m));
    m->ca = steal_pointer(&ca);
    m->ca_key = steal_pointer(&ca_key);
    m->key = steal_pointer(&key);
    m->entries = xcalloc(CP_EGRESS_MINT_CACHE_MAX, sizeof(*m->entries));
    pthread_mutex_init(&m->lock, NULL);
    *out = m;
    return 0;
}

void cp_egress_minter_free(struct cp_egress_minter *m)
{
    if (m == NULL)
        return;
    for (size_t i = 0; i < m->n; i++) {
        free(m->entries[i].host);
        X509_free(m->entries[i].cert);
    }
    free(m->entries);
    X509_free(m->ca);
    EVP_PKEY_free(m->ca_key);
    EVP_PKEY_free(m->key);
    pthread_mutex_destroy(&m->lock);
    free(m);
}

EVP_PKEY *cp_egress_minter_key(const struct cp_egress_minter *m)
{
    return m->key;
}

X509 *cp_egress_minter_ca(const struct cp_egress_minter *m)
{
    return m->ca;
}

/* The leaf's names: the host in the SAN (what clients check) and as CN when it fits (64). */
static int leaf_names(X509 *cert, X509 *ca, const char *host, cp_error_t *err)
{
    X509_NAME *name = X509_get_subject_name(cert);
    if (strlen(host) <= 64 && !X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                                          (const unsigned char *)host, -1, -1, 0))
        return cp_egress_ssl_error(err, "cannot name a minted certificate");
    if (!X509_set_issuer_name(cert, X509_get_subject_name(ca)))
        return cp_egress_ssl_error(err, "cannot name a minted certificate's issuer");
    cleanup_free char *san = xasprintf("DNS:%s", host);
    return cp_egress_x509_ext(cert, ca, NID_subject_alt_name, san, err);
}

static int leaf_fields(struct cp_egress_minter *m, X509 *cert, const char *host, cp_error_t *err)
{
    if (!X509_set_version(cert, 2) || X509_gmtime_adj(X509_getm_notBefore(cert), -3600) == NULL ||
        X509_gmtime_adj(X509_getm_notAfter(cert), (long)CP_EGRESS_MINT_DAYS * 86400) == NULL ||
        !X509_set_pubkey(cert, m->key))
        return cp_egress_ssl_error(err, "cannot mint a certificate");
    if (cp_egress_x509_serial(cert, err) < 0 || leaf_names(cert, m->ca, host, err) < 0 ||
        cp_egress_x509_ext(cert, m->ca, NID_basic_constraints, "critical,CA:FALSE", err) < 0 ||
        cp_egress_x509_ext(cert, m->ca, NID_key_usage, "critical,digitalSignature", err) < 0 ||
        cp_egress_x509_ext(cert, m->ca, NID_ext_key_usage, "serverAuth", err) < 0 ||
        cp_egress_x509_ext(cert, m->ca, NID_subject_key_identifier, "hash", err) < 0 ||
        cp_egress_x509_ext(cert, m->ca, NID_authority_key_identifier, "keyid:always", err) < 0)
        return cp_error_code(err);
    if (X509_sign(cert, m->ca_key, EVP_sha256()) <= 0)
        return cp_egress_ssl_error(err, "cannot sign a minted certificate");
    return 0;
}

static int mint_new(struct cp_egress_minter *m, const char *host, X509 **out, cp_error_t *err)
{
    cleanup_x509 X509 *cert = X509_new();
    if (cert == NULL)
        return cp_egress_ssl_error(err, "cannot mint a certificate");
    if (leaf_fields(m, cert, host, err) < 0)
        return cp_error_wrap(err, "for %s", host);
    *out = steal_pointer(&cert);
    return 0;
}

static time_t not_after(X509 *cert)
{
    struct tm tm;
    if (ASN1_TIME_to_tm(X509_get0_notAfter(cert), &tm) != 1)
        return 0;
    return timegm(&tm);
}

/* The slot for host: its own, a free one, or the least recently used. Under the lock. */
static struct entry *slot_for(struct cp_egress_minter *m, const char *host, bool *found)
{
    struct entry *oldest = NULL;
    for (size_t i = 0; i < m->n; i++) {
        if (strcmp(m->entries[i].host, host) == 0) {
            *found = true;
            return &m->entries[i];
        }
        if (oldest == NULL || m->entries[i].used < oldest->used)
            oldest = &m->entries[i];
    }
    *found = false;
    if (m->n < CP_EGRESS_MINT_CACHE_MAX)
        return &m->entries[m->n++];
    free(oldest->host);
    X509_free(oldest->cert);
    memset(oldest, 0, sizeof(*oldest));
    return oldest;
}

int cp_egress_mint(struct cp_egress_minter *m, const char *host, X509 **cert_out, bool *minted,
                   cp_error_t *err)
{
    pthread_mutex_lock(&m->lock);
    bool found = false;
    struct entry *e = slot_for(m, host, &found);
    int r = 0;
    *minted = !found || e->not_after - time(NULL) < CP_EGRESS_MINT_RENEW_S;
    if (*minted) {
        /* Signing under the lock: a few hundred microseconds, once per host a week. */
        X509 *cert = NULL;
        r = mint_new(m, host, &cert, err);
        if (r == 0) {
            X509_free(e->cert);
            e->cert = cert;
            e->not_after = not_after(cert);
            if (e->host == NULL)
                e->host = xstrdup(host);
        } else if (e->host == NULL) {
            /* An empty slot must not stay in the table: the last entry takes its place. */
            *e = m->entries[--m->n];
            memset(&m->entries[m->n], 0, sizeof(*e));
        }
    }
    if (r == 0) {
        e->used = ++m->clock;
        X509_up_ref(e->cert);
        *cert_out = e->cert;
    }
    pthread_mutex_unlock(&m->lock);
    return r;
}
