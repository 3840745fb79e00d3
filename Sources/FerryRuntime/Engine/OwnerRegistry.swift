import Synchronization

/// What is kept per owner (an engine session per owner and settings, a session's cookie jar, a
/// tenant's cache), made on first use, with the least recently used let go beyond `capacity`:
/// tenants create sessions and choose settings, and must not make this grow without bound. A value
/// that `mayForget` says is still needed (a jar with changes not yet written) is kept regardless;
/// one that is let go is handed to `letGo` outside the lock.
final class OwnerRegistry<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct State {
        var values: [Key: Value] = [:]
        var lastUsed: [Key: UInt64] = [:]
        var clock: UInt64 = 0
    }

    private let state = Mutex(State())
    private let capacity: Int
    private let mayForget: @Sendable (Value) -> Bool
    private let letGo: @Sendable (Value) -> Void

    init(
        capacity: Int, mayForget: @escaping @Sendable (Value) -> Bool = { _ in true },
        letGo: @escaping @Sendable (Value) -> Void = { _ in }
    ) {
        self.capacity = capacity
        self.mayForget = mayForget
        self.letGo = letGo
    }

    /// The value for `key`, made with `make` when there is none.
    func value<Failure: Error>(for key: Key, make: () throws(Failure) -> Value) throws(Failure) -> Value {
        let (value, forgotten) = try state.withLock { state throws(Failure) -> (Value, Value?) in
            state.clock += 1
            state.lastUsed[key] = state.clock
            if let value = state.values[key] { return (value, nil) }
            let value = try make()
            state.values[key] = value
            guard state.values.count > capacity else { return (value, nil) }
            let candidates = state.lastUsed.filter { $0.key != key }.sorted { $0.value < $1.value }
            guard let victim = candidates.first(where: { state.values[$0.key].map(mayForget) ?? true })?.key else {
                return (value, nil)
            }
            state.lastUsed[victim] = nil
            return (value, state.values.removeValue(forKey: victim))
        }
        if let forgotten { letGo(forgotten) }
        return value
    }

    /// The value for `key` if there is one, without making it.
    func existing(_ key: Key) -> Value? {
        state.withLock { $0.values[key] }
    }

    /// Every value kept now.
    var all: [Value] {
        state.withLock { Array($0.values.values) }
    }
}
