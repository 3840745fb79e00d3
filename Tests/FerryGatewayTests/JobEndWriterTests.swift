@testable import FerryStore
import FerryVault
import Foundation
import Logging
import PostgresNIO
import Testing

/// Ends of attempts written at the same moment share statements (`JobEndWriter`, bench P3):
/// each job still gets its own end, and an end whose lease is lost writes nothing and says so.
@Suite("Job end writer", .timeLimit(.minutes(3)))
struct JobEndWriterTests {
    let logger = Logger(label: "ferry.tests.job-ends")

    @Test("many ends at once: each job gets its own state, progress and attempt record; a lost lease writes nothing")
    func concurrentEnds() async throws {
        try await QueueTestDatabase.with(jobs: 120, logger: logger) { queue, client, connection, database, tenant in
            let claims = try await queue.claim(owner: "worker-a", limit: 120, leaseSeconds: 60)
            #expect(claims.count == 120)
            // Job i ends with i bytes; every tenth is retried; the last is written by a worker that no longer holds it.
            let ends = claims.enumerated().map { index, claim in
                let retried = index % 10 == 0
                let completion = JobQueue.Completion(
                    retried ? .retry : .succeed, attemptOutcome: retried ? "retrying" : "succeeded",
                    progress: .init(bytesDone: Int64(index), bytesExpected: Int64(index), bytesPerSecond: nil),
                    errorCode: retried ? "http_503" : nil, retryDelay: retried ? .seconds(30) : nil, httpStatus: retried ? 503 : 200)
                return (claim.job.id, index == claims.count - 1 ? "worker-b" : "worker-a", completion)
            }
            let written = try await withThrowingTaskGroup(of: (UUID, Bool).self) { writers in
                for (job, owner, completion) in ends {
                    writers.addTask { (job, try await queue.finish(job: job, attempt: 1, owner: owner, completion)) }
                }
                return try await writers.reduce(into: [UUID: Bool]()) { $0[$1.0] = $1.1 }
            }
            #expect(written.values.filter { $0 }.count == 119)
            let statements = queue.ends.statements
            #expect(statements < 60, "120 ends at once share statements: \(statements) written")
            #expect(written[ends.last!.0] == false, "the end of a lease another worker holds is not written")

            var rows: [UUID: (String, Int64, String?, String?)] = [:]
            let query: PostgresQuery = """
                SELECT j.id, j.state, j.bytes_done, a.outcome, j.lease_owner FROM jobs j JOIN job_attempts a ON a.job_id = j.id AND a.attempt = 1
                """
            for try await (id, state, bytes, outcome, leaseOwner) in try await client.query(query, logger: logger)
                .decode((UUID, String, Int64, String?, String?).self) {
                rows[id] = (state, bytes, outcome, leaseOwner)
            }
            for (index, (job, _, _)) in ends.enumerated().dropLast() {
                let expected = index % 10 == 0 ? "retrying" : "succeeded"
                #expect(rows[job]?.0 == expected)
                #expect(rows[job]?.1 == Int64(index), "job \(index) got its own progress")
                #expect(rows[job]?.2 == expected)
                #expect(rows[job]?.3 == nil, "the lease is released")
            }
            #expect(rows[ends.last!.0]?.0 == "running")
            #expect(rows[ends.last!.0]?.2 == nil)
            let events = try await PostgresProbe.value(
                "SELECT count(*) FROM job_events WHERE type IN ('job.succeeded', 'job.retrying')", as: Int64.self,
                on: database.connectionConfiguration)
            #expect(events == 119, "each written end is one event")
        }
    }
}
