import Foundation
import Synchronization

/// Jobs this process read in the last `lifetime`, for `GET /v1/jobs/{id}`: clients poll a job's
/// status many times a second, and its progress is written once a second anyway, so answering a
/// poll from a read 200 ms old costs them nothing and saves a query each. Controls and deletes made
/// through this process forget the job at once; changes made elsewhere show within `lifetime`.
final class RecentJobs: Sendable {
    static let lifetime = Duration.milliseconds(200)
    static let capacity = 10_000

    private struct Entry {
        var job: JobRecord
        var expires: ContinuousClock.Instant
    }

    private let entries = Mutex<[UUID: Entry]>([:])

    /// The job as recently read, if it is in `scope` (another tenant's job is never returned).
    func job(_ id: UUID, scope: JobStore.Scope) -> JobRecord? {
        let now = ContinuousClock.now
        return entries.withLock { entries in
            guard let entry = entries[id], entry.expires > now else { return nil }
            if let tenant = scope.tenantID, entry.job.tenantID != tenant { return nil }
            return entry.job
        }
    }

    func remember(_ job: JobRecord) {
        let now = ContinuousClock.now
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries = entries.filter { $0.value.expires > now } }
            if entries.count >= Self.capacity { entries.removeAll() }
            entries[job.id] = Entry(job: job, expires: now + Self.lifetime)
        }
    }

    func forget(_ id: UUID) {
        _ = entries.withLock { $0.removeValue(forKey: id) }
    }
}
