import Crypto
import Foundation
import Testing
import URLLoading
import URLLoadingTestSupport

/// Everything an end-to-end gateway test needs: a fresh database, a data directory, the origin
/// server on loopback, a running ferryd, and an admin client.
struct GatewayFixture: Sendable {
    let database: TestDatabase
    let dataDirectory: String
    let origin: OriginServer
    let server: FerrydServer
    let admin: GatewayClient
    let adminKey: String

    static let engine: Session = {
        var configuration = SessionConfiguration.default
        configuration.requestTimeout = 60
        // Test code, not a gateway path: the only way this can fail is a bad configuration literal.
        return try! Session(configuration: configuration)
    }()

    static func with<Result: Sendable>(
        options: FerrydServer.Options = FerrydServer.Options(), _ body: (GatewayFixture) async throws -> Result
    ) async throws -> Result {
        try await TestDatabase.withFresh { database in
            try await TemporaryDirectory.withNew { dataDirectory in
                try await OriginServer.withRunning { origin in
                    let adminKey = "ferry_test_admin_" + UUID().uuidString.lowercased()
                    return try await FerrydServer.withRunning(
                        databaseURL: database.url, dataDirectory: dataDirectory, adminKey: adminKey, options: options
                    ) { server in
                        try await body(GatewayFixture(
                            database: database, dataDirectory: dataDirectory, origin: origin, server: server,
                            admin: GatewayClient(baseURL: server.baseURL, key: adminKey, session: engine), adminKey: adminKey))
                    }
                }
            }
        }
    }

    /// Another ferryd on the same database and data directory.
    func startAnother(name: String, options: FerrydServer.Options = FerrydServer.Options()) async throws -> FerrydServer {
        try await FerrydServer.start(databaseURL: database.url, dataDirectory: dataDirectory, adminKey: adminKey, options: options, name: name)
    }

    /// A new tenant and a client holding its key.
    func tenant(
        _ name: String = "tenant-\(UUID().uuidString.prefix(6))", sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (id: String, client: GatewayClient) {
        let (id, key) = try await admin.createTenant(name, sourceLocation: sourceLocation)
        return (id, admin.with(key: key))
    }

    static func sha256(_ bytes: some Sequence<UInt8>) -> String {
        SHA256.hash(data: Array(bytes)).map { String(format: "%02x", $0) }.joined()
    }

    /// SHA-256 of the origin's `/bytes/{count}` body.
    static func patternSHA256(_ count: Int) -> String {
        sha256(OriginServer.patternBytes(count: count))
    }
}
