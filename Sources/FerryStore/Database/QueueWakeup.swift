import Logging
import PostgresNIO
import Synchronization

/// Tells the workers of every ferryd that jobs were queued: a NOTIFY on `JobQueue.channel`, sent in
/// a statement of its own once the submission has committed.
///
/// Inside the submitting transaction the NOTIFY would make every submission commit after the one
/// before had reached the disk (see migrations/0008); on its own it writes nothing and costs
/// nothing to commit. Rings that come while one NOTIFY is on its way fold into one more, so a
/// burst of submissions sends a handful. A NOTIFY that fails is not retried: workers also poll.
package final class QueueWakeup: Sendable {
    private struct Sending {
        var inFlight = false
        var again = false
    }

    private let client: DatabasePool
    private let logger: Logger
    private let sending = Mutex(Sending())

    package init(client: DatabasePool, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    package func ring() {
        let start = sending.withLock { state in
            if state.inFlight {
                state.again = true
                return false
            }
            state.inFlight = true
            return true
        }
        guard start else { return }
        Task { await self.notifyUntilQuiet() }
    }

    private func notifyUntilQuiet() async {
        repeat {
            do {
                try await client.query("SELECT pg_notify(\(JobQueue.channel), '')", logger: logger)
            } catch {
                logger.debug("could not wake the workers; they will poll", metadata: ["error": LoggedError.metadata(error)])
            }
        } while sending.withLock { state in
            state.inFlight = state.again
            state.again = false
            return state.inFlight
        }
    }
}
