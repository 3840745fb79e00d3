import Foundation
import Testing

extension GatewayClient {
    /// Submits a download job for `url` (with `extra` fields: a session, a cache policy) and waits for
    /// its end; returns the job's view.
    func download(
        _ url: String, _ extra: [String: Any] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [String: Any] {
        let job = extra.merging(["kind": "download", "request": ["url": url]]) { $1 }
        let id = try await submit(job, sourceLocation: sourceLocation)
        return try await waitForState(id, ["succeeded", "failed"], sourceLocation: sourceLocation)
    }

    /// A job view's `error.code`.
    static func errorCode(_ job: [String: Any]) -> String? { (job["error"] as? [String: Any])?["code"] as? String }
}
