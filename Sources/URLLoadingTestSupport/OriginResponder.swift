import NIOCore
import NIOHTTP1

/// Writes the response to one request, for the routes.
///
/// Each write is awaited until NIO has handed it to the kernel (over HTTP/2: until flow control
/// let it out). That is the back-pressure streaming needs: a body of several GiB goes out one
/// chunk at a time, never faster than the client reads, and never held in memory.
final class OriginResponder {
    /// Where response parts go: the HTTP/1 connection, or the HTTP/2 stream.
    private let channel: Channel
    /// The TCP connection itself (the stream's parent over HTTP/2).
    private let connectionChannel: Channel
    private let reader: RequestPartReader
    private let requestVersion: HTTPVersion
    private let keepAliveRequested: Bool

    /// Set once the connection cannot carry another request: the client asked for that,
    /// or a route left the response unfinished on purpose.
    private(set) var connectionMustClose = false

    init(channel: Channel, connectionChannel: Channel, reader: RequestPartReader, request: HTTPRequestHead) {
        self.channel = channel
        self.connectionChannel = connectionChannel
        self.reader = reader
        self.requestVersion = request.version
        self.keepAliveRequested = request.isKeepAlive
    }

    private var isHTTP1: Bool { requestVersion.major == 1 }

    /// Tells an HTTP/1.1 client that sent `Expect: 100-continue` to go ahead with its body.
    func sendContinue() async throws {
        try await channel.writeAndFlush(HTTPServerResponsePart.head(HTTPResponseHead(version: requestVersion, status: .continue)))
    }

    /// A complete response with a small body (Content-Length is set from it).
    func send(_ status: HTTPResponseStatus, headers: HTTPHeaders = [:], body: ByteBuffer = ByteBuffer()) async throws {
        var headers = headers
        if !headers.contains(name: "content-length") {
            headers.replaceOrAdd(name: "content-length", value: String(body.readableBytes))
        }
        channel.write(HTTPServerResponsePart.head(makeHead(status, headers)), promise: nil)
        if body.readableBytes > 0 {
            channel.write(HTTPServerResponsePart.body(.byteBuffer(body)), promise: nil)
        }
        try await channel.writeAndFlush(HTTPServerResponsePart.end(nil))
    }

    /// A complete text response.
    func send(_ status: HTTPResponseStatus, contentType: String = "text/plain; charset=utf-8", text: String, headers: HTTPHeaders = [:]) async throws {
        var headers = headers
        headers.replaceOrAdd(name: "content-type", value: contentType)
        try await send(status, headers: headers, body: ByteBuffer(string: text))
    }

    /// The head alone, flushed at once, for routes that then take their time over the body.
    /// Without a Content-Length an HTTP/1.1 body goes out chunked.
    func sendHead(_ status: HTTPResponseStatus, headers: HTTPHeaders) async throws {
        try await channel.writeAndFlush(HTTPServerResponsePart.head(makeHead(status, headers)))
    }

    func sendBody(_ chunk: ByteBuffer) async throws {
        try await channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(chunk)))
    }

    /// Streams `count` pattern bytes that start at body offset `offset` (see `PatternBytes`).
    /// `pace`: a sleep after every chunk, for slow downloads.
    func sendPatternBytes(from offset: Int, count: Int, pace: Duration? = nil) async throws {
        var next = offset
        let end = offset + count
        while next < end {
            let length = min(PatternBytes.chunkLength, end - next)
            try await sendBody(PatternBytes.chunk(at: next, length: length))
            next += length
            if let pace { try await Task.sleep(for: pace) }
        }
    }

    func sendEnd() async throws {
        try await channel.writeAndFlush(HTTPServerResponsePart.end(nil))
    }

    /// Closes the TCP connection in the middle of a response, as a crashed server would.
    /// Everything written so far has reached the kernel and still goes out before the FIN.
    func dropConnection() async {
        connectionMustClose = true
        try? await connectionChannel.close()
    }

    /// Leaves the response unfinished and the connection open until the client gives up.
    func holdUntilClientGoesAway() async {
        connectionMustClose = true
        await reader.waitForClientToGoAway()
    }

    private func makeHead(_ status: HTTPResponseStatus, _ headers: HTTPHeaders) -> HTTPResponseHead {
        var headers = headers
        if isHTTP1 && !keepAliveRequested {
            headers.replaceOrAdd(name: "connection", value: "close")
            connectionMustClose = true
        }
        // Over HTTP/2 the version is ignored: the stream codec turns the head into HPACK headers.
        let version = isHTTP1 ? requestVersion : .http1_1
        return HTTPResponseHead(version: version, status: status, headers: headers)
    }
}
