import Foundation

/// What a TLS server presented, for a server-trust challenge (TLS-01, TLS-05, TLS-06).
///
/// The engine fills it from the handshake; a delegate decides from it whether to trust the server.
public struct ServerTrust: Sendable, Hashable {
    /// The host name the client asked for (what host name checks compare against).
    public var host: String
    /// The chain as the server sent it, leaf first, DER encoded.
    public var certificateChain: [Data]
    /// Why default evaluation (system trust store + host name check, as curl does it) refused the chain;
    /// nil when it accepted it.
    public var defaultEvaluationFailure: String?

    public init(host: String, certificateChain: [Data], defaultEvaluationFailure: String? = nil) {
        self.host = host
        self.certificateChain = certificateChain
        self.defaultEvaluationFailure = defaultEvaluationFailure
    }
}
