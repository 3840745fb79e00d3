import FerryModel
import Foundation
import Logging
import PostgresNIO

/// Writes the heartbeats of running jobs (`JobQueue.heartbeat`) together (`GatheredWrites`): the
/// runners of a worker pool beat on one clock, so a thousand running jobs cost one
/// `HeartbeatJobsStatement` a tick, not a thousand statements.
///
/// Then, in a statement of its own (never inside the update: migrations/0008), it tells live event
/// streams on every ferryd how far the jobs that moved are (`JobEventFeed`): one NOTIFY each, all in
/// one statement. A lost notification costs a stream one progress line, so its failure is only logged.
package final class HeartbeatWriter: Sendable {
    package struct Beat: Sendable {
        package var job: UUID
        package var attempt: Int
        package var owner: String
        package var leaseSeconds: Int
        package var progress: JobQueue.Progress
        /// Resume data to store, sealed already; nil keeps what the job has.
        package var sealedResumeData: String?
        /// The job's tenant, when its progress is to be announced to event streams.
        package var announcedTo: UUID?
    }

    /// At most this many beats in one statement.
    package static let maximumBatch = 500

    private let writes: GatheredWrites<Beat, JobQueue.HeartbeatAnswer>
    /// Statements written so far, each with one beat or more.
    package var statements: Int { writes.statements.load(ordering: .relaxed) }

    package init(client: DatabasePool, logger: Logger) {
        writes = GatheredWrites(maximumBatch: Self.maximumBatch, logger: logger) { beats in
            var stops: [UUID: String?] = [:]
            for try await (job, stop) in try await client.execute(HeartbeatJobsStatement(beats: beats), logger: logger) {
                stops[job] = stop
            }
            let answers = beats.map { beat -> JobQueue.HeartbeatAnswer in
                guard let stop = stops[beat.job] else { return .leaseLost }
                return stop.map { .stopRequested($0) } ?? .carryOn
            }
            await Self.announce(beats, answers: answers, client: client, logger: logger)
            return answers
        }
    }

    package func write(_ beat: Beat) async throws -> JobQueue.HeartbeatAnswer {
        try await writes.write(beat)
    }

    private static func announce(_ beats: [Beat], answers: [JobQueue.HeartbeatAnswer], client: DatabasePool, logger: Logger) async {
        var notices: [String] = []
        let encoder = JSONEncoder()
        for (beat, answer) in zip(beats, answers) where answer == .carryOn {
            guard let tenant = beat.announcedTo else { continue }
            let payload = JobEventNotice.ProgressPayload(
                tenant: tenant, job: beat.job, bytes_done: beat.progress.bytesDone, bytes_expected: beat.progress.bytesExpected,
                rate: beat.progress.bytesPerSecond)
            guard let data = try? encoder.encode(payload) else { continue }
            notices.append(String(decoding: data, as: UTF8.self))
        }
        guard !notices.isEmpty else { return }
        do {
            try await client.query("SELECT pg_notify(\(JobEventFeed.channel), notice) FROM unnest(\(notices)::text[]) AS notice", logger: logger)
        } catch {
            logger.debug("announcing progress to event streams failed", metadata: ["jobs": "\(notices.count)", "error": LoggedError.metadata(error)])
        }
    }
}
