/// The API paths of a job, its id escaped as one path segment.
enum JobPaths {
    static let jobs = "/v1/jobs"

    static func job(_ id: String) -> String { "\(jobs)/\(GatewayConnection.segment(id))" }
    static func events(_ id: String) -> String { job(id) + "/events" }
    static func content(_ id: String) -> String { job(id) + "/content" }
    static func control(_ id: String, _ action: String) -> String { job(id) + "/\(action)" }
}
