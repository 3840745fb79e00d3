// The SHA256_* functions are deprecated in OpenSSL 3 in favour of EVP, whose context lives on the
// heap and cannot be copied by assignment; the engine forks a hash by copying it (resume data).
#define OPENSSL_SUPPRESS_DEPRECATED
#include "ferry_sha256.h"

void ferry_sha256_init(ferry_sha256 *state) {
    SHA256_Init(state);
}

void ferry_sha256_update(ferry_sha256 *state, const void *bytes, size_t count) {
    SHA256_Update(state, bytes, count);
}

void ferry_sha256_final(ferry_sha256 *state, unsigned char *digest) {
    SHA256_Final(digest, state);
}
