/// Wakes a claim loop: rung when work may be waiting (a NOTIFY, a finished runner, shutdown), and
/// waited on with a polling fallback, since some work becomes due without anyone ringing (retry
/// backoffs end, a notification is missed while reconnecting). Rings while nobody waits coalesce
/// into one.
package struct Doorbell: Sendable {
    private let rings: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    package init() {
        (rings, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    package func ring() {
        continuation.yield()
    }

    /// The one loop that waits on this bell.
    package func makeListener() -> Listener {
        Listener(bell: self, iterator: rings.makeAsyncIterator())
    }

    package struct Listener {
        package let bell: Doorbell
        package var iterator: AsyncStream<Void>.Iterator

        /// Returns when the bell rings or `pollInterval` passes, whichever is first.
        package mutating func wait(atMost pollInterval: Duration) async {
            let poll = Task { [bell] in
                // Cancelled once the bell rang: ringing then would wake the next wait at once.
                guard (try? await Task.sleep(for: pollInterval)) != nil else { return }
                bell.ring()
            }
            _ = await iterator.next()
            poll.cancel()
        }

        package init(bell: Doorbell, iterator: AsyncStream<Void>.Iterator) {
            self.bell = bell
            self.iterator = iterator
        }
    }
}
