import FerryStore
import Foundation
import Synchronization
import URLLoading

/// What a job's heartbeat and its event loop share while the transfer runs: the latest progress,
/// and why (if at all) the worker decided to stop it.
final class RunningTransfer: Sendable {
    enum StopReason: Sendable, Equatable {
        /// Asked through the API: keep resume data, the job becomes paused.
        case pause
        /// Asked through the API: the job becomes cancelled, its partial file goes.
        case cancel
        /// ferryd is shutting down: keep resume data, the job goes back to the queue.
        case shutdown
        /// A discretionary job gives its worker to a job that is not (BG-05): keep resume data, the
        /// job goes back to the queue.
        case yield
        /// The job's total timeout passed: keep resume data, the attempt failed (and may be retried).
        case totalTimeout
        /// Another worker holds the job now: stop and write nothing.
        case leaseLost
        /// The content would pass the tenant's storage quota: the attempt failed, not retried.
        case storageQuota
    }

    private struct State {
        var progress = TransferProgress()
        var stopReason: StopReason?
        /// When the lease was last known to be renewed (the claim, then each heartbeat it answered).
        var leaseRenewedAt = ContinuousClock.now
        var storageQuota: StorageQuota.Standing?
    }

    private let state = Mutex(State())

    var progress: TransferProgress {
        get { state.withLock { $0.progress } }
        set { state.withLock { $0.progress = newValue } }
    }

    var stopReason: StopReason? { state.withLock { $0.stopReason } }

    var leaseRenewedAt: ContinuousClock.Instant {
        get { state.withLock { $0.leaseRenewedAt } }
        set { state.withLock { $0.leaseRenewedAt = newValue } }
    }

    /// The tenant's storage quota as it stood when the attempt started; nil: no quota.
    var storageQuota: StorageQuota.Standing? {
        get { state.withLock { $0.storageQuota } }
        set { state.withLock { $0.storageQuota = newValue } }
    }

    /// Records the first reason only: a cancel that comes after a pause does not change what happens.
    /// True when this call set it.
    func requestStop(_ reason: StopReason) -> Bool {
        state.withLock { state in
            guard state.stopReason == nil else { return false }
            state.stopReason = reason
            return true
        }
    }
}
