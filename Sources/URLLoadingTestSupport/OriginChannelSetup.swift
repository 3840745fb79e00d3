import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOSSL

/// The request parts of one HTTP/1 connection or one HTTP/2 stream.
///
/// Responses are not written through NIOAsyncChannel's outbound writer (hence `Never`):
/// `OriginResponder` writes to the channel directly, so it can await each write's completion
/// and close the connection only once everything written has left.
typealias OriginHTTPChannel = NIOAsyncChannel<HTTPServerRequestPart, Never>

/// The HTTP/2 side of ALPN: the connection channel, and the stream channels as they open.
typealias OriginHTTP2Connection = (Channel, NIOHTTP2Handler.AsyncStreamMultiplexer<OriginHTTPChannel>)

/// An accepted connection, its pipeline set up, ready for `OriginService`.
struct AcceptedOriginConnection: Sendable {
    enum WireProtocol: Sendable {
        /// Plain-text HTTP/1.
        case http1(OriginHTTPChannel)
        /// TLS: HTTP/1.1 or HTTP/2, whichever ALPN picks once the handshake completes.
        case negotiating(EventLoopFuture<NIONegotiatedHTTPVersion<OriginHTTPChannel, OriginHTTP2Connection>>)
    }

    let id: Int
    let channel: Channel
    let wireProtocol: WireProtocol
}

/// Builds the pipeline of each accepted origin connection.
///
/// With TLS it uses NIOHTTP2's typed ALPN negotiation and `HTTP2FramePayloadToHTTP1ServerCodec`
/// on every stream, so HTTP/2 streams carry the same request parts as HTTP/1 and one set of
/// routes serves both.
enum OriginChannelSetup {
    static func configure(
        _ channel: Channel,
        connectionID: Int,
        tls: NIOSSLContext?
    ) -> EventLoopFuture<AcceptedOriginConnection> {
        guard let tls else {
            return channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                let http1 = try wrap(channel)
                return AcceptedOriginConnection(id: connectionID, channel: channel, wireProtocol: .http1(http1))
            }
        }
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls))
        }.flatMap {
            // The ALPN list in `tls` decides whether h2 can be chosen at all.
            channel.configureAsyncHTTPServerPipeline(
                http1ConnectionInitializer: { connection in
                    connection.eventLoop.makeCompletedFuture {
                        try wrap(connection)
                    }
                },
                http2ConnectionInitializer: { connection in
                    connection.eventLoop.makeSucceededFuture(connection)
                },
                http2StreamInitializer: { stream in
                    stream.eventLoop.makeCompletedFuture {
                        try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                        return try wrap(stream)
                    }
                }
            )
        }.map { negotiation in
            AcceptedOriginConnection(id: connectionID, channel: channel, wireProtocol: .negotiating(negotiation))
        }
    }

    /// Request parts as an async sequence. Only a couple of reads are buffered ahead of the
    /// routes, so a route that reads slowly holds the client back instead of filling memory.
    private static func wrap(_ channel: Channel) throws -> OriginHTTPChannel {
        try OriginHTTPChannel(
            wrappingChannelSynchronously: channel,
            configuration: .init(backPressureStrategy: .init(lowWatermark: 1, highWatermark: 2))
        )
    }
}
