@testable import FerryModel
@testable import FerryStore
import FerryVault
import Foundation
import Logging
import PostgresNIO
import Testing

/// Heartbeats of many running jobs at the same moment share statements (`HeartbeatWriter`, bench
/// P5): each job still gets its own progress, lease and answer (carry on, its stop request, or lost
/// lease), and each job that moved is announced to event streams once.
@Suite("Heartbeat writer", .timeLimit(.minutes(3)))
struct HeartbeatWriterTests {
    let logger = Logger(label: "ferry.tests.heartbeats")

    @Test("many heartbeats at once: own progress and answer per job, stop requests and lost leases, one notice per moved job")
    func concurrentHeartbeats() async throws {
        try await QueueTestDatabase.with(jobs: 100, logger: logger) { queue, client, connection, database, tenant in
            let jobs = try await queue.claim(owner: "worker-a", limit: 100, leaseSeconds: 5).map(\.job.id)
            #expect(jobs.count == 100)
            // Job 0 was asked to pause, job 1 was taken over by another worker.
            try await PostgresProbe.execute("UPDATE jobs SET stop_request = 'pause' WHERE id = \(jobs[0])", on: connection)
            try await PostgresProbe.execute("UPDATE jobs SET lease_owner = 'worker-b' WHERE id = \(jobs[1])", on: connection)

            let announced = try await listening(client: client, expecting: 49) {
                // Job i has moved to i bytes; the even ones are announced; job 2 stores resume data.
                try await withThrowingTaskGroup(of: (Int, JobQueue.HeartbeatAnswer).self) { beats in
                    for (index, job) in jobs.enumerated() {
                        beats.addTask {
                            let answer = try await queue.heartbeat(
                                job: job, attempt: 1, owner: "worker-a", leaseSeconds: 600,
                                progress: .init(bytesDone: Int64(index), bytesExpected: 100, bytesPerSecond: 7),
                                resumeData: index == 2 ? #"{"version": 1}"# : nil, announcingTo: index % 2 == 0 ? tenant : nil)
                            return (index, answer)
                        }
                    }
                    let answers = try await beats.reduce(into: [Int: JobQueue.HeartbeatAnswer]()) { $0[$1.0] = $1.1 }
                    #expect(answers[0] == .stopRequested("pause"))
                    #expect(answers[1] == .leaseLost)
                    #expect((2..<100).allSatisfy { answers[$0] == .carryOn })
                }
            }
            #expect(queue.heartbeats.statements < 50, "100 heartbeats at once share statements: \(queue.heartbeats.statements) written")
            // Every even job but the one asked to pause, each once, with its own progress.
            let expected = Dictionary(uniqueKeysWithValues: stride(from: 2, to: 100, by: 2).map { (jobs[$0], Int64($0)) })
            #expect(Dictionary(announced.map { ($0.job, $0.bytesDone) }, uniquingKeysWith: { _, _ in -1 }) == expected)

            var rows: [UUID: (Int64, Bool, Bool)] = [:]
            let query: PostgresQuery = """
                SELECT id, bytes_done, resume_data IS NOT NULL, lease_expires_at > now() + interval '60 seconds' FROM jobs
                """
            for try await (id, bytes, hasResumeData, renewed) in try await client.query(query, logger: logger)
                .decode((UUID, Int64, Bool, Bool).self) {
                rows[id] = (bytes, hasResumeData, renewed)
            }
            #expect(rows[jobs[1]]?.0 == 0 && rows[jobs[1]]?.2 == false, "a lost lease writes nothing")
            for (index, job) in jobs.enumerated() where index != 1 {
                #expect(rows[job]?.0 == Int64(index), "job \(index) got its own progress")
                #expect(rows[job]?.2 == true, "job \(index)'s lease is renewed")
                #expect(rows[job]?.1 == (index == 2), "only job 2 was given resume data")
            }
        }
        }
    }

    /// The progress notices that `body` makes, once `count` of them came (LISTEN starts before `body`).
    private func listening(
        client: DatabasePool, expecting count: Int, _ body: @escaping @Sendable () async throws -> Void
    ) async throws -> [JobProgressNotice] {
        try await client.withConnection { connection in
            try await connection.listen(on: JobEventFeed.channel) { notifications in
                try await body()
                var notices: [JobProgressNotice] = []
                for try await notification in notifications {
                    if case .progress(let notice)? = JobEventNotice(payload: notification.payload) { notices.append(notice) }
                    if notices.count == count { break }
                }
                return notices
        }
    }
}
