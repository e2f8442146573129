/* Making and reading the egress CA (ca.h). OpenSSL 3's own calls only; every handle has a
 * cleanup, and a PEM that holds the key is wiped before it is freed. */
#include "config.h"

#include <string.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include "egress/terminate/ca.h"
#include "src/base/util.h"

#define CA_YEARS 10

void cp_cleanup_x509(X509 **x)
{
    X509_free(*x);
}

void cp_cleanup_pkey(EVP_PKEY **k)
{
    EVP_PKEY_free(*k);
}

static void cleanup_bio(BIO **b)
{
    BIO_free(*b);
}

int cp_egress_ssl_error(cp_error_t *err, const char *doing)
{
    char text[256] = "unknown OpenSSL error";
    unsigned long e = ERR_peek_last_error();
    if (e != 0)
        ERR_error_string_n(e, text, sizeof(text));
    ERR_clear_error();
    return cp_error_make(err, CP_ERR_FAILED, 0, "%s: %s", doing, text);
}

int cp_egress_x509_ext(X509 *cert, X509 *issuer, int nid, const char *value, cp_error_t *err)
{
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, NULL, NULL, 0);
    X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    if (ext == NULL)
        return cp_egress_ssl_error(err, "cannot make a certificate extension");
    int ok = X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
    return ok ? 0 : cp_egress_ssl_error(err, "cannot add a certificate extension");
}

int cp_egress_x509_serial(X509 *cert, cp_error_t *err)
{
    unsigned char bytes[16];
    if (RAND_bytes(bytes, sizeof(bytes)) != 1)
        return cp_egress_ssl_error(err, "cannot draw a serial number");
    bytes[0] &= 0x7f; /* positive, as RFC 5280 wants */
    bytes[0] |= 0x01; /* and never with a leading zero byte */
    BIGNUM *bn = BN_bin2bn(bytes, sizeof(bytes), NULL);
    int ok = bn != NULL && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert)) != NULL;
    BN_free(bn);
    return ok ? 0 : cp_egress_ssl_error(err, "cannot set a serial number");
}

static int ca_name(X509 *cert, cp_error_t *err)
{
    unsigned char r[8];
    char cn[64];
    if (RAND_bytes(r, sizeof(r)) != 1)
        return cp_egress_ssl_error(err, "cannot draw the CA's name");
    int n = snprintf(cn, sizeof(cn), "conch-place egress CA ");
    for (size_t i = 0; i < sizeof(r); i++)
        n += snprintf(cn + n, sizeof(cn) - (size_t)n, "%02x", r[i]);
    X509_NAME *name = X509_get_subject_name(cert);
    if (!X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (unsigned char *)cn, -1, -1, 0) ||
        !X509_set_issuer_name(cert, name))
        return cp_egress_ssl_error(err, "cannot name the CA");
    return 0;
}

static int ca_fields(X509 *cert, EVP_PKEY *key, cp_error_t *err)
{
    if (!X509_set_version(cert, 2))
        return cp_egress_ssl_error(err, "cannot make the CA");
    if (cp_egress_x509_serial(cert, err) < 0 || ca_name(cert, err) < 0)
        return cp_error_code(err);
    if (X509_gmtime_adj(X509_getm_notBefore(cert), -3600) == NULL ||
        X509_gmtime_adj(X509_getm_notAfter(cert), (long)CA_YEARS * 365 * 86400) == NULL ||
        !X509_set_pubkey(cert, key))
        return cp_egress_ssl_error(err, "cannot make the CA");
    if (cp_egress_x509_ext(cert, cert, NID_basic_constraints, "critical,CA:TRUE,pathlen:0", err) <
            0 ||
        cp_egress_x509_ext(cert, cert, NID_key_usage, "critical,keyCertSign,cRLSign", err) < 0 ||
        cp_egress_x509_ext(cert, cert, NID_subject_key_identifier, "hash", err) < 0 ||
        cp_egress_x509_ext(cert, cert, NID_authority_key_identifier, "keyid:always", err) < 0)
        return cp_error_code(err);
    if (X509_sign(cert, key, EVP_sha256()) <= 0)
        return cp_egress_ssl_error(err, "cannot sign the CA");
    return 0;
}

/* PEM text of whatever write() puts into a memory BIO; the caller's. */
static int bio_text(BIO *b, char **out, cp_error_t *err)
{
    char *data = NULL;
    long n = BIO_get_mem_data(b, &data);
    if (n <= 0)
        return cp_egress_ssl_error(err, "cannot write PEM");
    *out = xmalloc((size_t)n + 1);
    memcpy(*out, data, (size_t)n);
    (*out)[n] = '\0';
    return 0;
}

int cp_egress_ca_generate(char **pem_out, cp_error_t *err)
{
    cleanup_pkey EVP_PKEY *key = EVP_EC_gen("P-256");
    cleanup_x509 X509 *cert = X509_new();
    if (key == NULL || cert == NULL)
        return cp_egress_ssl_error(err, "cannot make the CA's key");
    if (ca_fields(cert, key, err) < 0)
        return cp_error_code(err);
    __attribute__((cleanup(cleanup_bio))) BIO *b = BIO_new(BIO_s_secmem());
    if (b == NULL || !PEM_write_bio_X509(b, cert) ||
        !PEM_write_bio_PrivateKey(b, key, NULL, NULL, 0, NULL, NULL))
        return cp_egress_ssl_error(err, "cannot write the CA");
    return bio_text(b, pem_out, err);
}

int cp_egress_ca_load(const char *pem, X509 **cert_out, EVP_PKEY **key_out, cp_error_t *err)
{
    __attribute__((cleanup(cleanup_bio))) BIO *b = BIO_new_mem_buf(pem, -1);
    if (b == NULL)
        return cp_egress_ssl_error(err, "cannot read the egress CA");
    cleanup_x509 X509 *cert = PEM_read_bio_X509(b, NULL, NULL, NULL);
    if (cert == NULL)
        return cp_egress_ssl_error(err, "the egress CA holds no certificate");
    cleanup_pkey EVP_PKEY *key = PEM_read_bio_PrivateKey(b, NULL, NULL, NULL);
    if (key == NULL)
        return cp_egress_ssl_error(err, "the egress CA holds no private key after its "
                                        "certificate");
    if (X509_check_private_key(cert, key) != 1)
        return cp_egress_ssl_error(err, "the egress CA's key does not match its certificate");
    *cert_out = steal_pointer(&cert);
    *key_out = steal_pointer(&key);
    return 0;
}

int cp_egress_ca_cert_pem(const char *pem, char **cert_out, cp_error_t *err)
{
    cleanup_x509 X509 *cert = NULL;
    cleanup_pkey EVP_PKEY *key = NULL;
    if (cp_egress_ca_load(pem, &cert, &key, err) < 0)
        return cp_error_code(err);
    __attribute__((cleanup(cleanup_bio))) BIO *b = BIO_new(BIO_s_mem());
    if (b == NULL || !PEM_write_bio_X509(b, cert))
        return cp_egress_ssl_error(err, "cannot write the CA's certificate");
    return bio_text(b, cert_out, err);
}

int cp_egress_ca_fingerprint(const char *pem, char hex_out[65], cp_error_t *err)
{
    __attribute__((cleanup(cleanup_bio))) BIO *b = BIO_new_mem_buf(pem, -1);
    cleanup_x509 X509 *cert = b != NULL ? PEM_read_bio_X509(b, NULL, NULL, NULL) : NULL;
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (cert == NULL)
        return cp_egress_ssl_error(err, "the egress CA holds no certificate");
    if (!X509_digest(cert, EVP_sha256(), md, &n) || n != 32)
        return cp_egress_ssl_error(err, "cannot hash the CA's certificate");
    for (unsigned i = 0; i < n; i++)
        snprintf(hex_out + 2 * i, 3, "%02x", md[i]);
    return 0;
}
