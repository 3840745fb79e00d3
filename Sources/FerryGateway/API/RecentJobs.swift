import Foundation
import Hummingbird
import Synchronization

/// Jobs this process read in the last `lifetime`, for `GET /v1/jobs/{id}`: clients poll a job's
/// status many times a second, and its progress is written once a second anyway, so answering a
/// poll from a read 200 ms old costs them nothing and saves a query each. Controls and deletes made
/// through this process forget the job at once; changes made elsewhere show within `lifetime`.
final class RecentJobs: Sendable {
    static let lifetime = Duration.milliseconds(200)
    static let capacity = 10_000

    private struct Key: Hashable {
        var id: UUID
        /// The admin's view says whose job it is; a tenant's does not.
        var showsTenant: Bool
    }

    private struct Entry {
        var tenant: UUID
        /// The view as encoded, so a poll costs neither a query nor an encoding.
        var body: ByteBuffer
        var expires: ContinuousClock.Instant
    }

    private let entries = Mutex<[Key: Entry]>([:])

    /// The job's view as recently encoded, if it is in `scope` (another tenant's job is never returned).
    func body(_ id: UUID, showsTenant: Bool, scope: JobStore.Scope) -> ByteBuffer? {
        let now = ContinuousClock.now
        return entries.withLock { entries in
            guard let entry = entries[Key(id: id, showsTenant: showsTenant)], entry.expires > now else { return nil }
            if let tenant = scope.tenantID, entry.tenant != tenant { return nil }
            return entry.body
        }
    }

    func remember(_ body: ByteBuffer, of job: JobRecord, showsTenant: Bool) {
        let now = ContinuousClock.now
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries = entries.filter { $0.value.expires > now } }
            if entries.count >= Self.capacity { entries.removeAll() }
            entries[Key(id: job.id, showsTenant: showsTenant)] = Entry(tenant: job.tenantID, body: body, expires: now + Self.lifetime)
        }
    }

    func forget(_ id: UUID) {
        entries.withLock { entries in
            entries[Key(id: id, showsTenant: false)] = nil
            entries[Key(id: id, showsTenant: true)] = nil
        }
    }
}
