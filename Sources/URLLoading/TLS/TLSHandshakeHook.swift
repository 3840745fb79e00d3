import Foundation
internal import CCurl
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
    private var handle: OpaquePointer?
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

    /// Sets up trust and client-certificate handling of a TLS request on `easy`; nil when curl's own
    /// handling is all it needs. The server's own pins and CAs are curl's to enforce (`HostTrustOptions`).
    /// Without a delegate or per-host certificates no trust callback is installed: default evaluation
    /// is exactly curl's (TLS-02).
    static func install(on easy: EasyHandle, request: TransferRequest, session: Session) throws(TransferError) -> TLSHandshakeHook? {
        let configuration = session.configuration
        let scheme = request.url.scheme?.lowercased() ?? ""
        guard scheme == "https" || scheme == "ftps", let host = request.url.host?.lowercased() else { return nil }
        let server = ConnectionDecisions.Server(
            host: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")),
            port: request.url.port ?? (scheme == "https" ? 443 : 990))
        try HostTrustOptions.apply(to: easy, configuration: configuration, server: server, url: request.url)
        let decisions = session.connectionDecisions
        let asksDelegate = session.delegate != nil

        // Without an identity, a server's request for one is watched: the delegate may supply one, and
        // a failure after going on without one is explained (TLS 1.3 servers refuse after the handshake).
        var watchesClientCertificate = false
        if configuration.clientIdentity == nil {
            if let configured = configuration.hostClientIdentities.first(where: { $0.applies(to: server) }) {
                try configured.identity.apply(to: easy)
            } else if case .use(let identity) = decisions.identityAnswer(for: server) {
                try identity.apply(to: easy)
            } else {
                watchesClientCertificate = true
            }
        }
        let trustedCertificates = configuration.trustedServerCertificates.filter { $0.applies(to: server) }.map(\.certificate)
        let decidesTrust = !configuration.skipsServerTrustEvaluation && (asksDelegate || !trustedCertificates.isEmpty)
        guard decidesTrust || watchesClientCertificate else { return nil }

        if decidesTrust {
            // curl reuses a connection (and resumes a TLS session) for any transfer whose TLS settings
            // compare equal, and the SSL context hook is not among them: without a difference, a session
            // without a delegate could ride on a connection this session's delegate accepted. NO_REVOKE
            // only affects Schannel, so for OpenSSL it is nothing but that difference.
            try easy.set(CURLOPT_SSL_OPTIONS, Int(CURLSSLOPT_NO_REVOKE), "CURLOPT_SSL_OPTIONS")
            // Two sessions that both decide trust still compare equal, and the loops' pool serves every
            // session: a connection this session's certificates or delegate accepted must not serve
            // another one (in the gateway, another tenant) that never trusted that server. Closed after
            // its transfer; the next transfer evaluates its own handshake.
            try easy.set(CURLOPT_FORBID_REUSE, 1, "CURLOPT_FORBID_REUSE")
        }
        let checksHostItself = decidesTrust && (!trustedCertificates.isEmpty || decisions.trustsSomeCertificate(of: server))
        if checksHostItself { try easy.set(CURLOPT_SSL_VERIFYHOST, 0, "CURLOPT_SSL_VERIFYHOST") }
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
        let code = ferry_tls_hook_install(easy.raw, handle)
        guard code == Int32(CURLE_OK.rawValue) else {
            hook.hopEnded()
            throw TransferError(.secureConnectionFailed, "libcurl refused the TLS hook (CURLOPT_SSL_CTX_FUNCTION)",
                                failingURL: request.url, curlCode: Int(code))
        }
        return hook
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

extension ClientIdentity {
    /// Makes curl present this identity (TLS-11, AU-17); curl copies the bytes.
    func apply(to easy: EasyHandle) throws(TransferError) {
        switch self {
        case .pem(let certificate, let privateKey, let passphrase):
            try easy.set(CURLOPT_SSLCERT_BLOB, blob: certificate, "CURLOPT_SSLCERT_BLOB")
            try easy.set(CURLOPT_SSLCERTTYPE, string: "PEM", "CURLOPT_SSLCERTTYPE")
            try easy.set(CURLOPT_SSLKEY_BLOB, blob: privateKey, "CURLOPT_SSLKEY_BLOB")
            try easy.set(CURLOPT_SSLKEYTYPE, string: "PEM", "CURLOPT_SSLKEYTYPE")
            if let passphrase { try easy.set(CURLOPT_KEYPASSWD, string: passphrase, "CURLOPT_KEYPASSWD") }
        case .pkcs12(let bundle, let passphrase):
            try easy.set(CURLOPT_SSLCERT_BLOB, blob: bundle, "CURLOPT_SSLCERT_BLOB")
            try easy.set(CURLOPT_SSLCERTTYPE, string: "P12", "CURLOPT_SSLCERTTYPE")
            if let passphrase { try easy.set(CURLOPT_KEYPASSWD, string: passphrase, "CURLOPT_KEYPASSWD") }
        }
    }
}
