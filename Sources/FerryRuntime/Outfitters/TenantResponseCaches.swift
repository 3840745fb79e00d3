import FerryModel
import FerryStore
import Foundation
import Logging
import URLLoading

/// Gives engine sessions their tenant's HTTP cache (CA-03, SES-27).
///
/// - Every engine session of a tenant outside ephemeral sessions (its jobs without a session and
///   those of its default and background sessions) uses the tenant's `TenantResponseCache`: bodies
///   on disk, index in PostgreSQL, refreshed before each job and written after it.
/// - An ephemeral session gets a cache in memory only, its own, never written anywhere, gone with it
///   (CA-24, SES-03).
public final class TenantResponseCaches: EngineSessionOutfitter {
    /// `FERRY_CACHE_MAX_BYTES_PER_TENANT`'s default: 1 GiB.
    public static let defaultMaximumBytesPerTenant = 1 << 30
    /// An ephemeral session's memory cache: small, since a ferryd may hold many.
    package static let ephemeralMemoryBytes = 8 << 20

    private struct TenantCache: Sendable {
        let cache: TenantResponseCache
        let flush = SerialFlush()
    }

    private let index: TenantCacheIndex
    private let files: GatewayFiles
    private let maximumBytesPerTenant: Int
    private let tenants: OwnerRegistry<UUID, TenantCache>
    /// Nil where a memory cache could not be made (it has no directory, so it cannot fail): no caching.
    private let ephemeral = OwnerRegistry<UUID, LocalResponseCache?>(capacity: JobEngine.capacity * 4)

    package init(index: TenantCacheIndex, files: GatewayFiles, maximumBytesPerTenant: Int) {
        self.index = index
        self.files = files
        self.maximumBytesPerTenant = maximumBytesPerTenant
        tenants = OwnerRegistry(capacity: JobEngine.capacity * 8) { !$0.cache.hasPendingWrites }
    }

    private func tenantCache(_ tenant: UUID) -> TenantCache {
        tenants.value(for: tenant) {
            TenantCache(cache: TenantResponseCache(tenantID: tenant, maximumBytes: maximumBytesPerTenant, files: files))
        }
    }

    public func outfit(_ configuration: inout SessionConfiguration, for owner: EngineSessionOwner) {
        if owner.isEphemeral, let session = owner.sessionID {
            let memoryBytes = min(Self.ephemeralMemoryBytes, maximumBytesPerTenant)
            configuration.urlCache = ephemeral.value(for: session) { try? LocalResponseCache(memoryCapacity: memoryBytes) }
        } else {
            configuration.urlCache = tenantCache(owner.tenantID).cache
        }
    }

    public func prepare(for owner: EngineSessionOwner, stored: OwnerStoredState) async throws {
        guard !owner.isEphemeral else { return }
        try await tenantCache(owner.tenantID).cache.refresh(from: index)
    }

    public func settle(for owner: EngineSessionOwner) async throws {
        guard !owner.isEphemeral, let entry = tenants.existing(owner.tenantID) else { return }
        let index = self.index
        try await entry.flush.run { try await entry.cache.flush(to: index) }
    }
}
