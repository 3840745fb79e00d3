import Foundation
import PostgresNIO
import Testing
import URLLoadingTestSupport

/// A worker is free for the next job once its transfer ended, while that job's end is being
/// written ("Jobs and workers" in the README).
@Suite("Gateway: workers and job ends", .timeLimit(.minutes(5)))
struct GatewayWorkerFreeingTests {
    @Test("the only worker takes the next job while the last one's end waits for its commit")
    func nextJobWhileEndIsWritten() async throws {
        // A long lease: the first job's heartbeats wait behind the test's lock too.
        try await GatewayFixture.with(options: .init(workers: 1, leaseSeconds: 60)) { fixture in
            let (_, client) = try await fixture.tenant()
            // Ten chunks of 64 KiB, 300 ms apart: about 3 s, time enough to lock its row.
            let first = try await client.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/655360?pace_ms=300")]])
            _ = try await client.waitForState(first, ["running"])
            let secondPath = "/bytes/11"
            try await fixture.database.withConnection { connection in
                // Holding the first job's row, its end's UPDATE waits for this transaction.
                try await PostgresProbe.execute("BEGIN", on: connection)
                let locked = try await PostgresProbe.value(
                    PostgresQuery(unsafeSQL: "SELECT state FROM jobs WHERE id = '\(first)' FOR UPDATE"), as: String.self, on: connection)
                try #require(locked == "running", "the first job must still run when its row is locked (it is \(locked ?? "gone"))")
                let second = try await client.submit(["kind": "download", "request": ["url": fixture.origin.url(secondPath)]])
                let fetched = try await DatabaseQuery.wait(timeout: .seconds(30)) {
                    fixture.origin.requests.contains { $0.uri == secondPath }
                }
                let firstState = await DatabaseQuery.text("SELECT state FROM jobs WHERE id = '\(first)'", fixture.database)
                try await PostgresProbe.execute("ROLLBACK", on: connection)
                #expect(fetched, "the second job's request reached the origin while the first job's end was not written")
                #expect(firstState == "running", "the first job's end was still waiting then")
                #expect(try await client.waitForState(second, ["succeeded", "failed"])["state"] as? String == "succeeded")
            }
            let ended = try await client.waitForState(first, ["succeeded", "failed"])
            #expect(ended["state"] as? String == "succeeded", "\(ended)")
            #expect((ended["result"] as? [String: Any])?["size"] as? Int == 655360)
        }
    }
}
