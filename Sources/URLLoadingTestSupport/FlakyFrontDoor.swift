import NIOConcurrencyHelpers
import NIOCore

/// A loopback port in front of another server that is "down" for its first `failures` connections
/// (each closed at once, before a byte of response: the client sees the connection reset or an empty
/// reply) and relays every later one to `upstreamPort`: a server that comes back, for the tests of
/// automatic retries (BG-06). It counts the connections it accepted.
public final class FlakyFrontDoor: Sendable {
    public let port: Int
    private let listener: LoopbackListener
    private let accepted: NIOLockedValueBox<Int>

    private init(listener: LoopbackListener, accepted: NIOLockedValueBox<Int>) {
        self.listener = listener
        self.accepted = accepted
        self.port = listener.port
    }

    public static func start(upstreamPort: Int, failures: Int) async throws -> FlakyFrontDoor {
        let accepted = NIOLockedValueBox(0)
        let listener = try await LoopbackListener.start(
            configureConnection: ByteRelay.wrapBytes,
            serveConnection: { connection in
                let number = accepted.withLockedValue { count in
                    count += 1
                    return count
                }
                try? await connection.executeThenClose { inbound in
                    // Down: closed unanswered (a request already received makes the kernel send a reset).
                    guard number > failures else { return }
                    guard let upstream = try? await ByteRelay.connect(host: "127.0.0.1", port: upstreamPort) else { return }
                    await ByteRelay.run(client: ByteStreamReader(inbound), connection.channel, upstream: upstream)
                }
            })
        return FlakyFrontDoor(listener: listener, accepted: accepted)
    }

    /// "http://127.0.0.1:PORT" followed by `pathAndQuery`.
    public func url(_ pathAndQuery: String) -> String {
        "http://127.0.0.1:\(port)" + (pathAndQuery.hasPrefix("/") ? pathAndQuery : "/" + pathAndQuery)
    }

    /// Connections accepted so far, the refused ones included.
    public var connectionCount: Int { accepted.withLockedValue { $0 } }

    public func shutdown() async {
        await listener.shutdown()
    }
}
