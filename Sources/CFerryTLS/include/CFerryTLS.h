// Ferry's hooks into OpenSSL's TLS handshake, installed through libcurl's CURLOPT_SSL_CTX_FUNCTION
// (TLS-01, TLS-11).
//
// libcurl creates one SSL_CTX per TLS connection and lets us adjust it before the handshake. We attach a
// reference-counted hook to it and install two OpenSSL callbacks:
// - a certificate verification callback, which runs OpenSSL's own chain verification (exactly what
//   the handshake would have run), hands the chain and the result to Ferry, and accepts or refuses the
//   chain as Ferry says;
// - a client certificate callback, which tells Ferry that the server asked for a certificate while
//   none was configured, and lets Ferry stop the handshake to ask its delegate first.
// The Swift side registers its functions once with ferry_tls_set_callbacks.
#ifndef FERRY_TLS_H
#define FERRY_TLS_H

#include <stddef.h>

#include "ferry_sha256.h"  // the module's umbrella header: SHA-256 lives in its own header

/// What the server presented, and what OpenSSL's default verification made of it.
typedef struct ferry_tls_peer {
    /// The certificates as the server sent them, leaf first, DER encoded.
    const unsigned char *_Nonnull const *_Nonnull certificates;
    const size_t *_Nonnull lengths;
    int count;
    /// 1 when the chain verified against the trust store (the SSL_CTX's, as libcurl set it up).
    int chain_verified;
    /// Why verification failed (OpenSSL's words), or NULL.
    const char *_Nullable chain_error;
    /// 1 when the leaf is valid for the host name (or IP address) the client asked for.
    int host_matches;
} ferry_tls_peer;

/// Decides a chain: 1 trusts it, 0 refuses it (the handshake then fails).
typedef int (*ferry_tls_trust_callback)(void *_Nonnull owner, const ferry_tls_peer *_Nonnull peer);
/// The server asked for a client certificate and none is configured: 1 goes on without one, 0 stops
/// the handshake (libcurl then fails the transfer with CURLE_SSL_CONNECT_ERROR).
typedef int (*ferry_tls_client_certificate_callback)(void *_Nonnull owner);
/// The last reference to a hook went away: give up the owner.
typedef void (*ferry_tls_release_callback)(void *_Nonnull owner);

/// Registers the functions every hook calls. Call once, before the first ferry_tls_hook_create.
void ferry_tls_set_callbacks(ferry_tls_trust_callback _Nonnull trust,
                             ferry_tls_client_certificate_callback _Nonnull clientCertificate,
                             ferry_tls_release_callback _Nonnull release);

/// Install the certificate verification callback.
static const int FERRY_TLS_DECIDE_TRUST = 1;
/// Install the client certificate callback.
static const int FERRY_TLS_WATCH_CLIENT_CERTIFICATE = 2;

typedef struct ferry_tls_hook ferry_tls_hook;

/// A hook for `owner` (an opaque, already retained pointer that the release callback gives up), checking
/// host names against `host`. Holds one reference, the caller's.
ferry_tls_hook *_Nullable ferry_tls_hook_create(void *_Nonnull owner, const char *_Nonnull host, int flags);
/// Gives up the caller's reference. Connections libcurl keeps open hold their own.
void ferry_tls_hook_release(ferry_tls_hook *_Nonnull hook);
/// Makes every TLS connection `easy` (a CURL *) opens use `hook`. Returns a CURLcode.
int ferry_tls_hook_install(void *_Nonnull easy, ferry_tls_hook *_Nonnull hook);

/// The SHA-256 of a DER certificate's SubjectPublicKeyInfo (what curl's sha256// pins name).
/// Returns 1 and fills `digest`, or 0 when `der` is not a certificate.
int ferry_tls_public_key_sha256(const unsigned char *_Nonnull der, size_t length, unsigned char *_Nonnull digest);

#endif
