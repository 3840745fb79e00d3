internal import CFerryTLS

/// Incremental SHA-256 (FIPS 180-4), for the digest of a download's file (`DownloadDigest`) and the
/// check of a partial file: OpenSSL's, through `ferry_sha256.h` (libcurl's TLS loads libcrypto
/// anyway, and its assembly hashes several times faster than Swift code could).
///
/// A value type: copying it copies the state, so the digest of the bytes so far is
/// `var copy = hasher; copy.finalize()` while hashing carries on (that is how resume data gets the
/// hash of exactly its offset).
struct SHA256Hasher: Sendable {
    private var state = ferry_sha256()
    /// Bytes hashed so far.
    private(set) var count: Int64 = 0

    init() {
        ferry_sha256_init(&state)
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        count += Int64(bytes.count)
        ferry_sha256_update(&state, base, bytes.count)
    }

    mutating func update<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        let array = Array(bytes)
        array.withUnsafeBytes { update($0) }
    }

    /// The 32-byte digest. Consumes the state: hash on a copy to keep going.
    mutating func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        digest.withUnsafeMutableBufferPointer { ferry_sha256_final(&state, $0.baseAddress!) }
        return digest
    }

    /// The digest as 64 lower-case hex digits, the form resume data and `DownloadTask.sha256` use.
    mutating func finalizeHex() -> String {
        Self.hex(finalize())
    }

    /// The hex digest of everything hashed so far, leaving this hasher untouched.
    var currentHexDigest: String {
        var copy = self
        return copy.finalizeHex()
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
