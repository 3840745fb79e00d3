import NIOCore

/// The raw bytes of one TCP connection, read as a protocol parser needs them: an exact count
/// (SOCKS), up to a blank line (an HTTP head), or whatever comes next (relaying).
///
/// Bytes read ahead of what a parser asked for are kept and handed out first afterwards,
/// so nothing a client pipelines behind its handshake is lost.
final class ByteStreamReader {
    private var chunks: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    private var pending = ByteBuffer()

    init(_ inbound: NIOAsyncChannelInboundStream<ByteBuffer>) {
        self.chunks = inbound.makeAsyncIterator()
    }

    /// The next bytes available, or nil once the peer has closed.
    func nextChunk() async throws -> ByteBuffer? {
        if pending.readableBytes > 0 {
            defer { pending = ByteBuffer() }
            return pending
        }
        return try await chunks.next()
    }

    /// Exactly `count` bytes.
    /// - Throws: `ByteStreamError.endOfStream` if the peer closes first.
    func readExactly(_ count: Int) async throws -> [UInt8] {
        while pending.readableBytes < count {
            try await readMore()
        }
        return pending.readBytes(length: count)!
    }

    /// Everything up to and including the first empty line (CRLF CRLF), as text.
    /// - Returns: nil when the peer closed before sending anything.
    /// - Throws: `ByteStreamError.endOfStream` when it closed mid-head,
    ///   `.headTooLong` past `maximumLength` bytes.
    func readHTTPHead(maximumLength: Int = 64 * 1024) async throws -> String? {
        let terminator = Array("\r\n\r\n".utf8)
        while true {
            let view = pending.readableBytesView
            if let range = view.firstRange(of: terminator) {
                let length = range.upperBound - view.startIndex
                return pending.readString(length: length)
            }
            guard pending.readableBytes <= maximumLength else {
                throw ByteStreamError.headTooLong
            }
            do {
                try await readMore()
            } catch ByteStreamError.endOfStream where pending.readableBytes == 0 {
                return nil
            }
        }
    }

    private func readMore() async throws {
        guard var chunk = try await chunks.next() else {
            throw ByteStreamError.endOfStream
        }
        pending.discardReadBytes()
        pending.writeBuffer(&chunk)
    }
}

enum ByteStreamError: Error {
    case endOfStream
    case headTooLong
}
