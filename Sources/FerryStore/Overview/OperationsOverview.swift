import Foundation

/// What an operator looks at first (`GET /v1/admin/overview`): the queue by state, the bytes moved
/// in each minute of the last hour, the oldest queued job, webhook deliveries that failed, and each
/// tenant's jobs and stored bytes beside its limits.
public struct OperationsOverview: Sendable {
    public struct Minute: Sendable {
        /// The minute's start.
        public var start: Date
        /// Bytes of the attempts that ended in that minute.
        public var bytes: Int64
        /// Jobs that succeeded in that minute.
        public var succeeded: Int64
    }

    public struct QueuedJob: Sendable {
        public var id: UUID
        public var tenant: UUID
        public var createdAt: Date
    }

    public struct TenantUsage: Sendable {
        public var tenant: UUID
        public var running: Int64
        public var queued: Int64
        /// Blobs and succeeded jobs' content still kept: what the storage quota counts.
        public var storedBytes: Int64
    }

    public var jobsByState: [String: Int64]
    /// Sixty minutes, oldest first, the current minute last; minutes without transfers hold zeros.
    public var lastHour: [Minute]
    public var oldestQueued: QueuedJob?
    /// Deliveries that used up their retry schedule (`failed`), and those of them made in the last hour.
    public var failedDeliveries: Int64
    public var failedDeliveriesLastHour: Int64
    public var tenants: [TenantUsage]
}
