@testable import FerryStore
import Foundation
import Testing

/// When a submission may skip counting its tenant's queue (bench P3): only after a count,
/// only for a second, and only while the queue stays within half its limit.
@Suite("Queue room estimates")
struct QueueRoomEstimatesTests {
    let tenant = UUID()
    let start = ContinuousClock.now

    @Test("a tenant never counted is counted")
    func unknownTenantCounts() {
        #expect(!QueueRoomEstimates().maySkipCount(tenant: tenant, now: start))
    }

    @Test("after a count, submissions skip counting until the count plus them would pass half the limit")
    func skipsWhileFarBelowTheLimit() {
        let estimates = QueueRoomEstimates()
        estimates.record(tenant: tenant, waiting: 1, limit: 10, now: start)
        // 1 waiting + 1, 2, 3, 4 submitted since stays within 5 (half of 10); the fifth would not.
        let skips = (0..<6).map { _ in estimates.maySkipCount(tenant: tenant, now: start) }
        #expect(skips == [true, true, true, true, false, false])
        #expect(!estimates.maySkipCount(tenant: UUID(), now: start), "another tenant has its own count")
    }

    @Test("a count is trusted for a second only")
    func countsExpire() {
        let estimates = QueueRoomEstimates()
        estimates.record(tenant: tenant, waiting: 0, limit: 100_000, now: start)
        #expect(estimates.maySkipCount(tenant: tenant, now: start + .milliseconds(999)))
        #expect(!estimates.maySkipCount(tenant: tenant, now: start + QueueRoomEstimates.lifetime))
    }

    @Test("a small limit is always counted")
    func smallLimitsAlwaysCount() {
        let estimates = QueueRoomEstimates()
        estimates.record(tenant: tenant, waiting: 1, limit: 2, now: start)
        #expect(!estimates.maySkipCount(tenant: tenant, now: start))
    }
}
