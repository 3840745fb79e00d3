import FerryModel
import Foundation
import Synchronization

/// Keys this process recently resolved to a caller, so that a client polling a job does not cost a
/// key lookup per request. Only known keys are kept (an unknown key is looked up every time, and
/// cannot fill the cache); entries live `lifetime`, which bounds how long a key revoked through
/// another ferryd still works here.
public final class CallerCache: Sendable {
    public static let lifetime = Duration.seconds(5)
    package static let capacity = 10_000

    private struct Entry {
        var caller: Caller
        var expires: ContinuousClock.Instant
    }

    private let entries = Mutex<[Data: Entry]>([:])

    public init() {}

    package func caller(for hash: Data) -> Caller? {
        let now = ContinuousClock.now
        return entries.withLock { entries in
            guard let entry = entries[hash] else { return nil }
            guard entry.expires > now else {
                entries[hash] = nil
                return nil
            }
            return entry.caller
        }
    }

    package func remember(_ caller: Caller, for hash: Data) {
        let now = ContinuousClock.now
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries = entries.filter { $0.value.expires > now } }
            if entries.count >= Self.capacity { entries.removeAll() }
            entries[hash] = Entry(caller: caller, expires: now + Self.lifetime)
        }
    }

    package func forgetAll() {
        entries.withLock { $0.removeAll() }
    }
}
