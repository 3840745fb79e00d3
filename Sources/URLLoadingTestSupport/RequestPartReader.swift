import NIOCore
import NIOHTTP1

/// Reads the request parts of one HTTP/1 connection or one HTTP/2 stream, one request at a time.
///
/// The inbound stream can be iterated only once, so one reader owns it for the whole
/// connection and hands out heads, bodies, and finally the moment the client goes away.
final class RequestPartReader {
    private var parts: NIOAsyncChannelInboundStream<HTTPServerRequestPart>.AsyncIterator

    init(_ inbound: NIOAsyncChannelInboundStream<HTTPServerRequestPart>) {
        self.parts = inbound.makeAsyncIterator()
    }

    /// The next request head, or nil when the client has closed the connection.
    func nextHead() async throws -> HTTPRequestHead? {
        while let part = try await parts.next() {
            if case .head(let head) = part {
                return head
            }
            // Body or end parts here belong to a request a route chose not to read; skip them.
        }
        return nil
    }

    /// Reads the rest of the current request's body, pausing as `throttle` says if given.
    /// While paused, the inbound stream's small buffer fills and NIO stops reading the socket.
    func readBody(throttle: BodyThrottle?) async throws -> ReceivedBody {
        var body = ReceivedBody()
        var bytesSincePause = 0
        while let part = try await parts.next() {
            switch part {
            case .head:
                throw OriginProtocolError.unexpectedHead
            case .body(let chunk):
                body.append(chunk)
                guard let throttle else { continue }
                bytesSincePause += chunk.readableBytes
                while bytesSincePause >= throttle.stride {
                    bytesSincePause -= throttle.stride
                    try await Task.sleep(for: throttle.pause)
                }
            case .end:
                return body
            }
        }
        throw OriginProtocolError.clientWentAway
    }

    /// Returns once the client has closed the connection (or the stream, over HTTP/2),
    /// discarding anything it still sends.
    func waitForClientToGoAway() async {
        do {
            while try await parts.next() != nil {}
        } catch {
            // A reset or a closed channel also means the client has gone.
        }
    }
}

enum OriginProtocolError: Error {
    case unexpectedHead
    case clientWentAway
}
