import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOSSL

/// Serves the origin's connections: a request loop on each HTTP/1 connection, one exchange
/// on each HTTP/2 stream, both through the same router.
struct OriginService: Sendable {
    let router: OriginRouter
    let activity: OriginActivity

    func serve(_ connection: AcceptedOriginConnection) async {
        switch connection.wireProtocol {
        case .http1(let http1):
            await serveHTTP1(http1, connectionID: connection.id, tlsVersion: nil)
        case .negotiating(let negotiation):
            do {
                let negotiated = try await negotiation.get()
                // The handshake is over by now, so the version is known.
                let tlsVersion = try await connection.channel.nioSSL_tlsVersion().get().map(TLSProtocolVersion.name(of:))
                switch negotiated {
                case .http1_1(let http1):
                    await serveHTTP1(http1, connectionID: connection.id, tlsVersion: tlsVersion)
                case .http2((_, let streams)):
                    await serveHTTP2(streams, connectionID: connection.id, tlsVersion: tlsVersion)
                }
            } catch {
                // Handshake failed (say, a client certificate was missing) or ALPN chose
                // something unknown: nothing to serve.
            }
        }
        try? await connection.channel.close()
    }

    private func serveHTTP1(_ http1: OriginHTTPChannel, connectionID: Int, tlsVersion: String?) async {
        try? await http1.executeThenClose { inbound in
            let reader = RequestPartReader(inbound)
            while let head = try await reader.nextHead() {
                let canContinue = await exchange(
                    head, reader: reader, channel: http1.channel, connectionChannel: http1.channel,
                    connectionID: connectionID, tlsVersion: tlsVersion
                )
                if !canContinue { return }
            }
        }
    }

    private func serveHTTP2(
        _ streams: NIOHTTP2Handler.AsyncStreamMultiplexer<OriginHTTPChannel>,
        connectionID: Int,
        tlsVersion: String?
    ) async {
        await withDiscardingTaskGroup { group in
            do {
                for try await stream in streams.inbound {
                    group.addTask {
                        try? await stream.executeThenClose { inbound in
                            let reader = RequestPartReader(inbound)
                            guard let head = try await reader.nextHead() else { return }
                            _ = await exchange(
                                head, reader: reader, channel: stream.channel,
                                connectionChannel: stream.channel.parent ?? stream.channel,
                                connectionID: connectionID, tlsVersion: tlsVersion
                            )
                        }
                    }
                }
            } catch {
                // The connection went away; streams still running end with it.
            }
        }
    }

    /// Reads one request, lets its route answer, and tells whether the connection can carry another.
    private func exchange(
        _ head: HTTPRequestHead,
        reader: RequestPartReader,
        channel: Channel,
        connectionChannel: Channel,
        connectionID: Int,
        tlsVersion: String?
    ) async -> Bool {
        var request = OriginRequest(head: head, connectionID: connectionID, tlsVersion: tlsVersion)
        request.earlierRequestsWithSameURI = activity.requestCount(uri: head.uri)
        let token = activity.requestStarted(
            RecordedRequest(
                method: request.method, uri: head.uri, headers: request.headerFields, bodyLength: 0,
                connectionID: connectionID, httpVersion: request.httpVersion, tlsVersion: tlsVersion
            )
        )
        defer { activity.requestFinished() }

        let route = router.route(for: request.path)
        let response = OriginResponder(channel: channel, connectionChannel: connectionChannel, reader: reader, request: head)
        do {
            if head.version == .http1_1, head.headers[canonicalForm: "expect"].contains(where: { $0.lowercased() == "100-continue" }) {
                try await response.sendContinue()
            }
            var throttle: BodyThrottle?
            if route.readsBodySlowly {
                guard let requested = BodyThrottle(query: request.query) else {
                    try await response.send(.badRequest, text: "bytes_per_pause and pause_ms must be positive integers")
                    return false  // The unread body is still on the connection.
                }
                throttle = requested
                await shrinkReceiveBuffer(of: connectionChannel)
            }
            request.body = try await reader.readBody(throttle: throttle)
            activity.requestBodyReceived(token: token, length: request.body.length)
            try await route.handler(request, response)
            return !response.connectionMustClose
        } catch {
            // The client left, or the server is shutting down mid-response.
            return false
        }
    }

    /// A slow reader only slows the client if little can pile up in between: the kernel would
    /// otherwise take megabytes into the receive buffer at once, and the client would see its
    /// upload finish long before the server read it. (The client's own send buffer still
    /// absorbs some; only the client can limit that.)
    private func shrinkReceiveBuffer(of connection: Channel) async {
        try? await connection.setOption(ChannelOptions.socketOption(.so_rcvbuf), value: 16 * 1024).get()
    }
}
