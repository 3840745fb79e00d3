import FerryModel
import FerryStore
import Foundation

/// Waits, at most a given time, for a job to reach a final state: the `Prefer: wait` of
/// `POST /v1/jobs` (RFC 7240 §4.3). It listens to the event feed of this ferryd, which hears of every
/// stored event whichever ferryd's worker ran the job, and reads the job when one of its final
/// events is stored (or the feed reconnected and may have missed it).
struct JobEndWait {
    let jobs: JobStore
    let feed: JobEventFeed

    private static let finalEventTypes = Set(JobState.allCases.filter(\.isTerminal).map(\.eventType))

    /// The job in its final state, or nil when it has none after `timeout` (or ferryd is stopping).
    func finished(_ id: UUID, tenant: UUID, within timeout: Duration) async throws -> JobRecord? {
        let (signals, signal) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        return try await feed.withSubscription({ notice in
            switch notice {
            case .stored(_, let owner, let job, let type) where owner == tenant && job == id && Self.finalEventTypes.contains(type):
                signal.yield()
            case .resync:
                signal.yield()
            case .closing:
                signal.finish()
            default:
                break
            }
        }) {
            try await withThrowingTaskGroup(of: JobRecord?.self) { group in
                group.addTask {
                    // Read once first: the job may have ended before the subscription began.
                    if let job = try await finalJob(id, tenant: tenant) { return job }
                    for await _ in signals {
                        if let job = try await finalJob(id, tenant: tenant) { return job }
                    }
                    return nil
                }
                group.addTask {
                    try? await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                return try await group.next() ?? nil
            }
        }
    }

    private func finalJob(_ id: UUID, tenant: UUID) async throws -> JobRecord? {
        guard let job = try await jobs.job(id, scope: .tenant(tenant)), job.state.isTerminal else { return nil }
        return job
    }
}
