import FerryStore
import Foundation
import Hummingbird
import Synchronization

/// Jobs this process read in the last `lifetime`, for `GET /v1/jobs/{id}`: clients poll a job's
/// status many times a second, and its progress is written once a second anyway, so answering a
/// poll from a read 200 ms old costs them nothing and saves a query each. Controls and deletes made
/// through this process forget the job at once; changes made elsewhere show within `lifetime`.
///
/// When a job's view expires, the polls arriving meanwhile share one read instead of each sending
/// its own: 64 clients polling one job all missed at the same moment every 200 ms and queued 64
/// queries, which made the P4 bench's 99th percentile three times its median.
final class RecentJobs: Sendable {
    static let lifetime = Duration.milliseconds(200)
    static let capacity = 10_000

    /// Reads a job for a poll: its encoded view and whose job it is, or nil when the caller may not see it.
    typealias Read = @Sendable () async throws -> (body: ByteBuffer, tenant: UUID)?

    private struct Key: Hashable {
        var id: UUID
        /// The admin's view says whose job it is; a tenant's does not.
        var showsTenant: Bool
    }

    /// A read in flight is shared only by callers with the same scope: another tenant's read of the
    /// same id finds nothing, which says nothing about this tenant's.
    private struct Flight: Hashable {
        var key: Key
        var tenant: UUID?
    }

    private struct Entry {
        var tenant: UUID
        /// The view as encoded, so a poll costs neither a query nor an encoding.
        var body: ByteBuffer
        var expires: ContinuousClock.Instant
    }

    private let entries = Mutex<[Key: Entry]>([:])
    private let flights = Mutex<[Flight: Task<ByteBuffer?, any Error>]>([:])
    /// Counts `forget` calls: a read that started before one may have seen the job as it was, and is
    /// not remembered.
    private let forgets = Atomic<UInt64>(0)

    /// The job's view as recently encoded, or as `read` (shared with concurrent polls) finds it now;
    /// nil when the job is not in `scope` (another tenant's job is never returned).
    func body(_ id: UUID, showsTenant: Bool, scope: JobStore.Scope, read: @escaping Read) async throws -> ByteBuffer? {
        let key = Key(id: id, showsTenant: showsTenant)
        if let body = recentBody(key, scope: scope) { return body }
        let flight = Flight(key: key, tenant: scope.tenantID)
        let task = flights.withLock { inFlight in
            if let running = inFlight[flight] { return running }
            let forgetsBefore = forgets.load(ordering: .acquiring)
            // Not a child of this request: its cancellation must not fail the polls sharing the read.
            let task = Task { [self] () async throws -> ByteBuffer? in
                defer { _ = flights.withLock { $0.removeValue(forKey: flight) } }
                guard let (body, tenant) = try await read() else { return nil }
                if forgets.load(ordering: .acquiring) == forgetsBefore { remember(body, key: key, tenant: tenant) }
                return body
            }
            inFlight[flight] = task
            return task
        }
        return try await task.value
    }

    private func recentBody(_ key: Key, scope: JobStore.Scope) -> ByteBuffer? {
        let now = ContinuousClock.now
        return entries.withLock { entries in
            guard let entry = entries[key], entry.expires > now else { return nil }
            if let tenant = scope.tenantID, entry.tenant != tenant { return nil }
            return entry.body
        }
    }

    private func remember(_ body: ByteBuffer, key: Key, tenant: UUID) {
        let now = ContinuousClock.now
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries = entries.filter { $0.value.expires > now } }
            if entries.count >= Self.capacity { entries.removeAll() }
            entries[key] = Entry(tenant: tenant, body: body, expires: now + Self.lifetime)
        }
    }

    func forget(_ id: UUID) {
        forgets.add(1, ordering: .releasing)
        entries.withLock { entries in
            entries[Key(id: id, showsTenant: false)] = nil
            entries[Key(id: id, showsTenant: true)] = nil
        }
    }
}
