import FerryStore
import Foundation
import Logging

extension JobRunner {
    /// Writes how the attempt ended, waiting out a database outage: a transfer that finished while
    /// the database was away records its end once it is back, rather than being run again after its
    /// lease runs out. Repeating the write is safe: it names the lease and the attempt, so an end that
    /// reached the database before the connection broke is not written twice.
    ///
    /// While ferryd shuts down it waits at most a lease: the job is then taken back and continued
    /// from its stored resume data by the next worker.
    ///
    /// Returns true when this call wrote the end.
    @discardableResult
    func recordEnd(_ completion: JobQueue.Completion) async -> Bool {
        let job = claim.job
        var waitingSince: ContinuousClock.Instant?
        while true {
            do {
                let written = try await queue.finish(job: job.id, attempt: job.attempt, owner: owner, completion)
                if !written, waitingSince == nil {
                    logger.warning("job's lease was lost before its end was written", metadata: ["job": "\(job.id)"])
                }
                if written, waitingSince != nil {
                    logger.info("recorded the job's end after the database came back", metadata: ["job": "\(job.id)"])
                }
                return written
            } catch where DatabaseOutage.describes(error) {
                let since = waitingSince ?? .now
                waitingSince = since
                if isShuttingDown(), ContinuousClock.now - since > .seconds(leaseSeconds) {
                    logger.error("the database did not come back while shutting down; the job will be taken back", metadata: ["job": "\(job.id)"])
                    return false
                }
                await queue.client.waitUntilAvailable(atMost: .seconds(1))
            } catch {
                // The lease will expire and another attempt will run: nothing is lost, only time.
                logger.error("could not record the job's end", metadata: ["job": "\(job.id)", "error": LoggedError.metadata(error)])
                return false
            }
        }
    }
}
