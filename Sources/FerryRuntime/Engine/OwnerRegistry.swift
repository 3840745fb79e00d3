import Synchronization

/// What an outfitter keeps per owner (a session's cookie jar, a tenant's cache), made on first use,
/// with the least recently used let go beyond `capacity`: tenants create sessions, and must not make
/// this grow without bound. A value that `mayForget` says is still needed (a jar with changes not yet
/// written) is kept regardless.
final class OwnerRegistry<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct State {
        var values: [Key: Value] = [:]
        var lastUsed: [Key: UInt64] = [:]
        var clock: UInt64 = 0
    }

    private let state = Mutex(State())
    private let capacity: Int
    private let mayForget: @Sendable (Value) -> Bool

    init(capacity: Int, mayForget: @escaping @Sendable (Value) -> Bool = { _ in true }) {
        self.capacity = capacity
        self.mayForget = mayForget
    }

    /// The value for `key`, made with `make` when there is none.
    func value(for key: Key, make: () -> Value) -> Value {
        state.withLock { state in
            state.clock += 1
            state.lastUsed[key] = state.clock
            if let value = state.values[key] { return value }
            let value = make()
            state.values[key] = value
            if state.values.count > capacity {
                let candidates = state.lastUsed.filter { $0.key != key }.sorted { $0.value < $1.value }
                if let victim = candidates.first(where: { state.values[$0.key].map(mayForget) ?? true })?.key {
                    state.values[victim] = nil
                    state.lastUsed[victim] = nil
                }
            }
            return value
        }
    }

    /// The value for `key` if there is one, without making it.
    func existing(_ key: Key) -> Value? {
        state.withLock { $0.values[key] }
    }
}
