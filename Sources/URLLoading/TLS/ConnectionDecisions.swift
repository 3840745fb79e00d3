import Foundation

/// Answers to connection-level challenges (server trust, client certificate), kept for the session's
/// life: a handled session-wide challenge stays in effect for every task of the session (AU-07).
///
/// Only answers that let a connection go ahead are kept; a rejection or cancellation ends one task, and
/// the next task asks again.
final class ConnectionDecisions: Sendable {
    /// A TLS server as a connection sees it.
    struct Server: Hashable, Sendable, CustomStringConvertible {
        var host: String
        var port: Int
        var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    enum TrustAnswer: Sendable, Equatable {
        /// The delegate trusts this leaf certificate for this server (TLS-07).
        case trust
        /// Default evaluation decides (TLS-02).
        case evaluateByDefault
    }

    enum IdentityAnswer: Sendable, Equatable {
        case use(ClientIdentity)
        case continueWithout
    }

    private struct State {
        var trust: [Server: [Data: TrustAnswer]] = [:]
        var identities: [Server: IdentityAnswer] = [:]
    }

    private let state = Locked(State())

    func trustAnswer(for server: Server, leaf: Data) -> TrustAnswer? {
        state.withLock { $0.trust[server]?[leaf] }
    }

    /// Whether the delegate trusted some certificate of this server outright: its connections then check
    /// host names themselves, because an accepted certificate need not name the host.
    func trustsSomeCertificate(of server: Server) -> Bool {
        state.withLock { $0.trust[server]?.values.contains(.trust) ?? false }
    }

    func record(_ answer: TrustAnswer, for server: Server, leaf: Data) {
        state.withLock { $0.trust[server, default: [:]][leaf] = answer }
    }

    func identityAnswer(for server: Server) -> IdentityAnswer? {
        state.withLock { $0.identities[server] }
    }

    func record(_ answer: IdentityAnswer, for server: Server) {
        state.withLock { $0.identities[server] = answer }
    }
}
