import Foundation
import PostgresNIO
import Testing

extension GatewayClient.Reply {
    /// The `field` of each entry of a problem's `errors`.
    var errorFields: Set<String> {
        Set(((json["errors"] as? [[String: Any]]) ?? []).compactMap { $0["field"] as? String })
    }

    /// The array under `key` of a list reply, as JSON objects.
    func list(_ key: String) -> [[String: Any]] { (json[key] as? [[String: Any]]) ?? [] }
}

extension RouteFixture {
    /// A URL no route test ever reaches: the fixture runs no worker, and without allowPrivateNetworks a
    /// worker would fail a loopback job with destination_forbidden before connecting.
    static let unreachable = "http://127.0.0.1:9/x"

    /// A list cursor as the API makes them (base64url of "<microseconds>:<id>"), for a time it never would.
    static func forgedCursor(micros: Int64) -> String {
        Data("\(micros):\(UUID().uuidString)".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// A download job's body, with `extra` merged in at the top level.
    static func download(_ url: String = unreachable, _ extra: [String: Any] = [:]) -> [String: Any] {
        (["kind": "download", "request": ["url": url]] as [String: Any]).merging(extra) { $1 }
    }

    /// Submits `job` with `key`; expects a 201 and returns the job's id.
    func submit(_ key: String, _ job: [String: Any] = RouteFixture.download(), sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let reply = try await send(.post, "/v1/jobs", key: key, json: job, sourceLocation: sourceLocation)
        #expect(reply.status == 201, "\(reply.text)", sourceLocation: sourceLocation)
        return try #require(reply["id"] as? String, sourceLocation: sourceLocation)
    }

    /// Creates a resource with a POST (201 expected) and returns its id.
    func create(_ path: String, key: String, json: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let reply = try await send(.post, path, key: key, json: json, sourceLocation: sourceLocation)
        #expect(reply.status == 201, "\(reply.text)", sourceLocation: sourceLocation)
        return try #require(reply["id"] as? String, sourceLocation: sourceLocation)
    }

    /// Expects `reply` to be a problem with `status` and `code` (and, when given, exactly these field errors).
    func expectProblem(
        _ reply: GatewayClient.Reply, _ status: Int, _ code: String, fields: Set<String>? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(reply.status == status, "\(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.code == code, "\(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.headers["content-type"] == "application/problem+json", sourceLocation: sourceLocation)
        if let fields { #expect(reply.errorFields == fields, "\(reply.text)", sourceLocation: sourceLocation) }
    }

    /// Two new tenants, for isolation checks.
    func twoTenants(sourceLocation: SourceLocation = #_sourceLocation) async throws -> (alice: (id: String, key: String), bob: (id: String, key: String)) {
        (try await createTenant(sourceLocation: sourceLocation), try await createTenant(sourceLocation: sourceLocation))
    }

    /// Runs one SQL statement on the fixture's database; returns the first column of the first row as text.
    @discardableResult
    func sql(_ statement: String) async throws -> String? {
        try await PostgresProbe.value(PostgresQuery(unsafeSQL: statement), as: String.self, on: database.connectionConfiguration)
    }
}
