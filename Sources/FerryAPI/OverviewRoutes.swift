import FerryModel
import FerryStore
import Hummingbird

/// `GET /v1/admin/overview`: the whole gateway at a glance, for the admin (see `OperationsOverview`).
struct OverviewRoutes {
    let store: OverviewStore

    struct OverviewView: ResponseEncodable {
        struct Minute: Encodable {
            var start: String
            var bytes: Int64
            var succeeded: Int64
        }
        struct QueuedJob: Encodable {
            var id: String
            var tenant: String
            var createdAt: String
            enum CodingKeys: String, CodingKey {
                case id, tenant
                case createdAt = "created_at"
            }
        }
        struct Webhooks: Encodable {
            var failed: Int64
            var failedLastHour: Int64
            enum CodingKeys: String, CodingKey {
                case failed
                case failedLastHour = "failed_last_hour"
            }
        }
        struct TenantUsage: Encodable {
            var tenant: String
            var runningJobs: Int64
            var queuedJobs: Int64
            var storedBytes: Int64
            enum CodingKeys: String, CodingKey {
                case tenant
                case runningJobs = "running_jobs"
                case queuedJobs = "queued_jobs"
                case storedBytes = "stored_bytes"
            }
        }

        var jobsByState: [String: Int64]
        var lastHour: [Minute]
        var bytesLastHour: Int64
        var oldestQueuedJob: QueuedJob?
        var webhookDeliveries: Webhooks
        var tenants: [TenantUsage]
        enum CodingKeys: String, CodingKey {
            case jobsByState = "jobs_by_state"
            case lastHour = "last_hour"
            case bytesLastHour = "bytes_last_hour"
            case oldestQueuedJob = "oldest_queued_job"
            case webhookDeliveries = "webhook_deliveries"
            case tenants
        }

        init(_ overview: OperationsOverview) {
            // Every state named, with 0 for those no job is in: a client draws the same bars every time.
            jobsByState = Dictionary(uniqueKeysWithValues: JobState.allCases.map { ($0.rawValue, overview.jobsByState[$0.rawValue] ?? 0) })
            lastHour = overview.lastHour.map { Minute(start: JobView.timestamp($0.start), bytes: $0.bytes, succeeded: $0.succeeded) }
            bytesLastHour = overview.lastHour.reduce(0) { $0 + $1.bytes }
            oldestQueuedJob = overview.oldestQueued.map {
                QueuedJob(id: $0.id.lowercasedString, tenant: $0.tenant.lowercasedString, createdAt: JobView.timestamp($0.createdAt))
            }
            webhookDeliveries = Webhooks(failed: overview.failedDeliveries, failedLastHour: overview.failedDeliveriesLastHour)
            tenants = overview.tenants.map {
                TenantUsage(tenant: $0.tenant.lowercasedString, runningJobs: $0.running, queuedJobs: $0.queued, storedBytes: $0.storedBytes)
            }
        }
    }

    func add(to group: RouterGroup<GatewayRequestContext>) {
        group.get("/overview") { _, context in
            try context.requireAdmin()
            return OverviewView(try await store.overview())
        }
    }
}
