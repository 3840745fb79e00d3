import NIOCore

/// An HTTP origin on 127.0.0.1 for the engine's tests: HTTP/1.1 in plain text, or TLS with
/// HTTP/2 and HTTP/1.1 chosen by ALPN. It serves the routes of `OriginRouter.standard`:
///
/// - `/bytes/{n}`: n pattern bytes (byte i is `UInt8(i % 251)`), ETag `"bytes-{n}"`, fixed
///   Last-Modified, single `Range` (206/416) and `If-Range`; streamed, so GiBs work.
/// - `/resumable/{n}?stall_at=K&drop_at=K&statuses=S&ranges=ignore&changes=1&encoding=gzip&etag=weak&last_modified=none`:
///   `/bytes/{n}` that stops mid-body, answers another status, ignores ranges, changes its entity,
///   encodes it or varies its validators, per request for the same URI (see `ResumableRoute`).
/// - `/drip?bytes=N&chunks=K&delay_ms=D&initial_delay_ms=I&length=1`: slow body.
/// - `/stall?bytes=N`: sends N of 2N promised bytes, then goes silent.
/// - `/delay/{ms}`: answers "delayed" after ms milliseconds.
/// - `/drop?bytes=N`: sends N of 2N promised bytes, then closes the connection.
/// - `/status/{code}`, `/redirect/{n}`, `/redirect-to?url=U&status=S`, `/loop/a`.
/// - `/echo`: a JSON report of the request (see `EchoRoutes`); `/slow-upload-sink` the same
///   after reading the body slowly.
/// - `/http-version`, `/tls-info`, `/mime?type=T&bytes=N`.
/// - `/cache/max-age/{s}`, `/cache/no-store`, `/cache/no-cache`, `/cache/last-modified`,
///   `/cache/expires/{s}`, `/cache/vary`, `/cache/scripted/{name}` (headers and status from the
///   query): caching headers, bodies numbered per URI (see `CacheRoutes`).
/// - `/cookies/.../{set,raw,expire,redirect,show}`: setting and showing cookies (see `CookieRoutes`).
/// - `/protected/...?schemes=basic,digest,bearer&...`: Basic, Digest and Bearer challenges (see `AuthRoutes`).
/// - `/job-events/v1/jobs/{id}/events`: a gateway job's event stream that breaks once (see
///   `JobEventStreamRoute`).
///
/// Anything else is 404.
///
/// Every method reaches every route. Every request is recorded in `requests`.
public final class OriginServer: Sendable {
    public let port: Int
    /// "http://127.0.0.1:PORT", or "https://localhost:PORT" with TLS (the certificate is valid
    /// for 127.0.0.1 too).
    public let baseURL: String

    private let listener: LoopbackListener
    private let activity: OriginActivity

    private init(listener: LoopbackListener, activity: OriginActivity, usesTLS: Bool) {
        self.listener = listener
        self.activity = activity
        self.port = listener.port
        self.baseURL = usesTLS ? "https://localhost:\(listener.port)" : "http://127.0.0.1:\(listener.port)"
    }

    /// Starts a server on an ephemeral port; it runs until `shutdown()`.
    public static func start(tls: TLSOptions? = nil) async throws -> OriginServer {
        let sslContext = try tls?.makeSSLContext()
        let activity = OriginActivity()
        let service = OriginService(router: .standard, activity: activity)
        let listener = try await LoopbackListener.start(
            configureConnection: { channel in
                OriginChannelSetup.configure(channel, connectionID: activity.connectionAccepted(), tls: sslContext)
            },
            serveConnection: { connection in
                await service.serve(connection)
            }
        )
        return OriginServer(listener: listener, activity: activity, usesTLS: tls != nil)
    }

    /// Runs `body` with a fresh server, shutting it down afterwards whether `body` succeeds or throws.
    public static func withRunning<T>(tls: TLSOptions? = nil, _ body: (OriginServer) async throws -> T) async throws -> T {
        let origin = try await start(tls: tls)
        do {
            let result = try await body(origin)
            try await origin.shutdown()
            return result
        } catch {
            try? await origin.shutdown()
            throw error
        }
    }

    /// `baseURL` followed by `pathAndQuery`, e.g. `url("/bytes/10")`.
    public func url(_ pathAndQuery: String) -> String {
        pathAndQuery.hasPrefix("/") ? baseURL + pathAndQuery : baseURL + "/" + pathAndQuery
    }

    /// Every request seen since start or the last `resetStatistics()`, in arrival order.
    public var requests: [RecordedRequest] { activity.requests }

    /// TCP connections accepted since start or the last `resetStatistics()`.
    public var connectionCount: Int { activity.connectionCount }

    /// The most requests that were in flight (head received, response not yet finished) at once.
    public var maxConcurrentRequests: Int { activity.maxConcurrentRequests }

    /// Forgets recorded requests and zeroes the counters.
    public func resetStatistics() {
        activity.reset()
    }

    /// Stops listening and closes every connection, including stalled ones.
    public func shutdown() async throws {
        await listener.shutdown()
    }

    /// FNV-1a 64-bit of `bytes` as 16 lower-case hex digits: what `/echo` reports as `body_fnv1a64`.
    public static func fnv1a64Hex(_ bytes: some Sequence<UInt8>) -> String {
        var hash = FNV1a64()
        hash.update(bytes)
        return hash.hexDigest
    }

    /// Byte `offset` of every body the routes send.
    public static func patternByte(at offset: Int) -> UInt8 {
        PatternBytes.byte(at: offset)
    }

    /// The first `count` bytes of every body the routes send, for comparing small downloads.
    public static func patternBytes(count: Int) -> [UInt8] {
        (0..<count).map(PatternBytes.byte(at:))
    }
}
