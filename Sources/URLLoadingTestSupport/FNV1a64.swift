import NIOCore

/// FNV-1a, 64-bit: a cheap, streamable fingerprint, so `/echo` can prove it received
/// a multi-gigabyte body byte for byte without keeping it.
struct FNV1a64 {
    private static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    private static let prime: UInt64 = 0x0000_0100_0000_01b3

    private(set) var value: UInt64 = FNV1a64.offsetBasis

    mutating func update(_ bytes: some Sequence<UInt8>) {
        var hash = value
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* Self.prime
        }
        value = hash
    }

    mutating func update(_ buffer: ByteBuffer) {
        buffer.withUnsafeReadableBytes { update($0) }
    }

    /// Sixteen lower-case hex digits, zero padded.
    var hexDigest: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
