#include "CFerryTLS.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <openssl/sha.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

struct ferry_tls_hook {
    atomic_int references;
    void *owner;
    char *host;
    int flags;
};

static ferry_tls_trust_callback trust_callback;
static ferry_tls_client_certificate_callback client_certificate_callback;
static ferry_tls_release_callback release_callback;

void ferry_tls_set_callbacks(ferry_tls_trust_callback trust, ferry_tls_client_certificate_callback clientCertificate,
                             ferry_tls_release_callback release) {
    trust_callback = trust;
    client_certificate_callback = clientCertificate;
    release_callback = release;
}

ferry_tls_hook *ferry_tls_hook_create(void *owner, const char *host, int flags) {
    ferry_tls_hook *hook = calloc(1, sizeof(ferry_tls_hook));
    if (hook == NULL) return NULL;
    hook->host = strdup(host);
    if (hook->host == NULL) {
        free(hook);
        return NULL;
    }
    atomic_init(&hook->references, 1);
    hook->owner = owner;
    hook->flags = flags;
    return hook;
}

static void hook_retain(ferry_tls_hook *hook) {
    atomic_fetch_add(&hook->references, 1);
}

void ferry_tls_hook_release(ferry_tls_hook *hook) {
    if (atomic_fetch_sub(&hook->references, 1) != 1) return;
    release_callback(hook->owner);
    free(hook->host);
    free(hook);
}

// The SSL_CTX ex-data slot that holds a connection's reference to its hook; OpenSSL drops it (through
// free_hook) when libcurl frees the SSL_CTX, which may be long after the transfer that opened it.
static int hook_index = -1;
static pthread_once_t hook_index_once = PTHREAD_ONCE_INIT;

static void free_hook(void *parent, void *pointer, CRYPTO_EX_DATA *data, int index, long argl, void *argp) {
    (void)parent, (void)data, (void)index, (void)argl, (void)argp;
    if (pointer != NULL) ferry_tls_hook_release(pointer);
}

static void make_hook_index(void) {
    hook_index = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, free_hook);
}

static int host_matches(X509 *leaf, const char *host) {
    unsigned char address[16];
    if (inet_pton(AF_INET, host, address) == 1 || inet_pton(AF_INET6, host, address) == 1) {
        return X509_check_ip_asc(leaf, host, 0) == 1;
    }
    return X509_check_host(leaf, host, strlen(host), X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS, NULL) == 1;
}

// Replaces OpenSSL's chain verification for connections with a hook. It runs that same verification
// first, so the result Ferry sees is the default one.
static int verify_chain(X509_STORE_CTX *store, void *argument) {
    ferry_tls_hook *hook = argument;
    int verified = X509_verify_cert(store) == 1;
    int error = X509_STORE_CTX_get_error(store);
    X509 *leaf = X509_STORE_CTX_get0_cert(store);
    STACK_OF(X509) *sent = X509_STORE_CTX_get0_untrusted(store);
    int count = sent != NULL ? sk_X509_num(sent) : 0;
    int leafOnly = count == 0 && leaf != NULL;
    if (leafOnly) count = 1;
    if (count == 0 || count > 64) return 0;

    unsigned char *certificates[64];
    size_t lengths[64];
    int encoded = 1;
    for (int i = 0; i < count; i++) {
        X509 *certificate = leafOnly ? leaf : sk_X509_value(sent, i);
        certificates[i] = NULL;
        int length = i2d_X509(certificate, &certificates[i]);
        lengths[i] = length > 0 ? (size_t)length : 0;
        if (length <= 0) encoded = 0;
    }
    int trusted = 0;
    if (encoded) {
        ferry_tls_peer peer = {
            .certificates = (const unsigned char *const *)certificates,
            .lengths = lengths,
            .count = count,
            .chain_verified = verified,
            .chain_error = verified ? NULL : X509_verify_cert_error_string(error),
            .host_matches = leaf != NULL && host_matches(leaf, hook->host),
        };
        trusted = trust_callback(hook->owner, &peer);
    }
    for (int i = 0; i < count; i++) OPENSSL_free(certificates[i]);

    if (trusted) {
        // libcurl reads the verification result after the handshake; an accepted chain reads as verified.
        X509_STORE_CTX_set_error(store, X509_V_OK);
        return 1;
    }
    if (error == X509_V_OK) X509_STORE_CTX_set_error(store, X509_V_ERR_APPLICATION_VERIFICATION);
    return 0;
}

static int client_certificate(SSL *ssl, X509 **certificate, EVP_PKEY **key) {
    (void)certificate, (void)key;
    ferry_tls_hook *hook = SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), hook_index);
    if (hook == NULL) return 0;
    // 0: no certificate, go on. -1: the handshake stops (SSL_ERROR_WANT_X509_LOOKUP, a failure for libcurl).
    return client_certificate_callback(hook->owner) ? 0 : -1;
}

static CURLcode prepare_context(CURL *easy, void *context, void *argument) {
    (void)easy;
    SSL_CTX *ssl_context = context;
    ferry_tls_hook *hook = argument;
    pthread_once(&hook_index_once, make_hook_index);
    if (hook_index < 0) return CURLE_OUT_OF_MEMORY;
    hook_retain(hook);
    if (!SSL_CTX_set_ex_data(ssl_context, hook_index, hook)) {
        ferry_tls_hook_release(hook);
        return CURLE_OUT_OF_MEMORY;
    }
    if (hook->flags & FERRY_TLS_DECIDE_TRUST) SSL_CTX_set_cert_verify_callback(ssl_context, verify_chain, hook);
    if (hook->flags & FERRY_TLS_WATCH_CLIENT_CERTIFICATE) SSL_CTX_set_client_cert_cb(ssl_context, client_certificate);
    return CURLE_OK;
}

int ferry_tls_hook_install(void *easy, ferry_tls_hook *hook) {
    CURLcode code = curl_easy_setopt(easy, CURLOPT_SSL_CTX_FUNCTION, prepare_context);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(easy, CURLOPT_SSL_CTX_DATA, hook);
}

int ferry_tls_public_key_sha256(const unsigned char *der, size_t length, unsigned char *digest) {
    const unsigned char *cursor = der;
    X509 *certificate = d2i_X509(NULL, &cursor, (long)length);
    if (certificate == NULL) return 0;
    unsigned char *info = NULL;
    int infoLength = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(certificate), &info);
    X509_free(certificate);
    if (infoLength <= 0) return 0;
    SHA256(info, (size_t)infoLength, digest);
    OPENSSL_free(info);
    return 1;
}
