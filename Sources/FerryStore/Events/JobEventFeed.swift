import FerryModel
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// Job events as they happen, from PostgreSQL to whatever in this process waits for them (Server-Sent
/// Events streams, the webhook dispatcher), whichever ferryd wrote them.
///
/// - Stored events: the triggers (`JobEventsTrigger`) write them in the transaction of the change,
///   and the feed reads the new ones every `pollInterval` (one indexed query by id). They are not
///   NOTIFYed from the trigger: a NOTIFY makes its transaction commit in turn with every other one
///   that notifies (migrations/0008), so every job's submission, claim and finish would wait.
/// - Progress: the heartbeat NOTIFYs `channel` after its update (`HeartbeatWriter`), in a statement
///   of its own; the feed LISTENs on a connection of its own.
///
/// After each (re)connection and after a failed read, a `.resync` tells subscribers to read what
/// they may have missed.
public final class JobEventFeed: Service, Sendable {
    public static let channel = "ferry_job_events"
    /// How stale a stored event may be before subscribers hear of it.
    package static let pollInterval = Duration.milliseconds(100)
    private static let batch = 1000

    private let client: DatabasePool
    private let store: JobEventStore
    private let logger: Logger
    private let subscribers = Mutex<[UUID: @Sendable (JobEventNotice) -> Void]>([:])

    public init(client: DatabasePool, logger: Logger) {
        self.client = client
        self.store = JobEventStore(client: client, logger: logger)
        self.logger = logger
    }

    /// Runs `body` while `receive` gets every notice (on the feed's task: keep it short).
    package func withSubscription<Value: Sendable>(
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

    /// Reads the events stored since the last read, every `pollInterval`.
    private func followStoredEvents() async {
        var cursor: EventCursor?
        while !Task.isCancelled {
            do {
                var current: EventCursor
                if let cursor { current = cursor } else { current = EventCursor(after: try await store.latestEventID(), tracksGaps: true) }
                try await publishNewEvents(after: &current)
                cursor = current
            } catch {
                if Task.isCancelled { return }
                logger.warning("reading new job events failed; retrying", metadata: ["error": LoggedError.metadata(error)])
                // Start again from the newest event, and let subscribers read what they missed.
                cursor = nil
                publish(.resync)
                try? await Task.sleep(for: .seconds(1))
            }
            try? await Task.sleep(for: Self.pollInterval)
        }
    }

    /// Publishes the events stored after `cursor`, a page at a time, and moves it on. Ids are taken
    /// before their transactions commit, so a lower id can appear after a higher one: the cursor
    /// remembers the gaps for a while and reads again from the lowest.
    private func publishNewEvents(after cursor: inout EventCursor) async throws {
        var after = cursor.floor
        while true {
            let page = try await store.eventsOfEveryTenant(after: after, limit: Self.batch)
            for event in page where cursor.accept(event.id) {
                publish(.stored(event: event.id, tenant: event.tenant, job: event.job, type: event.type))
            }
            guard page.count == Self.batch, let last = page.last else { break }
            after = last.id
        }
        cursor.forgetOldGaps()
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
                logger.warning("listening for job progress failed; retrying", metadata: ["error": LoggedError.metadata(error)])
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }
}
