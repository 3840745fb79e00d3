/// Hummingbird's `MetricsMiddleware` records the API's requests under OpenTelemetry-style names
/// (`http.server.request.duration`, dimension `http.route`, ...), and so does ferryd's
/// `RequestMetricsMiddleware`, which records them at the response head. Exported to Prometheus they keep
/// Ferry's names and labels (`ferry_http_request_duration_seconds{method,route,status}`), so the
/// dashboards written for them still work.
///
/// Its labels stay bounded: the route is the matched route's template (`/v1/jobs/{id}`, never the
/// concrete path), `NotFound`/`Unknown` for no route (both exported as `unmatched`); the method is
/// one the HTTP parser accepts (llhttp's fixed list: anything else is a 400 before any route); the
/// status is a status code.
enum HummingbirdRequestMetrics {
    private static let names: [String: GatewayMetric] = [
        "http.server.request.duration": .requestDuration,
        "hb.requests": .requests,
        "hb.request.errors": .requestErrors,
        "http.server.active_requests": .activeRequests,
    ]

    private static let labelNames: [String: String] = [
        "http.route": "route",
        "http.request.method": "method",
        "http.response.status_code": "status",
        "error.type": "status",
    ]

    /// The middleware's route values when no route matched.
    private static let unmatchedRoutes: Set<String> = ["NotFound", "Unknown"]

    /// Ferry's name and labels for one of the middleware's metrics; nil for any other metric.
    static func renamed(_ label: String, _ dimensions: [(String, String)]) -> (GatewayMetric, [(String, String)])? {
        guard let metric = names[label] else { return nil }
        let labels = dimensions.map { key, value -> (String, String) in
            let name = labelNames[key] ?? key
            return (name, name == "route" && unmatchedRoutes.contains(value) ? "unmatched" : value)
        }
        return (metric, labels)
    }
}
