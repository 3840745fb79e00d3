import Foundation
import Synchronization
import URLLoading

/// The engine sessions workers run jobs in: one per distinct engine setting (redirect limit, and a
/// gateway session's connection settings), all sharing the engine's loops and all behind the SSRF
/// guard. Timeouts and headers are per request, so they need no session of their own.
public final class JobEngine: Sendable {
    /// Beyond this many distinct settings the least recently used session is let go: tenants choose
    /// settings, and must not make this grow without bound.
    static let capacity = 128

    private struct Cache {
        var sessions: [SessionSettings.EngineKey: Session] = [:]
        var lastUsed: [SessionSettings.EngineKey: UInt64] = [:]
        var clock: UInt64 = 0
    }

    private let cache = Mutex(Cache())
    private let connectionPolicy: ConnectionPolicy?

    public init(allowPrivateNetworks: Bool) {
        connectionPolicy = DestinationPolicy.connectionPolicy(allowPrivateNetworks: allowPrivateNetworks)
    }

    func session(for key: SessionSettings.EngineKey) throws -> Session {
        let (session, evicted) = try cache.withLock { cache -> (Session, Session?) in
            cache.clock += 1
            cache.lastUsed[key] = cache.clock
            if let session = cache.sessions[key] { return (session, nil) }
            var configuration = SessionConfiguration.default
            key.apply(to: &configuration)
            configuration.connectionPolicy = connectionPolicy
            // Sessions are shared by every tenant with the same settings: cookies stay off until each
            // tenant's jar is its own (the engine would otherwise keep them in one shared storage).
            configuration.httpShouldSetCookies = false
            let session = try Session(configuration: configuration)
            cache.sessions[key] = session
            var evicted: Session?
            if cache.sessions.count > Self.capacity, let oldest = cache.lastUsed.min(by: { $0.value < $1.value })?.key {
                evicted = cache.sessions.removeValue(forKey: oldest)
                cache.lastUsed[oldest] = nil
            }
            return (session, evicted)
        }
        // Its running transfers finish; new jobs with its settings get a new session.
        evicted?.finishTasksAndInvalidate()
        return session
    }

    /// Ends every session, cancelling what still runs (ferryd exiting).
    public func invalidateAll() {
        for session in cache.withLock({ Array($0.sessions.values) }) { session.invalidateAndCancel() }
    }
}
