import Foundation
import Hummingbird
import Metrics
import Synchronization

/// The API's requests, recorded as Hummingbird's `MetricsMiddleware` records them (the same metric
/// names and dimensions, which `HummingbirdRequestMetrics` exports under Ferry's names), but when
/// the handler returns its response rather than after the body was written.
///
/// Hummingbird's middleware wraps every body to learn when it was written; a wrapped body is no
/// longer a single buffer, and the server then writes head, body and end separately instead of in
/// one batched write (strace of 2,000 `GET /v1/jobs/{id}`: 6,306 `write` calls with it, 2,000
/// `writev` with this one). So a request's duration runs to its response head: all of it for a JSON answer, the time to
/// the first event for an event stream, to the first byte for content. `active_requests` counts
/// requests whose handler has not yet answered (open event streams are not among them).
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    private let metrics: RequestMetricsCache

    init(factory: any MetricsFactory) {
        metrics = RequestMetricsCache(factory: factory)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let active = metrics.active(method: request.method)
        active.increment()
        defer { active.decrement() }
        do {
            let response = try await next(request, context)
            let endpoint = metrics.endpoint(route: context.endpointPath ?? "Unknown", method: request.method, status: response.status)
            endpoint.requests.increment()
            endpoint.duration.record(duration: ContinuousClock.now - start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            let endpoint = metrics.endpoint(route: context.endpointPath ?? "NotFound", method: request.method, status: status)
            endpoint.requests.increment()
            endpoint.errors.increment()
            throw error
        }
    }
}

/// The handles of `RequestMetricsMiddleware`, made once per method and per route, method and status.
private final class RequestMetricsCache: Sendable {
    struct Endpoint: Sendable {
        let requests: Counter
        let errors: Counter
        let duration: Metrics.Timer
    }

    private struct Key: Hashable {
        let route: String
        let method: HTTPRequest.Method
        let status: HTTPResponse.Status
    }

    private let factory: any MetricsFactory
    private let activeByMethod = Mutex<[HTTPRequest.Method: Meter]>([:])
    private let endpoints = Mutex<[Key: Endpoint]>([:])

    init(factory: any MetricsFactory) {
        self.factory = factory
    }

    func active(method: HTTPRequest.Method) -> Meter {
        activeByMethod.withLock { meters in
            if let meter = meters[method] { return meter }
            let meter = Meter(label: "http.server.active_requests", dimensions: [("http.request.method", method.rawValue)], factory: factory)
            meters[method] = meter
            return meter
        }
    }

    func endpoint(route: String, method: HTTPRequest.Method, status: HTTPResponse.Status) -> Endpoint {
        endpoints.withLock { endpoints in
            let key = Key(route: route, method: method, status: status)
            if let endpoint = endpoints[key] { return endpoint }
            let labels = [("http.route", route), ("http.request.method", method.rawValue), ("http.response.status_code", "\(status.code)")]
            let endpoint = Endpoint(
                requests: Counter(label: "hb.requests", dimensions: labels, factory: factory),
                errors: Counter(
                    label: "hb.request.errors",
                    dimensions: [("http.route", route), ("http.request.method", method.rawValue), ("error.type", "\(status.code)")],
                    factory: factory),
                duration: Metrics.Timer(label: "http.server.request.duration", dimensions: labels, factory: factory))
            endpoints[key] = endpoint
            return endpoint
        }
    }
}
