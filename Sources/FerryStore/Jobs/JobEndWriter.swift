import Foundation
import Logging
import PostgresNIO

/// Writes the ends of attempts (`JobQueue.finish`) together (`GatheredWrites`), one
/// `FinishJobsStatement` for every end that arrived while the previous one was written. Under load
/// (the P3 bench: 50 workers, hundreds of ends a second) ends share a round trip and a commit
/// instead of each paying its own.
package final class JobEndWriter: Sendable {
    package struct End: Sendable {
        package var job: UUID
        package var attempt: Int
        package var owner: String
        package var completion: JobQueue.Completion
    }

    /// At most this many ends in one statement, so that one statement stays short.
    package static let maximumBatch = 64

    private let writes: GatheredWrites<End, Bool>
    /// Statements written so far, each with one end or more.
    package var statements: Int { writes.statements.load(ordering: .relaxed) }

    package init(client: DatabasePool, logger: Logger) {
        writes = GatheredWrites(maximumBatch: Self.maximumBatch, logger: logger) { ends in
            var written: Set<UUID> = []
            for try await job in try await client.execute(FinishJobsStatement(ends: ends), logger: logger) {
                written.insert(job)
            }
            return ends.map { written.contains($0.job) }
        }
    }

    /// Writes the end; false when the job was no longer this worker's (nothing is written then).
    package func write(_ end: End) async throws -> Bool {
        try await writes.write(end)
    }
}
