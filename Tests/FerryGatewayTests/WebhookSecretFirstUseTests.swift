@testable import FerryModel
@testable import FerryStore
import FerryVault
import Foundation
import Logging
import PostgresNIO
import Testing

/// A tenant's webhook signing secret is made on first use, and its first deliveries go out together:
/// every one of them must get the one secret made, not an error for the deliveries whose insert lost
/// the race (those waited a whole claim lease before they were tried again).
@Suite("Webhook secret: first use at once", .timeLimit(.minutes(3)))
struct WebhookSecretFirstUseTests {
    let logger: Logger = {
        var logger = Logger(label: "ferry.tests.webhook-secret")
        logger.logLevel = .warning
        return logger
    }()

    @Test("eight deliveries asking for a new tenant's secret at once all get the same one")
    func concurrentFirstUse() async throws {
        try await QueueTestDatabase.with(jobs: 0, logger: logger) { _, client, connection, _, _ in
            let store = WebhookStore(client: client, keyring: try VaultKeyring(keys: [try VaultKey(base64: VaultKey.generateText())]), logger: logger)
            for round in 0..<20 {
                let tenant = UUID()
                try await PostgresProbe.execute("INSERT INTO tenants (id, name) VALUES (\(tenant), \("first-use-\(round)"))", on: connection)
                let secrets = try await withThrowingTaskGroup(of: [Secret].self) { group in
                    for _ in 0..<8 { group.addTask { try await store.signingSecrets(tenant: tenant) } }
                    return try await group.reduce(into: [[Secret]]()) { $0.append($1) }
                }
                #expect(secrets.count == 8)
                #expect(Set(secrets.map(\.first)).count == 1, "round \(round): one secret made and shared")
                #expect(secrets.allSatisfy { $0.count == 1 })
            }
        }
    }
}
