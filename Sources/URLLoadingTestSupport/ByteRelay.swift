import NIOCore
import NIOPosix

/// A raw TCP connection whose reads come through an async sequence. Writes go straight to
/// `channel` and are awaited, so a relay never reads faster than the other side takes bytes.
typealias ByteChannel = NIOAsyncChannel<ByteBuffer, Never>

/// Copies bytes between a client and an upstream connection, both ways, until either side
/// closes; then closes both.
enum ByteRelay {
    /// - Parameters:
    ///   - clientReader: The client's bytes, positioned after whatever handshake was parsed.
    ///   - prepareDownstream: Runs before bytes are copied from upstream to the client, e.g. to
    ///     rewrite a response head: it gets the upstream's reader and the client's channel.
    static func run(
        client clientReader: ByteStreamReader,
        _ clientChannel: Channel,
        upstream: ByteChannel,
        prepareDownstream: (@Sendable (ByteStreamReader, Channel) async throws -> Void)? = nil
    ) async {
        let upstreamChannel = upstream.channel
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                // The upstream reader lives in this task only, so it never crosses tasks.
                try? await upstream.executeThenClose { inbound in
                    let upstreamReader = ByteStreamReader(inbound)
                    try await prepareDownstream?(upstreamReader, clientChannel)
                    await copy(from: upstreamReader, to: clientChannel)
                }
                try? await clientChannel.close()
            }
            await copy(from: clientReader, to: upstreamChannel)
            // Either direction ending ends the relay: closing both channels ends the other one.
            try? await upstreamChannel.close()
            try? await clientChannel.close()
        }
    }

    /// Copies until `reader` ends or a write fails.
    static func copy(from reader: ByteStreamReader, to channel: Channel) async {
        do {
            while let chunk = try await reader.nextChunk() {
                try await channel.writeAndFlush(chunk)
            }
        } catch {
            // Either side went away; the relay closes both.
        }
    }

    /// Opens a TCP connection to `host:port` for relaying.
    static func connect(host: String, port: Int) async throws -> ByteChannel {
        try await ClientBootstrap(group: NIOSingletons.posixEventLoopGroup)
            .connectTimeout(.seconds(5))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connect(host: host, port: port, channelInitializer: wrapBytes)
    }

    /// A channel's bytes as an async sequence and writer, with nothing decoded.
    @Sendable static func wrapBytes(_ channel: Channel) -> EventLoopFuture<ByteChannel> {
        channel.eventLoop.makeCompletedFuture {
            try ByteChannel(wrappingChannelSynchronously: channel)
        }
    }
}
