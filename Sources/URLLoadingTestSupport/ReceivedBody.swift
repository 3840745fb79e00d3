import NIOCore

/// A request body as the origin keeps it: always its length and fingerprint, and the bytes
/// themselves only while small, so uploads of any size can be checked without holding them.
struct ReceivedBody {
    /// Bodies from this size up are fingerprinted only.
    static let keptBytesLimit = 1024 * 1024

    private(set) var length = 0
    private(set) var fingerprint = FNV1a64()
    /// The whole body, or nil once it reached `keptBytesLimit`.
    private(set) var keptBytes: [UInt8]? = []

    mutating func append(_ chunk: ByteBuffer) {
        length += chunk.readableBytes
        fingerprint.update(chunk)
        if length < Self.keptBytesLimit {
            keptBytes?.append(contentsOf: chunk.readableBytesView)
        } else {
            keptBytes = nil
        }
    }
}
