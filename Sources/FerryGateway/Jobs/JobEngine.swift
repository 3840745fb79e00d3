import Foundation
import Synchronization
import URLLoading

/// The engine sessions workers run jobs in: one per redirect limit (the only session setting a job
/// chooses today; timeouts are per request), all sharing the engine's loops and so its connections,
/// and all behind the SSRF guard.
public final class JobEngine: Sendable {
    private let sessions = Mutex<[Int: Session]>([:])
    private let connectionPolicy: ConnectionPolicy?

    public init(allowPrivateNetworks: Bool) {
        connectionPolicy = DestinationPolicy.connectionPolicy(allowPrivateNetworks: allowPrivateNetworks)
    }

    /// The session for jobs that follow at most `maxRedirects` redirects (0: none).
    public func session(maxRedirects: Int) throws -> Session {
        try sessions.withLock { sessions in
            if let session = sessions[maxRedirects] { return session }
            var configuration = SessionConfiguration.default
            configuration.maximumRedirects = maxRedirects
            configuration.connectionPolicy = connectionPolicy
            let session = try Session(configuration: configuration)
            sessions[maxRedirects] = session
            return session
        }
    }

    /// Ends every session, cancelling what still runs (ferryd exiting).
    public func invalidateAll() {
        for session in sessions.withLock({ Array($0.values) }) { session.invalidateAndCancel() }
    }
}
