import Foundation
import Synchronization

/// Tenants' storage limits as read lately, for the workers: every attempt of every job asks for its
/// tenant's, and a limit is set when the tenant is created. Without it, each attempt paid one more
/// query (2,000 per bench P3 run). A limit read is kept for `lifetime`.
package final class StorageLimitCache: Sendable {
    package static let lifetime = Duration.seconds(10)

    private struct Entry {
        var limit: Int64?
        var readAt: ContinuousClock.Instant
    }

    private let entries = Mutex<[UUID: Entry]>([:])

    package init() {}

    /// `tenant`'s limit (nil: unlimited): from the cache while fresh, else from `read`.
    package func limit(of tenant: UUID, read: () async throws -> Int64?) async throws -> Int64? {
        let now = ContinuousClock.now
        if let entry = entries.withLock({ $0[tenant] }), now - entry.readAt < Self.lifetime { return entry.limit }
        let limit = try await read()
        entries.withLock { $0[tenant] = Entry(limit: limit, readAt: now) }
        return limit
    }
}
