import FerryModel
import Foundation
import URLLoading

/// The body of `POST /v1/sessions`, and its validation into the stored `SessionSettings`.
struct SessionSubmission: Decodable {
    var kind: String?
    /// A background session's name, chosen by the client (BG-12, BG-15).
    var identifier: String?
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
        var discretionary: Bool?
        var notBefore: String?
        var sendsLaunchEvents: Bool?
        var callback: JobSubmission.CallbackPart?

        enum CodingKeys: String, CodingKey {
            case cookieAcceptPolicy = "cookie_accept_policy"
            case discretionary, callback
            case notBefore = "not_before"
            case sendsLaunchEvents = "sends_launch_events"
            case timeouts
            case maxConnectionsPerHost = "max_connections_per_host"
            case additionalHeaders = "additional_headers"
            case tls, proxy, decisions
            case cachePolicy = "cache_policy"
        }
    }

    struct TimeoutsPart: Decodable {
        var idle: Double?
        /// A background session's: how long its jobs keep being retried after network errors.
        var resource: Double?
    }

    struct TLSPart: Decodable {
        var minimum: String?
        var maximum: String?
    }

    /// The seeds' three configurations. `ephemeral` keeps its cookies and cached responses in the
    /// memory of the ferryd running its jobs only, never in the database or on disk (SES-03).
    static let kinds = ["default", "ephemeral", "background"]

    /// Background sessions only: what a default or ephemeral session has no use for is refused,
    /// not silently dropped.
    static let backgroundFields = [
        "configuration.timeouts.resource", "configuration.discretionary", "configuration.not_before",
        "configuration.sends_launch_events", "configuration.callback",
    ]

    func validated(urlPolicy: OutboundURLPolicy) throws(Problem) -> (kind: String, identifier: String?, settings: SessionSettings) {
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
        let background = kind == "background" ? backgroundSettings(decisions: decisions, urlPolicy: urlPolicy, problem: problem) : nil
        if kind != "background" {
            if identifier != nil { problem("identifier", "only a background session has an identifier") }
            let given = [
                configuration?.timeouts?.resource != nil, configuration?.discretionary != nil, configuration?.notBefore != nil,
                configuration?.sendsLaunchEvents != nil, configuration?.callback != nil,
            ]
            for (field, isGiven) in zip(Self.backgroundFields, given) where isGiven {
                problem(field, "applies to background sessions only")
            }
        }
        guard errors.isEmpty else { throw Problem.invalid(errors) }
        return (kind, kind == "background" ? identifier : nil, SessionSettings(
            idleTimeout: configuration?.timeouts?.idle, maxConnectionsPerHost: configuration?.maxConnectionsPerHost,
            additionalHeaders: headers, tlsMinimum: minimum, tlsMaximum: maximum, proxy: configuration?.proxy,
            cachePolicy: configuration?.cachePolicy, decisions: decisions, cookieAcceptPolicy: configuration?.cookieAcceptPolicy,
            background: background))
    }

    /// The identifier (1 to 255 visible ASCII bytes, as `sessions.identifier` checks) and the
    /// background settings, with the restrictions the seeds give background sessions (BG-04, RD-07).
    private func backgroundSettings(
        decisions: DecisionPolicy?, urlPolicy: OutboundURLPolicy, problem: (String, String) -> Void
    ) -> BackgroundSettings {
        switch identifier {
        case nil: problem("identifier", "is required for a background session: the name a client rejoins it by")
        case let text? where text.utf8.isEmpty || text.utf8.count > 255 || !text.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }):
            problem("identifier", "must be 1 to 255 visible ASCII characters without spaces")
        default: break
        }
        if decisions?.redirect == .ask {
            problem("configuration.decisions.redirect", "a background session always follows redirects, without asking (RD-07, BG-04)")
        }
        let configuration = self.configuration
        let resource = configuration?.timeouts?.resource ?? BackgroundSettings.defaultResourceTimeout
        if !(resource >= 1 && resource <= BackgroundSettings.defaultResourceTimeout) {
            problem("configuration.timeouts.resource", "must be from 1 to 604800 seconds (7 days, the default)")
        }
        var notBefore: Date?
        if let text = configuration?.notBefore {
            notBefore = EarliestStart.parse(text)
            if notBefore == nil { problem("configuration.not_before", EarliestStart.problem) }
        }
        var callbackURL: String?
        if let callback = configuration?.callback {
            if let message = SubmittedURL.problem(callback.url ?? "", policy: urlPolicy, webOnly: true) {
                problem("configuration.callback.url", message)
            } else {
                callbackURL = callback.url
            }
        }
        return BackgroundSettings(
            resourceTimeout: resource, discretionary: configuration?.discretionary ?? false, notBefore: notBefore.map(JobView.timestamp),
            sendsLaunchEvents: configuration?.sendsLaunchEvents ?? true, callbackURL: callbackURL)
    }
}
