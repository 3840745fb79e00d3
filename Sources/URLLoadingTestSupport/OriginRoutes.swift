/// One path (or family of paths) the origin answers, and how.
struct OriginRoute: Sendable {
    typealias Handler = @Sendable (OriginRequest, OriginResponder) async throws -> Void

    enum PathMatch: Sendable {
        /// The whole path, e.g. "/echo".
        case exact(String)
        /// Anything below a prefix, e.g. "/bytes/" for "/bytes/100"; the rest is the route's parameter.
        case prefix(String)

        func matches(_ path: String) -> Bool {
            switch self {
            case .exact(let expected): path == expected
            case .prefix(let prefix): path.hasPrefix(prefix) && path.count > prefix.count
            }
        }
    }

    let match: PathMatch
    /// Read the request body slowly before answering, to exercise upload progress.
    let readsBodySlowly: Bool
    let handler: Handler

    init(_ match: PathMatch, readsBodySlowly: Bool = false, _ handler: @escaping Handler) {
        self.match = match
        self.readsBodySlowly = readsBodySlowly
        self.handler = handler
    }
}

/// Maps request paths to routes. Every method reaches the same route: tests choose methods freely.
struct OriginRouter: Sendable {
    let routes: [OriginRoute]
    let fallback: OriginRoute

    func route(for path: String) -> OriginRoute {
        routes.first { $0.match.matches(path) } ?? fallback
    }

    /// The routes every `OriginServer` serves; see each handler for its contract.
    static let standard = OriginRouter(
        routes: [
            OriginRoute(.prefix("/bytes/"), BytesRoute.serve),
            OriginRoute(.prefix("/resumable/"), ResumableRoute.serve),
            OriginRoute(.exact("/drip"), TimedRoutes.drip),
            OriginRoute(.exact("/stall"), TimedRoutes.stall),
            OriginRoute(.prefix("/delay/"), TimedRoutes.delay),
            OriginRoute(.exact("/drop"), TimedRoutes.drop),
            OriginRoute(.exact("/multipart-replace"), MultipartReplaceRoute.serve),
            OriginRoute(.prefix("/status/"), InfoRoutes.status),
            OriginRoute(.prefix("/redirect/"), RedirectRoutes.countdown),
            OriginRoute(.exact("/redirect-to"), RedirectRoutes.redirectTo),
            OriginRoute(.prefix("/loop/"), RedirectRoutes.loop),
            OriginRoute(.exact("/echo"), EchoRoutes.echo),
            OriginRoute(.exact("/slow-upload-sink"), readsBodySlowly: true, EchoRoutes.slowUploadSink),
            OriginRoute(.exact("/http-version"), InfoRoutes.httpVersion),
            OriginRoute(.exact("/tls-info"), InfoRoutes.tlsInfo),
            OriginRoute(.exact("/mime"), InfoRoutes.mime),
            OriginRoute(.prefix("/cache/max-age/"), CacheRoutes.maxAge),
            OriginRoute(.exact("/cache/no-store"), CacheRoutes.noStore),
            OriginRoute(.exact("/cache/no-cache"), CacheRoutes.noCache),
            OriginRoute(.exact("/cache/last-modified"), CacheRoutes.lastModified),
            OriginRoute(.prefix("/cache/expires/"), CacheRoutes.expires),
            OriginRoute(.exact("/cache/vary"), CacheRoutes.vary),
            OriginRoute(.prefix("/cache/scripted/"), CacheRoutes.scripted),
            OriginRoute(.prefix("/cookies/"), CookieRoutes.serve),
            OriginRoute(.prefix("/protected/"), AuthRoutes.protected),
            OriginRoute(.prefix(JobEventStreamRoute.prefix), JobEventStreamRoute.serve),
        ],
        fallback: OriginRoute(.prefix("/"), InfoRoutes.notFound)
    )
}
