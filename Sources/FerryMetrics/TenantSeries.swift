import FerryModel
import Foundation
import Synchronization

/// The `tenant` label's values, bounded: each tenant id is a series of its own for the first `limit`
/// tenants this process records; the tenants after them share the series `tenant="other"`. Tenants
/// are made by the admin only, so a deployment with fewer tenants than the limit sees every one;
/// one with more still holds at most `limit + 1` series per metric.
final class TenantSeries: Sendable {
    static let overflow = "other"

    let limit: Int
    private let admitted = Mutex<Set<UUID>>([])

    init(limit: Int) {
        self.limit = max(0, limit)
    }

    func label(for tenant: UUID) -> String {
        let hasOwnSeries = admitted.withLock { admitted in
            if admitted.contains(tenant) { return true }
            guard admitted.count < limit else { return false }
            admitted.insert(tenant)
            return true
        }
        return hasOwnSeries ? tenant.lowercasedString : Self.overflow
    }
}
