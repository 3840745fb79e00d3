import Foundation
import Synchronization

/// How full each tenant's queue was when a submission last counted it, so that submissions far
/// below the limit need not count it again.
///
/// Counting a tenant's waiting jobs reads every one of them (about a millisecond per thousand), and
/// every submission counted: filling a queue of n jobs read n²/2 rows. A count is trusted for
/// `lifetime`, and only while it plus the jobs submitted here since stays within half the limit;
/// any other submission counts again. The limit stays as exact as it was: two submissions counting
/// at the same moment could always each find the last free place.
final class QueueRoomEstimates: Sendable {
    static let lifetime = Duration.seconds(1)
    static let capacity = 10_000

    private struct Entry {
        /// Waiting jobs when counted, the counting submission's own included.
        var counted: Int64
        var limit: Int64
        var submittedSince: Int64 = 0
        var countedAt: ContinuousClock.Instant
    }

    private let entries = Mutex<[UUID: Entry]>([:])

    /// Whether a submission for `tenant` may skip counting; when it may, it is counted as submitted.
    func maySkipCount(tenant: UUID, now: ContinuousClock.Instant = .now) -> Bool {
        entries.withLock { entries in
            guard var entry = entries[tenant], now - entry.countedAt < Self.lifetime,
                  (entry.counted + entry.submittedSince + 1) * 2 <= entry.limit
            else { return false }
            entry.submittedSince += 1
            entries[tenant] = entry
            return true
        }
    }

    /// What a counting submission found, its own job included.
    func record(tenant: UUID, waiting: Int64, limit: Int64, now: ContinuousClock.Instant = .now) {
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries = entries.filter { now - $0.value.countedAt < Self.lifetime } }
            if entries.count >= Self.capacity { entries.removeAll() }
            entries[tenant] = Entry(counted: waiting, limit: limit, countedAt: now)
        }
    }
}
