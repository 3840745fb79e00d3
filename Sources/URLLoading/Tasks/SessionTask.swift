import Foundation

/// One request and its follow-ups (TT-01, TT-06): the base of data, download and upload tasks.
///
/// Thread-safe. Tasks start suspended (LC-01); `resume()` starts them. Progress and state can be read at
/// any time; the task's events go to exactly one consumer: the session's delegate if it has one, the
/// async API that created the task, or whoever iterates `events`.
public class SessionTask: @unchecked Sendable, CustomStringConvertible {
    enum Kind: Sendable { case data, download, upload }

    public let taskIdentifier: Int
    /// The request as created (LC-20: a copy, unaffected by later changes to the caller's value).
    public let originalRequest: TransferRequest
    public let session: Session
    let kind: Kind
    let channel = TaskEventChannel()

    struct State {
        var lifecycle = TaskLifecycle()
        var currentRequest: TransferRequest
        var response: TransferResponse?
        var progress = TransferProgress()
        var error: TransferError?
        var priority: Float
        /// Where the transfer runs once the scheduler started it; nil before and after.
        var transfer: TaskTransfer?
        var completionWaiters: [CheckedContinuation<Void, Never>] = []
        var completed = false
        var metrics = TaskMetrics()
        /// When a transfer first ran for the task: the start of `metrics.taskInterval`.
        var startedAt: Date?
        var taskDescription: String?
        /// A background session's task: when it first started, in whichever process (its resource
        /// deadline counts from there), how many attempts failed on the network, and whether it
        /// waits to try again (BG-06).
        var backgroundCreatedAt: Date?
        var failedAttempts = 0
        var awaitingRetry = false
    }

    let guarded: Locked<State>

    init(session: Session, identifier: Int, request: TransferRequest, kind: Kind) {
        self.session = session
        self.taskIdentifier = identifier
        self.originalRequest = request
        self.kind = kind
        self.guarded = Locked(State(currentRequest: request, priority: request.priority))
    }

    // MARK: public state

    public var state: TaskState { guarded.withLock { $0.lifecycle.state } }
    /// The request being sent now; differs from the original after redirects.
    public var currentRequest: TransferRequest { guarded.withLock { $0.currentRequest } }
    /// The final response, once its headers arrived.
    public var response: TransferResponse? { guarded.withLock { $0.response } }
    public var progress: TransferProgress { guarded.withLock { $0.progress } }
    /// Why the task failed, once it completed; nil on success.
    public var error: TransferError? { guarded.withLock { $0.error } }
    /// What each request of the task cost (`TransactionMetrics`), so far; complete once the task is.
    public var metrics: TaskMetrics { guarded.withLock { $0.metrics } }

    /// Scheduling priority, 0...1: when all connections to a host are busy, the highest priority waiting
    /// task starts first. Changes matter until the task starts.
    public var priority: Float {
        get { guarded.withLock { $0.priority } }
        set { guarded.withLock { $0.priority = min(1, max(0, newValue)) } }
    }

    /// The caller's note on the task, for its own use. A background session keeps it with the task,
    /// so that the session taking it up in a later process knows what the task was for (BG-08).
    public var taskDescription: String? {
        get { guarded.withLock { $0.taskDescription } }
        set {
            guarded.withLock { $0.taskDescription = newValue }
            session.backgroundBook?.taskChanged(self)
        }
    }

    public var description: String {
        "\(type(of: self))(\(taskIdentifier), \(originalRequest.method) \(originalRequest.url.absoluteString), \(state))"
    }

    // MARK: control

    /// Starts the task, or continues it after `suspend()`.
    public func resume() {
        let (action, transfer) = guarded.withLock { ($0.lifecycle.resume(), $0.transfer) }
        switch action {
        case .none: break
        case .start:
            if let failure = session.startingBackgroundTask(self) {
                finish(error: failure)
                return
            }
            session.scheduler.submit(self)
        case .continueTransfer:
            if let transfer { transfer.post { $0.setUserPaused(false) } } else { session.scheduler.wake() }
        }
    }

    /// Pauses the transfer, keeping its connection (LC-02); `resume()` continues it.
    public func suspend() {
        let (mustPause, transfer) = guarded.withLock { ($0.lifecycle.suspend(), $0.transfer) }
        if mustPause, let transfer { transfer.post { $0.setUserPaused(true) } }
    }

    /// Ends the task with a `cancelled` error (LC-15, ER-04).
    public func cancel() {
        let (action, transfer) = guarded.withLock { ($0.lifecycle.cancel(), $0.transfer) }
        switch action {
        case .none: break
        case .finishNow: finish(error: cancellationWithoutTransfer())
        case .cancelTransfer:
            if let transfer {
                transfer.post { $0.cancel() }
            } else if session.scheduler.withdraw(self) || stopAwaitingRetry() {
                finish(error: cancellationWithoutTransfer())
            }
        }
    }

    /// The task's events (LC-14). A task has a single consumer: with a session delegate, or when the
    /// task came from an async convenience method, the events are already taken and this sequence is
    /// empty. Subscribe before `resume()` to see every event.
    public var events: TaskEvents {
        TaskEvents(channel: channel.claimConsumer() ? channel : nil)
    }

    /// Waits until the task completes; returns its error, nil on success.
    @discardableResult
    public func waitUntilCompleted() async -> TransferError? {
        await withCheckedContinuation { continuation in
            let done = guarded.withLock { state -> Bool in
                if state.completed { return true }
                state.completionWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
        return error
    }

    var isUserSuspended: Bool { guarded.withLock { $0.lifecycle.state == .suspended } }

    // MARK: called by the transfer

    /// Makes the running transfer reachable by suspend/resume/cancel; returns the state at that moment.
    func attach(_ transfer: TaskTransfer) -> TaskState {
        guarded.withLock { state in
            state.transfer = transfer
            if state.startedAt == nil { state.startedAt = Date() }
            return state.lifecycle.state
        }
    }

    func setCurrentRequest(_ request: TransferRequest) {
        guarded.withLock { $0.currentRequest = request }
    }

    func setResponse(_ response: TransferResponse) {
        guarded.withLock { $0.response = response }
    }

    func recordTransaction(_ transaction: TransactionMetrics) {
        guarded.withLock { $0.metrics.transactions.append(transaction) }
    }

    func recordRedirect() {
        guarded.withLock { $0.metrics.redirectCount += 1 }
    }

    func updateProgress(_ update: (inout TransferProgress) -> Void) {
        guarded.withLock { update(&$0.progress) }
    }

    // MARK: background retries (BG-06)

    var backgroundCreatedAt: Date? { guarded.withLock { $0.backgroundCreatedAt } }

    /// A background task's resource deadline: `resourceTimeout` after its first start, across processes.
    var backgroundDeadline: Date? {
        backgroundCreatedAt.map { $0.addingTimeInterval(session.configuration.resourceTimeout) }
    }

    /// The time of the first start, for a new background task, or the one its record kept.
    func markBackgroundStart(at date: Date) {
        guarded.withLock { state in
            if state.backgroundCreatedAt == nil { state.backgroundCreatedAt = date }
        }
    }

    /// The transfer ended with `error` (nil: success). A background task that failed on the network
    /// tries again later, as a new transfer of the same task (BG-06); anything else completes it.
    func transferEnded(error: TransferError?) {
        guard let error, let book = session.backgroundBook else {
            finish(error: error)
            return
        }
        let delay = guarded.withLock { state -> TimeInterval? in
            // A cancellation that raced with the failure wins.
            guard state.lifecycle.state == .running || state.lifecycle.state == .suspended else { return nil }
            // Read here, under the lock already held (`backgroundDeadline` would take it again).
            guard let createdAt = state.backgroundCreatedAt,
                let delay = book.retryDelay(
                    after: error, failedAttempts: state.failedAttempts + 1,
                    deadline: createdAt.addingTimeInterval(session.configuration.resourceTimeout))
            else { return nil }
            state.failedAttempts += 1
            state.transfer = nil
            state.awaitingRetry = true
            return delay
        }
        guard let delay else {
            finish(error: error)
            return
        }
        willRetry(after: error)
        // The host's place goes to others meanwhile; the next attempt queues for one again.
        session.scheduler.release(self)
        Task {
            try? await Task.sleep(for: .milliseconds(Int64((delay * 1000).rounded(.up))))
            self.retryNow()
        }
    }

    private func retryNow() {
        let submit = guarded.withLock { state -> Bool? in
            guard state.awaitingRetry else { return nil }
            state.awaitingRetry = false
            guard state.lifecycle.state != .canceling else { return false }
            // The next attempt sends the original request again, following redirects anew.
            state.currentRequest = originalRequest
            return true
        }
        switch submit {
        case true?: session.scheduler.submit(self)
        case false?: finish(error: cancellationWithoutTransfer())
        case nil: break
        }
    }

    /// True when the task was waiting to try again, which it now no longer does (it is cancelled).
    private func stopAwaitingRetry() -> Bool {
        guarded.withLock { state in
            defer { state.awaitingRetry = false }
            return state.awaitingRetry
        }
    }

    /// A task taken up from a background store gets back what its record kept.
    func restoreBackgroundRecord(description: String?, createdAt: Date) {
        guarded.withLock { state in
            state.taskDescription = description
            state.backgroundCreatedAt = createdAt
        }
    }

    /// Subclasses keep what the next attempt continues from.
    func willRetry(after error: TransferError) {}

    /// Records the outcome, emits `.completed`, wakes waiters and tells the session. Runs once.
    func finish(error: TransferError?) {
        let waiters: [CheckedContinuation<Void, Never>]? = guarded.withLock { state in
            guard state.lifecycle.complete() else { return nil }
            state.error = error
            state.completed = true
            if let start = state.startedAt { state.metrics.taskInterval = DateInterval(start: start, end: max(start, Date())) }
            state.transfer = nil
            defer { state.completionWaiters = [] }
            return state.completionWaiters
        }
        guard let waiters else { return }
        // No longer outstanding, before anyone can hear of the completion (BG-12).
        session.backgroundBook?.taskCompleted(self)
        willComplete()
        channel.push(.completed(error))
        for waiter in waiters { waiter.resume() }
        session.taskDidComplete(self)
    }

    /// For a task born running (a data task's conversion, LC-09): takes over `transfer`.
    func adoptRunningTransfer(_ transfer: TaskTransfer, response: TransferResponse, progress: TransferProgress) {
        guarded.withLock { state in
            _ = state.lifecycle.resume()
            state.transfer = transfer
            state.response = response
            state.progress = progress
        }
    }

    /// The task as its transfer sees it: each kind names itself, so the transfer never casts.
    var transferRole: TransferRole {
        preconditionFailure("\(type(of: self)) names no transfer role")
    }

    /// Subclasses store what they hand out on completion, before waiters wake.
    func willComplete() {}

    /// The error of a task cancelled before any transfer ran for it; subclasses settle what they own.
    func cancellationWithoutTransfer() -> TransferError {
        .cancelled(originalRequest.url)
    }
}
