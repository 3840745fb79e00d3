@testable import FerryAPI
@testable import FerryGateway
@testable import FerryModel
@testable import FerryStore
@testable import FerryVault
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing
import URLLoading

/// A route's contract, tested in milliseconds: the application `buildApplication(configuration:)`
/// makes for ferryd, over a fresh database on the test PostgreSQL, driven through Hummingbird's
/// router test client (no server, no ferryd process). Every reply is checked against the OpenAPI
/// document, as the end-to-end tests' `GatewayClient` does.
///
/// By default no worker runs (`workers: 0`): a submitted job stays `queued` until the test changes
/// it through the API, so no route test reaches the network or depends on a worker's timing.
struct RouteFixture: Sendable {
    let client: any TestClientProtocol
    let adminKey: String
    let database: TestDatabase
    let dataDirectory: String

    static let contract = OpenAPIContract(document: try! JSONValue.parse(Data(OpenAPIDocument.json.utf8)))

    static func with(workers: Int = 0, _ body: @escaping @Sendable (RouteFixture) async throws -> Void) async throws {
        try await TestDatabase.withFresh { database in
            try await TemporaryDirectory.withNew { dataDirectory in
                let adminKey = "ferry_test_admin_" + UUID().uuidString.lowercased()
                let configuration = GatewayConfiguration(
                    databaseURL: try DatabaseURL(parsing: database.url), dataDirectory: dataDirectory, adminKey: Secret(adminKey),
                    workers: workers, vaultKeySource: .keys([Secret(VaultKey.generateText())]))
                var logger = Logger(label: "ferry.tests.routes")
                logger.logLevel = .warning
                let app = try await buildApplication(configuration: configuration, logger: logger)
                try await app.test(.router) { client in
                    try await body(RouteFixture(client: client, adminKey: adminKey, database: database, dataDirectory: dataDirectory))
                }
            }
        }
    }

    /// Sends one request with `key` as the bearer key (none when nil) and checks the reply against the document.
    @discardableResult
    func send(
        _ method: HTTPRequest.Method, _ path: String, key: String?, json: Any? = nil, body: Data? = nil, headers: HTTPFields = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> GatewayClient.Reply {
        var fields = headers
        if let key { fields[.authorization] = "Bearer \(key)" }
        var payload = body
        if let json {
            payload = try JSONSerialization.data(withJSONObject: json)
            fields[.contentType] = "application/json"
        }
        let response = try await client.execute(
            uri: path, method: method, headers: fields, body: payload.map { ByteBuffer(bytes: $0) })
        let reply = GatewayClient.Reply(
            status: Int(response.status.code),
            headers: HTTPHeaders(response.headers.map { ($0.name.canonicalName, $0.value) }),
            body: Data(response.body.readableBytesView))
        for violation in Self.contract.violations(
            method: method.rawValue, path: path, status: reply.status, headers: reply.headers, body: reply.body)
        {
            Issue.record("OpenAPI contract: \(method) \(path) → \(reply.status): \(violation)", sourceLocation: sourceLocation)
        }
        return reply
    }

    /// A new tenant and its API key.
    func createTenant(_ name: String = "tenant-\(UUID().uuidString.prefix(8))", sourceLocation: SourceLocation = #_sourceLocation)
        async throws -> (id: String, key: String)
    {
        let reply = try await send(.post, "/v1/admin/tenants", key: adminKey, json: ["name": name], sourceLocation: sourceLocation)
        #expect(reply.status == 201, sourceLocation: sourceLocation)
        return (reply["id"] as? String ?? "", reply["api_key"] as? String ?? "")
    }
}
