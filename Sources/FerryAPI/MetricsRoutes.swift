import FerryMetrics
import FerryStore
import Hummingbird
import Logging

/// Times every request for `GatewayMetrics`, labelled with the route's template (`/v1/jobs/{id}`),
/// never the concrete path, so ids do not become label values.
struct LatencyMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: GatewayMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        var status = 500
        defer {
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            metrics.observeRequest(method: request.method.rawValue, route: context.endpointPath ?? "unmatched", status: status, seconds: seconds)
        }
        do {
            let response = try await next(request, context)
            status = response.status.code
            return response
        } catch let error as any HTTPResponseError {
            status = error.status.code
            throw error
        }
    }
}

/// `GET /metrics`: Prometheus text, without authentication (it holds counts, no tenant data).
struct MetricsRoutes {
    let metrics: GatewayMetrics
    let database: DatabaseProbe

    func add(to router: Router<GatewayRequestContext>) {
        router.get("/metrics") { _, _ in
            let jobs = await database.jobsByState()
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.render(jobsByState: jobs))))
        }
    }
}
