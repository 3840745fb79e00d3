import Foundation
internal import CFerryTLS

/// One hop's say in its TLS handshakes: which chains to trust, and whether to go on when the server
/// asks for a client certificate none was configured for (TLS-01, TLS-11).
///
/// The OpenSSL callbacks decide synchronously, inside curl on the loop thread, from what is known now:
/// the session's built-in policies, answers the session already has (AU-07), or default evaluation when
/// there is no delegate (TLS-02). What only the delegate can answer is recorded here and the handshake
/// fails; the transfer then asks the delegate (which may take as long as it likes, AU-21) and runs the
/// hop again. No loop thread ever waits for a delegate.
///
/// Loop-confined, like its transfer. The C hook keeps it alive for as long as a connection it prepared
/// stays open.
final class TLSHandshakeHook: @unchecked Sendable {
    /// A challenge only the delegate can answer, recorded by a failed handshake.
    enum Unanswered: Sendable {
        case serverTrust(ServerTrust)
        case clientCertificate
    }

    /// What the transfer does after the delegate answered.
    enum Outcome {
        case retry
        case fail(TransferError)
    }

    let server: ConnectionDecisions.Server
    let scheme: String
    private let decisions: ConnectionDecisions
    private let trustedCertificates: [Data]
    private let asksDelegate: Bool
    /// curl's host name check is off for this hop (an outright trusted certificate need not name the
    /// host), so default evaluation includes OpenSSL's check of the same name.
    private let checksHostItself: Bool
    /// The C hook the option layer installs on the hop's handle; nil once the hop ended.
    private(set) var handle: OpaquePointer?
    private(set) var unanswered: Unanswered?
    /// The server asked for a client certificate and the handshake went on without one.
    private var wentOnWithoutRequestedCertificate = false

    private init(server: ConnectionDecisions.Server, scheme: String, decisions: ConnectionDecisions,
                 trustedCertificates: [Data], asksDelegate: Bool, checksHostItself: Bool) {
        self.server = server
        self.scheme = scheme
        self.decisions = decisions
        self.trustedCertificates = trustedCertificates
        self.asksDelegate = asksDelegate
        self.checksHostItself = checksHostItself
    }

    /// The TLS settings of a TLS request's hop, with a hook when curl's own handling is not all it
    /// needs; nil for other schemes. The server's own pins and CAs are curl's to enforce
    /// (`HostTrustOptions`). Without a delegate or per-host certificates no trust callback is
    /// installed: default evaluation is exactly curl's (TLS-02).
    static func settings(for request: TransferRequest, session: Session) throws(TransferError) -> HopTLSSettings? {
        let configuration = session.configuration
        let scheme = request.url.scheme?.lowercased() ?? ""
        guard scheme == "https" || scheme == "ftps", let host = request.url.host?.lowercased() else { return nil }
        let server = ConnectionDecisions.Server(
            host: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")),
            port: request.url.port ?? (scheme == "https" ? 443 : 990))
        var settings = HopTLSSettings()
        try HostTrustOptions.add(to: &settings, configuration: configuration, server: server, url: request.url)
        let decisions = session.connectionDecisions
        let asksDelegate = session.delegate != nil

        // Without an identity, a server's request for one is watched: the delegate may supply one, and
        // a failure after going on without one is explained (TLS 1.3 servers refuse after the handshake).
        var watchesClientCertificate = false
        if configuration.clientIdentity == nil {
            if let configured = configuration.hostClientIdentities.first(where: { $0.applies(to: server) }) {
                settings.clientIdentity = configured.identity
            } else if case .use(let identity) = decisions.identityAnswer(for: server) {
                settings.clientIdentity = identity
            } else {
                watchesClientCertificate = true
            }
        }
        let trustedCertificates = configuration.trustedServerCertificates.filter { $0.applies(to: server) }.map(\.certificate)
        let decidesTrust = !configuration.skipsServerTrustEvaluation && (asksDelegate || !trustedCertificates.isEmpty)
        guard decidesTrust || watchesClientCertificate else { return settings }

        // curl reuses a connection (and resumes a TLS session) for any transfer whose TLS settings
        // compare equal, and the SSL context hook is not among them: such a connection must not serve
        // a session (in the gateway, another tenant) that never trusted that server.
        settings.isolatesConnection = decidesTrust
        let checksHostItself = decidesTrust && (!trustedCertificates.isEmpty || decisions.trustsSomeCertificate(of: server))
        settings.hookChecksHostName = checksHostItself
        let hook = TLSHandshakeHook(
            server: server, scheme: scheme, decisions: decisions, trustedCertificates: trustedCertificates,
            asksDelegate: asksDelegate, checksHostItself: checksHostItself)
        TLSCallbacks.register()
        let flags = (decidesTrust ? FERRY_TLS_DECIDE_TRUST : 0) | (watchesClientCertificate ? FERRY_TLS_WATCH_CLIENT_CERTIFICATE : 0)
        // The C hook holds this retain until its last reference (the hop's or an open connection's) goes.
        guard let handle = ferry_tls_hook_create(Unmanaged.passRetained(hook).toOpaque(), server.host, flags) else {
            Unmanaged.passUnretained(hook).release()
            throw TransferError(.unknown, "out of memory preparing TLS", failingURL: request.url)
        }
        hook.handle = handle
        settings.hook = hook
        return settings
    }

    /// The hop's handle is gone: give up its reference (open connections keep theirs).
    func hopEnded() {
        guard let handle else { return }
        self.handle = nil
        ferry_tls_hook_release(handle)
    }

    // MARK: - Inside the handshake

    func decideTrust(chain: [Data], chainVerified: Bool, chainError: String?, hostMatches: Bool) -> Bool {
        guard let leaf = chain.first else { return false }
        if trustedCertificates.contains(leaf) { return true }
        let byDefault = chainVerified && (hostMatches || !checksHostItself)
        switch decisions.trustAnswer(for: server, leaf: leaf) {
        case .trust: return true
        case .evaluateByDefault: return byDefault
        case nil: break
        }
        guard asksDelegate else { return byDefault }
        let failure = chainError ?? (hostMatches ? nil : "the certificate is not valid for \(server.host)")
        unanswered = .serverTrust(ServerTrust(host: server.host, certificateChain: chain, defaultEvaluationFailure: failure))
        return false
    }

    /// Whether to go on without a client certificate.
    func continuesWithoutClientCertificate() -> Bool {
        guard asksDelegate, decisions.identityAnswer(for: server) == nil else {
            wentOnWithoutRequestedCertificate = true
            return true
        }
        unanswered = .clientCertificate
        return false
    }

    /// A hop that failed before any response, after going on without the client certificate the server
    /// asked for: with TLS 1.3 the server's refusal arrives after the client's side of the handshake,
    /// and curl often sees only a closed connection.
    func explaining(_ error: TransferError, responseStarted: Bool) -> TransferError {
        guard wentOnWithoutRequestedCertificate, !responseStarted,
              [.networkConnectionLost, .secureConnectionFailed].contains(error.code) else { return error }
        var explained = error
        explained.code = .clientCertificateRejected
        explained.message = "the server requires a client certificate and none was presented"
        return explained
    }

    // MARK: - After the handshake failed

    /// The challenge for what the handshake left unanswered, once; nil when nothing is left.
    func takeChallenge() -> (Unanswered, AuthenticationChallenge)? {
        guard let pending = unanswered else { return nil }
        unanswered = nil
        switch pending {
        case .serverTrust(let trust):
            let space = ProtectionSpace(host: server.host, port: server.port, scheme: scheme,
                                        authenticationMethod: .serverTrust, serverTrust: trust)
            let error = trust.defaultEvaluationFailure.map { TransferError(.serverCertificateUntrusted, $0) }
            return (pending, AuthenticationChallenge(protectionSpace: space, error: error))
        case .clientCertificate:
            let space = ProtectionSpace(host: server.host, port: server.port, scheme: scheme,
                                        authenticationMethod: .clientCertificate)
            return (pending, AuthenticationChallenge(protectionSpace: space))
        }
    }

    /// Records the delegate's answer session-wide (AU-07) and says what the transfer does next (TLS-07).
    func apply(_ disposition: ChallengeDisposition, to challenge: Unanswered, url: URL) -> Outcome {
        if disposition == .cancel { return .fail(.cancelled(url)) }
        switch challenge {
        case .serverTrust(let trust):
            guard let leaf = trust.certificateChain.first else {
                return .fail(TransferError(.serverCertificateUntrusted, "the server sent no certificate", failingURL: url))
            }
            switch disposition {
            case .useCredential(let credential) where credential.trustsServer:
                decisions.record(.trust, for: server, leaf: leaf)
            case .rejectProtectionSpace:
                return .fail(TransferError(
                    .serverCertificateUntrusted, "the delegate rejected the certificate of \(server)", failingURL: url))
            default:
                decisions.record(.evaluateByDefault, for: server, leaf: leaf)
            }
        case .clientCertificate:
            if case .useCredential(let credential) = disposition, case .identity(let identity) = credential.kind {
                decisions.record(.use(identity), for: server)
            } else {
                decisions.record(.continueWithout, for: server)
            }
        }
        return .retry
    }
}

extension Credential {
    /// A "trust this server" credential (the answer that accepts a server-trust challenge, TLS-07).
    fileprivate var trustsServer: Bool {
        if case .serverTrust = kind { return true }
        return false
    }
}
