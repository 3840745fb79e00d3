import Foundation

/// A live background session's hold on its identifier in this process, and on its store (BG-23,
/// SES-13): two sessions taking up the same outstanding tasks would run each twice and fight over
/// their files. The seeds leave that undefined; Ferry refuses the second session until the first is
/// invalidated (or released).
final class BackgroundSessionClaim: Sendable {
    let identifier: String
    let store: any BackgroundTaskStore
    private let released = Locked(false)

    private static let liveIdentifiers = Locked<Set<String>>([])

    /// Claims `identifier`, then `store`; throws when either is taken.
    init(identifier: String, store: any BackgroundTaskStore) throws(ConfigurationError) {
        let claimed = Self.liveIdentifiers.withLock { $0.insert(identifier).inserted }
        guard claimed else {
            throw ConfigurationError(
                "a session with background identifier '\(identifier)' is already live in this process; "
                    + "invalidate it before making another (BG-23, SES-13)")
        }
        do throws(BackgroundTaskStoreError) {
            try store.claim()
        } catch {
            _ = Self.liveIdentifiers.withLock { $0.remove(identifier) }
            throw ConfigurationError("background session '\(identifier)': \(error.description)")
        }
        self.identifier = identifier
        self.store = store
    }

    /// Gives the identifier and the store back; later calls do nothing.
    func release() {
        let first = released.withLock { released -> Bool in
            defer { released = true }
            return !released
        }
        guard first else { return }
        store.relinquish()
        _ = Self.liveIdentifiers.withLock { $0.remove(identifier) }
    }

    deinit { release() }
}
