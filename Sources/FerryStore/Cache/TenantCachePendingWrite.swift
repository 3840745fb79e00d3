import Foundation

/// What a ferryd changed in a tenant's cache and has not yet written, per key: the last change wins.
package enum TenantCachePendingWrite: Sendable, Equatable {
    case store(TenantCacheEntry)
    case use(Date)
    /// Removes the key's entry only while it still names this body file (another ferryd may have
    /// stored a newer one under the key since).
    case remove(bodyFile: String)
}
