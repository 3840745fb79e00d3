import NIOCore

/// The bytes every body route sends: byte `i` of a body is `UInt8(i % 251)`.
///
/// 251 is prime and not a power of two, so a misplaced, repeated or dropped chunk
/// shows up as a wrong byte instead of lining up by accident.
enum PatternBytes {
    static let period = 251

    /// The largest slice handed out at once; also the size of each streamed write.
    static let chunkLength = 64 * 1024

    /// One period of head room plus a full chunk, so a chunk of any phase is a slice of it
    /// (slices share storage: streaming gigabytes allocates nothing per chunk).
    private static let source: ByteBuffer = {
        let bytes = (0..<(period + chunkLength)).map { UInt8($0 % period) }
        return ByteBuffer(bytes: bytes)
    }()

    static func byte(at offset: Int) -> UInt8 {
        UInt8(offset % period)
    }

    /// The pattern bytes `offset ..< offset + count`, in memory: for bodies that must be
    /// transformed (encoded) before they are sent.
    static func bytes(from offset: Int, count: Int) -> [UInt8] {
        (offset..<(offset + count)).map(byte(at:))
    }

    /// The pattern bytes `offset ..< offset + length`; `length` is at most `chunkLength`.
    static func chunk(at offset: Int, length: Int) -> ByteBuffer {
        precondition(length >= 0 && length <= chunkLength, "pattern chunk too long")
        return source.getSlice(at: offset % period, length: length)!
    }
}
