import Foundation
import Synchronization

/// How many Server-Sent Events streams each tenant may hold open on this ferryd at once. Each open
/// stream costs a connection, a subscription to the event feed and up to a page of events in memory;
/// without a bound, one tenant's unread streams take the memory and the database pool every other
/// tenant needs.
package final class EventStreamLimit: Sendable {
    /// `FERRY_MAX_EVENT_STREAMS_PER_TENANT`'s default.
    package static let defaultPerTenant = 32

    package let perTenant: Int
    private let open = Mutex<[UUID: Int]>([:])

    package init(perTenant: Int = EventStreamLimit.defaultPerTenant) {
        self.perTenant = perTenant
    }

    /// One stream's place, given back when the last reference to it goes: whether the response's
    /// body ran to its end, failed, or was never written (the client gone before the head).
    final class Place: Sendable {
        private let limit: EventStreamLimit
        private let tenant: UUID

        fileprivate init(_ limit: EventStreamLimit, _ tenant: UUID) {
            self.limit = limit
            self.tenant = tenant
        }

        deinit {
            limit.release(tenant)
        }
    }

    /// A place for one of `tenant`'s streams; nil when it has `perTenant` open already.
    func take(_ tenant: UUID) -> Place? {
        let taken = open.withLock { open in
            guard open[tenant, default: 0] < perTenant else { return false }
            open[tenant, default: 0] += 1
            return true
        }
        return taken ? Place(self, tenant) : nil
    }

    private func release(_ tenant: UUID) {
        open.withLock { open in
            let left = open[tenant, default: 1] - 1
            open[tenant] = left > 0 ? left : nil
        }
    }
}
