import FerryModel
import Foundation
import URLLoading

/// The body of `POST /v1/sessions`, and its validation into the stored `SessionSettings`.
struct SessionSubmission: Decodable {
    var kind: String?
    var configuration: ConfigurationPart?

    struct ConfigurationPart: Decodable {
        var timeouts: TimeoutsPart?
        var maxConnectionsPerHost: Int?
        var additionalHeaders: [String: String]?
        var tls: TLSPart?
        var proxy: String?
        var cachePolicy: String?
        var decisions: DecisionsPart?
        var cookieAcceptPolicy: String?

        enum CodingKeys: String, CodingKey {
            case cookieAcceptPolicy = "cookie_accept_policy"
            case timeouts
            case maxConnectionsPerHost = "max_connections_per_host"
            case additionalHeaders = "additional_headers"
            case tls, proxy, decisions
            case cachePolicy = "cache_policy"
        }
    }

    struct TimeoutsPart: Decodable {
        var idle: Double?
    }

    struct TLSPart: Decodable {
        var minimum: String?
        var maximum: String?
    }

    /// The seeds' three configurations. `ephemeral` keeps its cookies and cached responses in the
    /// memory of the ferryd running its jobs only, never in the database or on disk (SES-03).
    static let kinds = ["default", "ephemeral", "background"]

    func validated() throws(Problem) -> (kind: String, settings: SessionSettings) {
        var errors: [Problem.FieldError] = []
        func problem(_ field: String, _ message: String) { errors.append(.init(field: field, message: message)) }
        let kind = self.kind ?? "default"
        if !Self.kinds.contains(kind) { problem("kind", "must be default, ephemeral or background") }
        let configuration = self.configuration
        if let idle = configuration?.timeouts?.idle, !(idle > 0 && idle <= 3600) {
            problem("configuration.timeouts.idle", "must be more than 0 and at most 3600 seconds")
        }
        if let count = configuration?.maxConnectionsPerHost, !(1...64).contains(count) {
            problem("configuration.max_connections_per_host", "must be from 1 to 64")
        }
        var headers: [JobSpecification.Header] = []
        if (configuration?.additionalHeaders?.count ?? 0) > JobSubmission.maximumHeaders {
            problem("configuration.additional_headers", "at most \(JobSubmission.maximumHeaders) headers")
        }
        if let message = JobSubmission.headerBytesProblem(configuration?.additionalHeaders ?? [:]) {
            problem("configuration.additional_headers", message)
        }
        for (name, value) in (configuration?.additionalHeaders ?? [:]).sorted(by: { $0.key.lowercased() < $1.key.lowercased() }) {
            if let message = JobSubmission.headerProblem(name: name, value: value) {
                problem("configuration.additional_headers.\(name)", message)
            } else {
                headers.append(.init(name: name, value: value))
            }
        }
        let minimum = configuration?.tls?.minimum
        let maximum = configuration?.tls?.maximum
        for (field, value) in [("minimum", minimum), ("maximum", maximum)] {
            if let value, SessionConfiguration.TLSVersion(rawValue: value) == nil {
                problem("configuration.tls.\(field)", "must be 1.0, 1.1, 1.2 or 1.3")
            }
        }
        if let low = minimum.flatMap(SessionConfiguration.TLSVersion.init(rawValue:)),
            let high = maximum.flatMap(SessionConfiguration.TLSVersion.init(rawValue:)), low > high
        {
            problem("configuration.tls", "minimum is above maximum")
        }
        if let proxy = configuration?.proxy, proxy.utf8.count > SubmittedURL.maximumLength {
            problem("configuration.proxy", "is longer than \(SubmittedURL.maximumLength) bytes")
        } else if let proxy = configuration?.proxy, SessionConfiguration.Proxy(url: proxy) == nil {
            problem("configuration.proxy", "must be http://host:port or socks5h://host:port (credentials as user:password@)")
        }
        if let cachePolicy = configuration?.cachePolicy, RequestCachePolicy(apiName: cachePolicy) == nil {
            problem("configuration.cache_policy", RequestCachePolicy.apiNameProblem)
        }
        if let policy = configuration?.cookieAcceptPolicy, CookieAcceptPolicy(apiName: policy) == nil {
            problem("configuration.cookie_accept_policy", CookieAcceptPolicy.apiNameProblem)
        }
        let decisions = configuration?.decisions?.validated(field: "configuration.decisions", errors: &errors)
        guard errors.isEmpty else { throw Problem.invalid(errors) }
        return (kind, SessionSettings(
            idleTimeout: configuration?.timeouts?.idle, maxConnectionsPerHost: configuration?.maxConnectionsPerHost,
            additionalHeaders: headers, tlsMinimum: minimum, tlsMaximum: maximum, proxy: configuration?.proxy,
            cachePolicy: configuration?.cachePolicy, decisions: decisions, cookieAcceptPolicy: configuration?.cookieAcceptPolicy))
    }
}
