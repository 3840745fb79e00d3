import Foundation

/// The queue between a transfer (producer, on a loop thread) and the one consumer of a task's events.
///
/// Body bytes are bounded: above `highWater` buffered bytes the producer is told to pause, and once the
/// consumer drains below `lowWater` the registered `onDemand` hook resumes it. Other events are few per
/// task, and progress events merge, so nothing here grows without bound.
final class TaskEventChannel: Sendable {
    static let highWater = 1 << 20
    static let lowWater = 256 << 10

    private struct State {
        var queue: [TaskEvent] = []
        var head = 0
        var bufferedBytes = 0
        var waiter: CheckedContinuation<TaskEvent?, Never>?
        /// False while the waiter sleeps until an event that needs it (`TaskEvents.untilCompletion`).
        var waiterWakesForUpdates = true
        var finished = false
        var consumerTaken = false
        /// Set by a producer that found the buffer full; called once the consumer drains.
        var demandHook: (@Sendable () -> Void)?
        /// Called once the consumer has taken every queued event and asks for another.
        var caughtUpHook: (@Sendable () -> Void)?
        /// A file handed out with `.downloadFinished`, removed when the consumer asks for more.
        var fileToRemove: URL?
        /// Files of `.downloadFinished` events still queued, removed if nobody ever reads them.
        var unreadFiles: [URL] = []
        /// Unnamed files among those (`UnnamedFiles`), kept open until then: closing one removes it.
        var heldOpen: [DownloadFile] = []

        var isEmpty: Bool { head == queue.count }

        enum Taken { case event(TaskEvent, (@Sendable () -> Void)?), end, empty }

        /// Pops the next event with its accounting: buffered bytes, the demand hook to fire, the
        /// download file now handed out.
        mutating func take() -> Taken {
            guard let event = popFirst() else { return finished ? .end : .empty }
            var hook: (@Sendable () -> Void)?
            if case .data(let data) = event {
                bufferedBytes -= data.count
                if bufferedBytes < TaskEventChannel.lowWater {
                    hook = demandHook
                    demandHook = nil
                }
            }
            if case .downloadFinished(let file) = event { markHandedOut(file) }
            return .event(event, hook)
        }

        /// Queues an event for a consumer that is busy or sleeping through updates; consecutive
        /// progress events merge.
        mutating func enqueue(_ event: TaskEvent) {
            if case .progress = event, !isEmpty, case .progress = queue[queue.count - 1] {
                queue[queue.count - 1] = event
                return
            }
            if case .data(let data) = event { bufferedBytes += data.count }
            queue.append(event)
        }

        mutating func markHandedOut(_ file: URL) {
            fileToRemove = file
            unreadFiles.removeAll { $0 == file }
        }

        mutating func popFirst() -> TaskEvent? {
            guard head < queue.count else { return nil }
            let event = queue[head]
            head += 1
            if head > 64, head * 2 > queue.count {
                queue.removeFirst(head)
                head = 0
            }
            return event
        }
    }

    private let state = Locked(State())

    // MARK: producer side

    /// Queues an event. `.completed` closes the channel; later events are dropped.
    func push(_ event: TaskEvent) {
        typealias Wake = (CheckedContinuation<TaskEvent?, Never>, TaskEvent, (@Sendable () -> Void)?)
        let wake: Wake? = state.withLock { state in
            guard !state.finished else { return nil }
            if case .completed = event { state.finished = true }
            if case .downloadFinished(let file) = event { state.unreadFiles.append(file) }
            if let waiter = state.waiter, state.waiterWakesForUpdates || event.needsConsumerNow {
                state.waiter = nil
                if state.isEmpty {
                    if case .downloadFinished(let file) = event { state.markHandedOut(file) }
                    return (waiter, event, nil)
                }
                // Updates queued while the consumer slept go first.
                state.enqueue(event)
                guard case .event(let first, let hook) = state.take() else { return nil }
                return (waiter, first, hook)
            }
            state.enqueue(event)
            return nil
        }
        guard let (waiter, event, hook) = wake else { return }
        hook?()
        waiter.resume(returning: event)
    }

    /// True when the producer may push more body bytes. When false, `onDemand` is kept and called
    /// once the consumer has drained the buffer (checked and registered under one lock, so no wake-up
    /// is ever lost).
    func reserveCapacity(orCallWhenDrained onDemand: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state in
            if state.bufferedBytes < Self.highWater { return true }
            state.demandHook = onDemand
            return false
        }
    }

    /// Calls `hook` once the consumer has handled every event queued so far and asks for the next:
    /// at once when it is already waiting (or the channel is closed). A question whose asking must
    /// come after those events (a later part's response disposition, LC-10) waits for it.
    func callWhenConsumerCaughtUp(_ hook: @escaping @Sendable () -> Void) {
        typealias Wake = (CheckedContinuation<TaskEvent?, Never>, TaskEvent, (@Sendable () -> Void)?)
        let (now, wake) = state.withLock { state -> (Bool, Wake?) in
            if state.finished || (state.waiter != nil && state.isEmpty) { return (true, nil) }
            state.caughtUpHook = hook
            // A consumer sleeping through updates hears them now, so that it catches up.
            guard let waiter = state.waiter, case .event(let first, let demand) = state.take() else { return (false, nil) }
            state.waiter = nil
            return (false, (waiter, first, demand))
        }
        if now { hook() }
        if let (waiter, event, demand) = wake {
            demand?()
            waiter.resume(returning: event)
        }
    }

    // MARK: consumer side

    /// Claims the consumer role; false when someone already has it.
    func claimConsumer() -> Bool {
        state.withLock { state in
            if state.consumerTaken { return false }
            state.consumerTaken = true
            return true
        }
    }

    /// The next event, or nil after `.completed` was delivered. `wakingForUpdates` false: a consumer
    /// that would wait sleeps until an event arrives that needs it now (`needsConsumerNow`) or a
    /// question needs it to catch up, and then takes the events queued meanwhile first, in order.
    func next(wakingForUpdates: Bool = true) async -> TaskEvent? {
        removeHandedOutFile()
        switch take() {
        case .event(let event): return event
        case .end: return nil
        case .empty:
            return await withCheckedContinuation { continuation in
                // Check again under the lock that registers the waiter, so no push slips between.
                let (ready, hook): (TaskEvent??, (@Sendable () -> Void)?) = state.withLock { state in
                    switch state.take() {
                    case .event(let event, let hook): return (.some(event), hook)
                    case .end: return (.some(nil), nil)
                    case .empty:
                        state.waiter = continuation
                        state.waiterWakesForUpdates = wakingForUpdates
                        defer { state.caughtUpHook = nil }
                        return (nil, state.caughtUpHook)
                    }
                }
                hook?()
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }

    private enum Taken { case event(TaskEvent), end, empty }

    private func take() -> Taken {
        let taken = state.withLock { $0.take() }
        switch taken {
        case .event(let event, let hook):
            hook?()
            return .event(event)
        case .end: return .end
        case .empty: return .empty
        }
    }

    /// Keeps the unnamed `file` open until the consumer moves on from its `.downloadFinished` (or
    /// never reads it): pushed right after this.
    func holdOpen(_ file: DownloadFile) {
        state.withLock { $0.heldOpen.append(file) }
    }

    /// Drops the hand-out of the last download file, deleting it (DL-02).
    func removeHandedOutFile() {
        let (file, held) = state.withLock { state -> (URL?, DownloadFile?) in
            defer { state.fileToRemove = nil }
            guard let file = state.fileToRemove else { return (nil, nil) }
            guard let index = state.heldOpen.firstIndex(where: { $0.url == file }) else { return (file, nil) }
            return (file, state.heldOpen.remove(at: index))
        }
        if let held {
            held.remove()
        } else if let file {
            Self.removeIfPresent(file)
        }
    }

    /// Removes a handed-out file, which the consumer has most often moved away already. A lookup
    /// finds that out without the directory's lock, which unlink(2) takes even for a missing name,
    /// and so would wait behind the files other downloads are creating in that directory.
    private static func removeIfPresent(_ file: URL) {
        var status = stat()
        if lstat(file.path, &status) == 0 { unlink(file.path) }
    }

    deinit {
        // Download files that nobody took are not left behind.
        let (files, held) = state.withLock { state in (state.unreadFiles + (state.fileToRemove.map { [$0] } ?? []), state.heldOpen) }
        for file in held { file.remove() }
        for file in files where !UnnamedFiles.isUnnamed(file) { Self.removeIfPresent(file) }
    }
}

private extension TaskEvent {
    /// Wakes even a consumer that waits for the end: the end itself, body bytes (the producer pauses
    /// until they are read) and the hand-over to a download task.
    var needsConsumerNow: Bool {
        switch self {
        case .completed, .data, .becameDownload: true
        case .redirected, .response, .partCompleted, .progress, .resumed, .downloadFinished: false
        }
    }
}

/// A task's events as an `AsyncSequence`; a task has one consumer (see `SessionTask.events`).
public struct TaskEvents: AsyncSequence, Sendable {
    public typealias Element = TaskEvent
    let channel: TaskEventChannel?
    var wakesForUpdates = true

    /// The same events, in the same order, but a consumer that waits for the next one is woken only
    /// by `.completed`, body data or `.becameDownload` (or a delegate question that must come after
    /// the events so far); it then hears the events queued meanwhile first. For a consumer that acts
    /// only at the end, such as a silent download to a file: each wake-up costs a hand-off between
    /// threads, and a small download would otherwise pay two or three.
    public var untilCompletion: TaskEvents {
        var events = self
        events.wakesForUpdates = false
        return events
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let channel: TaskEventChannel?
        let wakesForUpdates: Bool
        public mutating func next() async -> TaskEvent? {
            await channel?.next(wakingForUpdates: wakesForUpdates)
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(channel: channel, wakesForUpdates: wakesForUpdates) }
}
