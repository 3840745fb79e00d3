import Foundation
import Testing
import URLLoading

/// Talks to a ferryd over HTTP (through Ferry's own engine, on loopback) with an API key.
struct GatewayClient: Sendable {
    let baseURL: String
    let key: String?
    let session: Session

    init(baseURL: String, key: String?, session: Session) {
        self.baseURL = baseURL
        self.key = key
        self.session = session
    }

    func with(key: String?) -> GatewayClient { GatewayClient(baseURL: baseURL, key: key, session: session) }
    func with(baseURL: String) -> GatewayClient { GatewayClient(baseURL: baseURL, key: key, session: session) }

    struct Reply: Sendable {
        let status: Int
        let headers: HTTPHeaders
        let body: Data

        /// The body as a JSON object; empty when it is not one.
        var json: [String: Any] { ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any]) ?? [:] }
        var text: String { String(decoding: body, as: UTF8.self) }
        subscript(_ key: String) -> Any? { json[key] }
        var code: String? { json["code"] as? String }
    }

    /// Every reply is checked against the server's OpenAPI document (`OpenAPIContract`): anything it
    /// does not allow is recorded as an issue of the calling test.
    func send(
        _ method: String, _ path: String, body: Data? = nil, headers: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Reply {
        guard let url = URL(string: baseURL + path) else { throw TransferError(.invalidRequest, "bad path \(path)") }
        var request = TransferRequest(url: url, method: method, body: body)
        if let key { request.headers["Authorization"] = "Bearer \(key)" }
        if body != nil { request.headers["Content-Type"] = "application/json" }
        for (name, value) in headers { request.headers[name] = value }
        let (data, response) = try await session.data(for: request)
        let reply = Reply(status: response.statusCode ?? 0, headers: response.headers, body: data)
        await OpenAPIContract.check(
            baseURL: baseURL, session: session, method: method, path: path, status: reply.status, headers: reply.headers, body: reply.body,
            sourceLocation: sourceLocation)
        return reply
    }

    func send(
        _ method: String, _ path: String, json: [String: Any], headers: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Reply {
        try await send(method, path, body: try JSONSerialization.data(withJSONObject: json), headers: headers, sourceLocation: sourceLocation)
    }

    func get(_ path: String, headers: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation) async throws -> Reply {
        try await send("GET", path, headers: headers, sourceLocation: sourceLocation)
    }
    func post(_ path: String, json: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) async throws -> Reply {
        try await send("POST", path, json: json, sourceLocation: sourceLocation)
    }
    func post(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Reply {
        try await send("POST", path, sourceLocation: sourceLocation)
    }
    func delete(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Reply {
        try await send("DELETE", path, sourceLocation: sourceLocation)
    }

    /// Creates a tenant with the admin key this client holds; returns its id and API key.
    func createTenant(
        _ name: String, extra: [String: Any] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (id: String, key: String) {
        let reply = try await post("/v1/admin/tenants", json: extra.merging(["name": name]) { $1 }, sourceLocation: sourceLocation)
        guard reply.status == 201, let id = reply["id"] as? String, let key = reply["api_key"] as? String else {
            throw TransferError(.badServerResponse, "creating a tenant answered \(reply.status): \(reply.text)")
        }
        return (id, key)
    }

    /// Submits a job; returns its id.
    func submit(_ job: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let reply = try await post("/v1/jobs", json: job, sourceLocation: sourceLocation)
        guard reply.status == 201, let id = reply["id"] as? String else {
            throw TransferError(.badServerResponse, "submitting answered \(reply.status): \(reply.text)")
        }
        return id
    }

    /// Polls the job until `condition` holds for it, or `timeout` passes (then returns the last view).
    func waitForJob(
        _ id: String, admin: Bool = false, timeout: Duration = .seconds(60), sourceLocation: SourceLocation = #_sourceLocation,
        until condition: ([String: Any]) -> Bool
    ) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + timeout
        var last: [String: Any] = [:]
        while ContinuousClock.now < deadline {
            last = try await get(admin ? "/v1/admin/jobs/\(id)" : "/v1/jobs/\(id)", sourceLocation: sourceLocation).json
            if condition(last) { return last }
            try await Task.sleep(for: .milliseconds(100))
        }
        return last
    }

    func waitForState(
        _ id: String, _ states: Set<String>, timeout: Duration = .seconds(60), sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [String: Any] {
        try await waitForJob(id, timeout: timeout, sourceLocation: sourceLocation) { states.contains($0["state"] as? String ?? "") }
    }
}
