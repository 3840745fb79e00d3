import NIOCore
import NIOPosix
import NIOConcurrencyHelpers

/// A TCP listener on 127.0.0.1 with an ephemeral port, serving each accepted connection
/// in its own child task, that can be shut down completely.
///
/// All test servers share it, because the hard part is the same for each: a test that
/// ends must not leave a connection (a stalled download, a tunnel) or a task behind.
final class LoopbackListener: Sendable {
    let port: Int

    private let serverChannel: Channel
    private let openConnections: OpenConnections
    private let acceptLoop: Task<Void, Never>

    private init(port: Int, serverChannel: Channel, openConnections: OpenConnections, acceptLoop: Task<Void, Never>) {
        self.port = port
        self.serverChannel = serverChannel
        self.openConnections = openConnections
        self.acceptLoop = acceptLoop
    }

    /// Binds and starts accepting.
    /// - Parameters:
    ///   - configureConnection: Runs on the connection's event loop for each accepted channel;
    ///     sets up its pipeline and returns what `serveConnection` works with.
    ///   - serveConnection: Serves one connection; the channel is closed when it returns.
    static func start<Connection: Sendable>(
        configureConnection: @escaping @Sendable (Channel) -> EventLoopFuture<Connection>,
        serveConnection: @escaping @Sendable (Connection) async -> Void
    ) async throws -> LoopbackListener {
        let openConnections = OpenConnections()
        let bootstrap = ServerBootstrap(group: NIOSingletons.posixEventLoopGroup)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
        let server = try await bootstrap.bind(host: "127.0.0.1", port: 0) { channel in
            openConnections.insert(channel)
            return configureConnection(channel)
        }
        guard let port = server.channel.localAddress?.port else {
            try? await server.channel.close()
            throw TestServerError.couldNotBind
        }
        let acceptLoop = Task {
            await withDiscardingTaskGroup { group in
                do {
                    try await server.executeThenClose { accepted in
                        for try await connection in accepted {
                            group.addTask { await serveConnection(connection) }
                        }
                    }
                } catch {
                    // The listener was closed or failed; connections already running
                    // finish on their own or are closed by shutdown().
                }
            }
        }
        return LoopbackListener(
            port: port,
            serverChannel: server.channel,
            openConnections: openConnections,
            acceptLoop: acceptLoop
        )
    }

    /// Stops accepting, closes every open connection, cancels connection tasks that are
    /// only waiting on a timer, and returns once all of them are gone.
    func shutdown() async {
        try? await serverChannel.close()
        openConnections.closeAll()
        acceptLoop.cancel()
        await acceptLoop.value
    }
}

/// The channels of a listener that are still open, so shutdown can close them.
private final class OpenConnections: Sendable {
    private struct State {
        var channels: [ObjectIdentifier: Channel] = [:]
        var isClosed = false
    }

    private let state = NIOLockedValueBox(State())

    func insert(_ channel: Channel) {
        let key = ObjectIdentifier(channel)
        let accepted = state.withLockedValue { state in
            guard !state.isClosed else { return false }
            state.channels[key] = channel
            return true
        }
        guard accepted else {
            // Arrived while shutting down.
            channel.close(promise: nil)
            return
        }
        channel.closeFuture.whenComplete { [self] _ in
            _ = state.withLockedValue { $0.channels.removeValue(forKey: key) }
        }
    }

    func closeAll() {
        let channels = state.withLockedValue { state in
            state.isClosed = true
            return Array(state.channels.values)
        }
        for channel in channels {
            channel.close(promise: nil)
        }
    }
}
