import Foundation

/// A cookie storage in memory (CK-04, CK-08, SES-03). Default sessions share `shared`; each
/// ephemeral session gets one of its own, which dies with it. The gateway fills one per jar from
/// PostgreSQL (`init(cookies:)`) and writes back what `changes()` reports.
public final class InMemoryCookieStorage: CookieStorage {
    /// The process-wide storage of sessions whose configuration names none (CK-04).
    public static let shared = InMemoryCookieStorage()

    private struct State {
        var cookies: [Cookie.Identity: Cookie] = [:]
        var policy: CookieAcceptPolicy
        var subscribers: [UUID: AsyncStream<CookieChange>.Continuation] = [:]
    }

    private let state: Locked<State>

    /// A storage holding `cookies` (expired ones are dropped), e.g. a jar loaded from disk or a database.
    public init(cookies: [Cookie] = [], acceptPolicy: CookieAcceptPolicy = .always) {
        let now = Date()
        var byIdentity: [Cookie.Identity: Cookie] = [:]
        for cookie in cookies where !cookie.isExpired(at: now) { byIdentity[cookie.identity] = cookie }
        state = Locked(State(cookies: byIdentity, policy: acceptPolicy))
    }

    public var acceptPolicy: CookieAcceptPolicy {
        get { state.withLock { $0.policy } }
        set {
            state.withLock { state in
                guard state.policy != newValue else { return }
                state.policy = newValue
                Self.publish([.acceptPolicyChanged(newValue)], to: state)
            }
        }
    }

    /// Drops expired cookies as it goes, reporting them as deleted.
    public var cookies: [Cookie] {
        let now = Date()
        let live = state.withLock { state -> [Cookie] in
            let expired = state.cookies.values.filter { $0.isExpired(at: now) }
            for cookie in expired { state.cookies[cookie.identity] = nil }
            Self.publish(expired.map(CookieChange.deleted), to: state)
            return Array(state.cookies.values)
        }
        return live.sorted { $0.creationDate < $1.creationDate }
    }

    public func setCookie(_ cookie: Cookie) {
        let now = Date()
        state.withLock { state in
            let old = state.cookies[cookie.identity]
            if cookie.isExpired(at: now) {
                state.cookies[cookie.identity] = nil
                Self.publish(old.map { [.deleted($0)] } ?? [], to: state)
                return
            }
            var stored = cookie
            // A replacement keeps the old one's creation time (§5.3 step 11.3), and so its place.
            if let old { stored.creationDate = old.creationDate }
            state.cookies[cookie.identity] = stored
            if old != stored { Self.publish([.stored(stored)], to: state) }
        }
    }

    public func deleteCookie(_ cookie: Cookie) {
        state.withLock { state in
            if let removed = state.cookies.removeValue(forKey: cookie.identity) { Self.publish([.deleted(removed)], to: state) }
        }
    }

    public func changes() -> AsyncStream<CookieChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: CookieChange.self)
        let id = UUID()
        state.withLock { $0.subscribers[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Under the lock, so every subscriber sees the changes in the order they were made (yielding
    /// never blocks).
    private static func publish(_ changes: [CookieChange], to state: State) {
        for subscriber in state.subscribers.values {
            for change in changes { subscriber.yield(change) }
        }
    }
}
