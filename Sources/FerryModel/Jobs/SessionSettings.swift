import Foundation
import URLLoading

/// A gateway session's configuration (`sessions.configuration`): what the seeds' session
/// configuration offers that a job's requests should share. Jobs in the session run with it.
public struct SessionSettings: Sendable, Equatable, Codable {
    /// Default idle timeout of the session's jobs (a job's own `timeouts.idle` wins), seconds.
    public var idleTimeout: Double?
    public var maxConnectionsPerHost: Int?
    /// Sent with every request of the session unless the job sets the same header.
    public var additionalHeaders: [JobSpecification.Header]
    public var tlsMinimum: String?
    public var tlsMaximum: String?
    /// `http://[user:pass@]host:port` or `socks5h://...`; checked by the SSRF guard like any address.
    public var proxy: String?
    /// The cache policy of the session's jobs that name none (`use_protocol`, ...; SES-26, CA-05).
    public var cachePolicy: String?
    /// The decisions its jobs leave to the client, unless a job says otherwise.
    public var decisions: DecisionPolicy?
    /// Which response cookies its jar accepts, as the API names it (`always`, `never`,
    /// `only_from_main_document_domain`; CK-05, SES-22); nil: always.
    public var cookieAcceptPolicy: String?
    /// A background session's own settings (BG-*); nil for default and ephemeral sessions.
    public var background: BackgroundSettings?

    public init(
        idleTimeout: Double? = nil, maxConnectionsPerHost: Int? = nil, additionalHeaders: [JobSpecification.Header] = [],
        tlsMinimum: String? = nil, tlsMaximum: String? = nil, proxy: String? = nil, cachePolicy: String? = nil,
        decisions: DecisionPolicy? = nil, cookieAcceptPolicy: String? = nil, background: BackgroundSettings? = nil
    ) {
        self.idleTimeout = idleTimeout
        self.maxConnectionsPerHost = maxConnectionsPerHost
        self.additionalHeaders = additionalHeaders
        self.tlsMinimum = tlsMinimum
        self.tlsMaximum = tlsMaximum
        self.proxy = proxy
        self.cachePolicy = cachePolicy
        self.decisions = decisions
        self.cookieAcceptPolicy = cookieAcceptPolicy
        self.background = background
    }

    package enum CodingKeys: String, CodingKey {
        case idleTimeout = "idle_timeout"
        case maxConnectionsPerHost = "max_connections_per_host"
        case additionalHeaders = "additional_headers"
        case tlsMinimum = "tls_minimum"
        case tlsMaximum = "tls_maximum"
        case proxy
        case cachePolicy = "cache_policy"
        case decisions
        case cookieAcceptPolicy = "cookie_accept_policy"
        case background
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        idleTimeout = try container.decodeIfPresent(Double.self, forKey: .idleTimeout)
        maxConnectionsPerHost = try container.decodeIfPresent(Int.self, forKey: .maxConnectionsPerHost)
        additionalHeaders = try container.decodeIfPresent([JobSpecification.Header].self, forKey: .additionalHeaders) ?? []
        tlsMinimum = try container.decodeIfPresent(String.self, forKey: .tlsMinimum)
        tlsMaximum = try container.decodeIfPresent(String.self, forKey: .tlsMaximum)
        proxy = try container.decodeIfPresent(String.self, forKey: .proxy)
        cachePolicy = try container.decodeIfPresent(String.self, forKey: .cachePolicy)
        decisions = try container.decodeIfPresent(DecisionPolicy.self, forKey: .decisions)
        cookieAcceptPolicy = try container.decodeIfPresent(String.self, forKey: .cookieAcceptPolicy)
        background = try container.decodeIfPresent(BackgroundSettings.self, forKey: .background)
    }

    /// What engine sessions differ in: jobs whose settings give the same key share an engine session
    /// (and so its connections).
    package struct EngineKey: Hashable, Sendable {
        package var maxRedirects: Int
        package var maxConnectionsPerHost: Int?
        package var tlsMinimum: String?
        package var tlsMaximum: String?
        package var proxy: String?
        package var cookieAcceptPolicy: String?

        package init(
            maxRedirects: Int, maxConnectionsPerHost: Int? = nil, tlsMinimum: String? = nil, tlsMaximum: String? = nil, proxy: String? = nil,
            cookieAcceptPolicy: String? = nil
        ) {
            self.maxRedirects = maxRedirects
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.tlsMinimum = tlsMinimum
            self.tlsMaximum = tlsMaximum
            self.proxy = proxy
            self.cookieAcceptPolicy = cookieAcceptPolicy
        }
    }

    package func engineKey(maxRedirects: Int) -> EngineKey {
        EngineKey(
            maxRedirects: maxRedirects, maxConnectionsPerHost: maxConnectionsPerHost, tlsMinimum: tlsMinimum, tlsMaximum: tlsMaximum,
            proxy: proxy, cookieAcceptPolicy: cookieAcceptPolicy)
    }
}

extension SessionSettings.EngineKey {
    /// The engine configuration for this key; values were validated when the session was created.
    package func apply(to configuration: inout SessionConfiguration) {
        configuration.maximumRedirects = maxRedirects
        if let maxConnectionsPerHost { configuration.maximumConnectionsPerHost = maxConnectionsPerHost }
        configuration.tlsMinimumVersion = tlsMinimum.flatMap(SessionConfiguration.TLSVersion.init(rawValue:))
        configuration.tlsMaximumVersion = tlsMaximum.flatMap(SessionConfiguration.TLSVersion.init(rawValue:))
        configuration.proxy = proxy.flatMap(SessionConfiguration.Proxy.init(url:))
        configuration.httpCookieAcceptPolicy = cookieAcceptPolicy.flatMap(CookieAcceptPolicy.init(apiName:))
    }
}
