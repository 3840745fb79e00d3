import Foundation
import Logging
import PostgresNIO
import Synchronization

/// Writes the ends of attempts (`JobQueue.finish`) together. While one statement is being written,
/// the ends that arrive wait, and the next statement writes all of them in one transaction and one
/// commit (`FinishJobsStatement`). A lone end is written at once; under load (the P3
/// bench: 50 workers, hundreds of ends a second) ends share a round trip and a commit instead of each
/// paying its own, as PostgreSQL's group commit shares a WAL flush. Nothing waits for a timer.
package final class JobEndWriter: Sendable {
    package struct End: Sendable {
        package var job: UUID
        package var attempt: Int
        package var owner: String
        package var completion: JobQueue.Completion
    }

    /// At most this many ends in one statement, so that one statement stays short.
    package static let maximumBatch = 64

    private struct Waiting {
        var end: End
        var continuation: CheckedContinuation<Bool, any Error>
    }

    private struct State {
        var waiting: [Waiting] = []
        var writing = false
    }

    private let client: DatabasePool
    private let logger: Logger
    private let state = Mutex(State())
    /// Statements written so far, each with one end or more.
    package let statements = Atomic<Int>(0)

    package init(client: DatabasePool, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Writes the end; false when the job was no longer this worker's (nothing is written then).
    package func write(_ end: End) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            let startsWriting = state.withLock { state in
                state.waiting.append(Waiting(end: end, continuation: continuation))
                guard !state.writing else { return false }
                state.writing = true
                return true
            }
            // Not a child of this caller's task: the ends of other callers ride on it.
            if startsWriting { Task { await self.writeUntilNoneWait() } }
        }
    }

    private func writeUntilNoneWait() async {
        while true {
            let batch = state.withLock { state in
                let batch = Array(state.waiting.prefix(Self.maximumBatch))
                state.waiting.removeFirst(batch.count)
                if batch.isEmpty { state.writing = false }
                return batch
            }
            guard !batch.isEmpty else { return }
            await write(batch)
        }
    }

    private func write(_ batch: [Waiting]) async {
        statements.add(1, ordering: .relaxed)
        do {
            var written: Set<UUID> = []
            for try await job in try await client.execute(FinishJobsStatement(ends: batch.map(\.end)), logger: logger) {
                written.insert(job)
            }
            for waiting in batch { waiting.continuation.resume(returning: written.contains(waiting.end.job)) }
        } catch where batch.count > 1 {
            // Whatever failed (a deadlock with another process's statement on the same rows), the
            // other ends must not fail with it: each is written alone.
            logger.debug("writing job ends together failed; writing each alone", metadata: ["ends": "\(batch.count)", "error": "\(error)"])
            for waiting in batch { await write([waiting]) }
        } catch {
            batch[0].continuation.resume(throwing: error)
        }
    }
}
