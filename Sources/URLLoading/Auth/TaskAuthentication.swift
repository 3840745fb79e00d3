import Foundation

/// What one task knows about authentication: the credentials answering the server's and the proxy's
/// challenges, and how often each protection space rejected one (AU-19, AU-20). Loop-confined, owned by
/// the task's transfer.
struct TaskAuthentication {
    /// What a 401 or 407 means for the task.
    enum Step {
        /// Not a challenge the engine can answer: the response is the task's.
        case notAChallenge
        /// The Digest nonce went stale; the same credential is sent again with the new one, no question asked.
        case retryNow
        /// Ask the delegate (or default handling) about these spaces, strongest first.
        case ask([OfferedSpace])
        /// The cap on rejected credentials was reached (AU-20).
        case fail(TransferError)
    }

    let maximumFailures: Int
    private(set) var failures: [ProtectionSpace: Int] = [:]
    /// The credential each space rejected last: proposed again when the delegate is asked (AU-19).
    private(set) var rejected: [ProtectionSpace: Credential] = [:]
    /// Stale-nonce retries per space: a server calling every nonce stale must not loop forever either.
    private var staleRetries: [ProtectionSpace: Int] = [:]
    private var server: AuthenticationAnswer?
    private var proxy: AuthenticationAnswer?
    /// Which answers the request now on the wire carries.
    private var sentServer = false
    private var sentProxy = false

    init(maximumFailures: Int) {
        self.maximumFailures = maximumFailures
    }

    mutating func use(_ answer: AuthenticationAnswer) {
        if answer.space.isProxy { proxy = answer } else { server = answer }
    }

    /// The request as it goes on the wire: with the fields of the answers whose space it goes to (set
    /// here, never in the task's request, so a redirect cannot carry them elsewhere), and an http(s)
    /// URL without `user:password@`, which curl would otherwise send as Basic unasked: those are used
    /// only when a challenge asks for them (AU-22).
    mutating func authorizing(_ request: TransferRequest) -> TransferRequest {
        var sent = request
        let scheme = request.url.scheme?.lowercased()
        if scheme == "http" || scheme == "https", request.url.user != nil || request.url.password != nil,
           var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        {
            components.user = nil
            components.password = nil
            if let bare = components.url { sent.url = bare }
        }
        sentServer = Self.authorize(&sent, with: &server)
        sentProxy = Self.authorize(&sent, with: &proxy)
        return sent
    }

    /// The `Proxy-Authorization` line for the CONNECT of a tunnel to `url` (an https request through
    /// an http proxy), when the proxy's challenge was answered; sent to the proxy only, never into the
    /// tunnel. Call after `authorizing(_:)` for the same hop.
    mutating func tunnelProxyHeaderLines(for url: URL) -> [String] {
        guard var answer = proxy, url.scheme?.lowercased() == "https" else { return [] }
        let line = "\(answer.fieldName): \(answer.tunnelFieldValue(for: url))"
        proxy = answer
        sentProxy = true
        return [line]
    }

    /// `user:password@` of an http(s) URL, as a credential for this one task (AU-22).
    static func urlCredential(of url: URL) -> Credential? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false), let user = components.user
        else { return nil }
        return Credential(user: user, password: components.password ?? "", persistence: .none)
    }

    private static func authorize(_ request: inout TransferRequest, with answer: inout AuthenticationAnswer?) -> Bool {
        guard var current = answer, current.applies(to: request.url) else { return false }
        request.headers[current.fieldName] = current.fieldValue(for: request, url: request.url)
        answer = current
        return true
    }

    /// The answers this response accepted, each reported once so its credential is kept as its
    /// persistence says (AU-02, AU-03): sent on this request and not challenged again.
    mutating func newlyAccepted(statusCode: Int?) -> [AuthenticationAnswer] {
        var accepted: [AuthenticationAnswer] = []
        if sentServer, statusCode != 401, var answer = server, !answer.isConfirmed {
            answer.isConfirmed = true
            server = answer
            accepted.append(answer)
        }
        if sentProxy, statusCode != 407, var answer = proxy, !answer.isConfirmed {
            answer.isConfirmed = true
            proxy = answer
            accepted.append(answer)
        }
        return accepted
    }

    /// Reads a response: a 401 with `WWW-Authenticate`, or a 407 with `Proxy-Authenticate` from the
    /// configured proxy, is a challenge (AU-08). When it challenges the space whose credential was just
    /// sent, that credential was rejected: the space's failure count goes up and the cap applies.
    mutating func step(after response: TransferResponse, request: TransferRequest, proxy configuredProxy: SessionConfiguration.Proxy?) -> Step {
        let offered: [OfferedSpace]
        switch response.statusCode {
        case 401:
            guard let host = request.url.host, let scheme = request.url.scheme else { return .notAChallenge }
            offered = OfferedSpace.offered(
                by: ParsedChallenge.parse(fieldValues: response.headers.values(for: "WWW-Authenticate")),
                host: host, port: AuthenticationAnswer.port(of: request.url), scheme: scheme, isProxy: false)
        case 407:
            guard let configuredProxy, configuredProxy.kind == .http else { return .notAChallenge }
            offered = OfferedSpace.offered(
                by: ParsedChallenge.parse(fieldValues: response.headers.values(for: "Proxy-Authenticate")),
                host: configuredProxy.host, port: configuredProxy.port, scheme: "http", isProxy: true)
        default:
            return .notAChallenge
        }
        guard !offered.isEmpty else { return .notAChallenge }
        let isProxy = response.statusCode == 407
        guard (isProxy ? sentProxy : sentServer), var answer = isProxy ? proxy : server,
              let again = offered.first(where: { $0.space == answer.space })
        else { return .ask(offered) }
        if let digest = again.digest, digest.isStale, staleRetries[answer.space, default: 0] < maximumFailures {
            staleRetries[answer.space, default: 0] += 1
            answer.renew(digest)
            use(answer)
            return .retryNow
        }
        if isProxy { proxy = nil } else { server = nil }
        let count = failures[answer.space, default: 0] + 1
        failures[answer.space] = count
        rejected[answer.space] = answer.credential
        guard count < maximumFailures else {
            return .fail(TransferError(
                .userAuthenticationRequired,
                "\(answer.space) rejected \(count) credentials in a row (the session allows \(maximumFailures))",
                failingURL: request.url))
        }
        return .ask(offered)
    }
}
