import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// Job events as they happen, from PostgreSQL to whatever in this process waits for them (Server-Sent
/// Events streams, the webhook dispatcher), whichever ferryd wrote them.
///
/// - Stored events: the triggers of migrations/0003 write them in the transaction of the change, and
///   the feed reads the new ones every `pollInterval` (one indexed query by id). They used to be
///   NOTIFYed from the trigger, but a NOTIFY makes its transaction commit in turn with every other
///   one that notifies (see migrations/0008): every job's submission, claim and finish waited.
/// - Progress: the heartbeat NOTIFYs `channel` after its update (`JobQueue.announce`), in a statement
///   of its own; the feed LISTENs on a connection of its own.
///
/// After each (re)connection and after a failed read, a `.resync` tells subscribers to read what
/// they may have missed.
public final class JobEventFeed: Service, Sendable {
    public static let channel = "ferry_job_events"
    /// How stale a stored event may be before subscribers hear of it.
    static let pollInterval = Duration.milliseconds(100)
    private static let batch = 1000

    private let client: PostgresClient
    private let store: JobEventStore
    private let logger: Logger
    private let subscribers = Mutex<[UUID: @Sendable (JobEventNotice) -> Void]>([:])

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.store = JobEventStore(client: client, logger: logger)
        self.logger = logger
    }

    /// Runs `body` while `receive` gets every notice (on the feed's task: keep it short).
    func withSubscription<Value: Sendable>(
        _ receive: @escaping @Sendable (JobEventNotice) -> Void, _ body: () async throws -> Value
    ) async rethrows -> Value {
        let id = UUID()
        subscribers.withLock { $0[id] = receive }
        defer { _ = subscribers.withLock { $0.removeValue(forKey: id) } }
        return try await body()
    }

    private func publish(_ notice: JobEventNotice) {
        for receive in subscribers.withLock({ Array($0.values) }) { receive(notice) }
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.listenForProgress() }
                group.addTask { await self.followStoredEvents() }
            }
        }
        publish(.closing)
    }

    /// Reads the events stored since the last read, every `pollInterval`. Ids are taken before their
    /// transactions commit, so a lower id can appear after a higher one: the cursor remembers the
    /// gaps for a while and reads again from the lowest.
    private func followStoredEvents() async {
        var cursor: EventCursor?
        while !Task.isCancelled {
            do {
                if cursor == nil { cursor = EventCursor(after: try await store.latestEventID(), tracksGaps: true) }
                if var current = cursor {
                    var after = current.floor
                    while true {
                        let batch = try await store.eventsOfEveryTenant(after: after, limit: Self.batch)
                        for event in batch where current.accept(event.id) {
                            publish(.stored(event: event.id, tenant: event.tenant, job: event.job, type: event.type))
                        }
                        guard batch.count == Self.batch, let last = batch.last else { break }
                        after = last.id
                    }
                    current.forgetOldGaps()
                    cursor = current
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning("reading new job events failed; retrying", metadata: ["error": "\(error)"])
                // Start again from the newest event, and let subscribers read what they missed.
                cursor = nil
                publish(.resync)
                try? await Task.sleep(for: .seconds(1))
            }
            try? await Task.sleep(for: Self.pollInterval)
        }
    }

    /// LISTENs for progress on a connection of its own, reconnecting after failures.
    private func listenForProgress() async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: Self.channel) { notifications in
                        self.publish(.resync)
                        for try await notification in notifications {
                            if let notice = JobEventNotice(payload: notification.payload) { self.publish(notice) }
                        }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning("listening for job progress failed; retrying", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }
}
