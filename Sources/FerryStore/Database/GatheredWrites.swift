import Foundation
import Logging
import Synchronization

/// Writes that arrive while one statement is being written wait, and the next statement writes all
/// of them together: one round trip and one commit for many callers, as PostgreSQL's group commit
/// shares a WAL flush. A lone write goes out at once; nothing waits for a timer.
///
/// `writeBatch` answers each item of a batch, in order. When a batch of several fails (a deadlock with
/// another process's statement on the same rows, one bad item), each item is written alone, so that
/// the others do not fail with it.
package final class GatheredWrites<Item: Sendable, Answer: Sendable>: Sendable {
    package typealias WriteBatch = @Sendable ([Item]) async throws -> [Answer]

    private struct Waiting {
        var item: Item
        var continuation: CheckedContinuation<Answer, any Error>
    }

    private struct State {
        var waiting: [Waiting] = []
        var writing = false
    }

    /// At most this many items in one statement, so that one statement stays short.
    package let maximumBatch: Int
    private let writeBatch: WriteBatch
    private let logger: Logger
    private let state = Mutex(State())
    /// Statements written so far, each with one item or more.
    package let statements = Atomic<Int>(0)

    package init(maximumBatch: Int, logger: Logger, writeBatch: @escaping WriteBatch) {
        self.maximumBatch = maximumBatch
        self.logger = logger
        self.writeBatch = writeBatch
    }

    package func write(_ item: Item) async throws -> Answer {
        try await withCheckedThrowingContinuation { continuation in
            let startsWriting = state.withLock { state in
                state.waiting.append(Waiting(item: item, continuation: continuation))
                guard !state.writing else { return false }
                state.writing = true
                return true
            }
            // Not a child of this caller's task: the items of other callers ride on it.
            if startsWriting { Task { await self.writeUntilNoneWait() } }
        }
    }

    private func writeUntilNoneWait() async {
        while true {
            let batch = state.withLock { state in
                let batch = Array(state.waiting.prefix(maximumBatch))
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
            let answers = try await writeBatch(batch.map(\.item))
            guard answers.count == batch.count else {
                throw StoreInvariantError("a gathered statement answered \(answers.count) of \(batch.count) items")
            }
            for (waiting, answer) in zip(batch, answers) { waiting.continuation.resume(returning: answer) }
        } catch where batch.count > 1 {
            logger.debug("writing together failed; writing each alone", metadata: ["items": "\(batch.count)", "error": LoggedError.metadata(error)])
            for waiting in batch { await write([waiting]) }
        } catch {
            batch[0].continuation.resume(throwing: error)
        }
    }
}
