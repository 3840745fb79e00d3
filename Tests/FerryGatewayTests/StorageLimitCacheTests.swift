@testable import FerryStore
import Foundation
import Synchronization
import Testing

/// The workers read a tenant's storage limit once per lifetime, not once per attempt.
@Suite("Storage limit cache")
struct StorageLimitCacheTests {
    @Test("a tenant's limit is read once and kept; each tenant has its own; an unlimited tenant is kept as unlimited")
    func readsOncePerTenant() async throws {
        let cache = StorageLimitCache()
        let reads = Mutex(0)
        let (alice, bob) = (UUID(), UUID())
        for _ in 0..<5 {
            #expect(try await cache.limit(of: alice) { reads.withLock { $0 += 1 }; return 1000 } == 1000)
            #expect(try await cache.limit(of: bob) { reads.withLock { $0 += 1 }; return nil } == nil)
        }
        #expect(reads.withLock { $0 } == 2)
    }
}
