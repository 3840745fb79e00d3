import FerryMetrics
import FerryStore
import Hummingbird

/// `GET /metrics`: Prometheus text, without authentication (it holds counts, no tenant data beyond
/// tenant ids). The queue's gauges are read from the database at each scrape; while it is away they
/// keep the values of the last scrape that could read them (and `/readyz` says why).
struct MetricsRoutes {
    let metrics: GatewayMetrics
    let exposition: PrometheusExposition
    let database: DatabaseProbe

    func add(to router: Router<GatewayRequestContext>) {
        router.get("/metrics") { _, _ in
            if let queue = await database.queueStanding() {
                metrics.recordQueue(jobsByState: queue.jobsByState, oldestRunnableJobAge: queue.oldestRunnableJobAge)
            }
            return Response(
                status: .ok, headers: [.contentType: PrometheusExposition.contentType],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: exposition.text())))
        }
    }
}
