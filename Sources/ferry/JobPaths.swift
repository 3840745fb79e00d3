/// The API paths of a job that ferry asks on the engine rather than through the generated client
/// (see `GatewayConnection`), its id escaped as one path segment.
enum JobPaths {
    static let jobs = "/v1/jobs"

    static func job(_ id: String) -> String { "\(jobs)/\(GatewayConnection.segment(id))" }
    static func events(_ id: String) -> String { job(id) + "/events" }
    static func content(_ id: String) -> String { job(id) + "/content" }
}
