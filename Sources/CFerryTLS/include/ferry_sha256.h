// SHA-256 from OpenSSL's libcrypto, which libcurl's TLS loads anyway: the digest of a download that
// asks for one, and the check of a partial file. OpenSSL's assembly (SHA extensions, AVX2) is several
// times faster than portable code.
#ifndef FERRY_SHA256_H
#define FERRY_SHA256_H

#include <stddef.h>
#include <openssl/sha.h>

/// The state of one hash. Plain data: copying it copies the hash so far (the copy can be finished
/// while the original carries on).
typedef SHA256_CTX ferry_sha256;

void ferry_sha256_init(ferry_sha256 *_Nonnull state);
void ferry_sha256_update(ferry_sha256 *_Nonnull state, const void *_Nonnull bytes, size_t count);
/// Writes the 32-byte digest; the state is spent.
void ferry_sha256_final(ferry_sha256 *_Nonnull state, unsigned char *_Nonnull digest);

#endif
