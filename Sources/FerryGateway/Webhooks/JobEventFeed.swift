import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// Job events as they happen, from PostgreSQL to whatever in this process waits for them (Server-Sent
/// Events streams, the webhook dispatcher). One LISTEN connection per ferryd, whichever ferryd wrote
/// the event: the triggers of migrations/0003 NOTIFY `channel` on every state change and progress
/// beat, in the transaction of the change.
public final class JobEventFeed: Service, Sendable {
    public static let channel = "ferry_job_events"

    private let client: PostgresClient
    private let logger: Logger
    private let subscribers = Mutex<[UUID: @Sendable (JobEventNotice) -> Void]>([:])

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
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
            await self.listen()
        }
        publish(.closing)
    }

    /// LISTENs on a connection of its own, reconnecting after failures; after each (re)connection a
    /// `.resync` tells subscribers to read what they may have missed.
    private func listen() async {
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
                logger.warning("listening for job events failed; retrying", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }
}
