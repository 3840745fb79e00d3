/// A task's public state (LC-01, LC-02).
public enum TaskState: String, Sendable, Equatable {
    case suspended
    case running
    case canceling
    case completed
}

/// The one place a task's state changes: each call says what must happen as a result.
///
/// Tasks start suspended (LC-01). `resume` starts the transfer the first time and continues it
/// afterwards; `suspend` pauses it; `cancel` ends it through the error path (ER-04); `complete` is the
/// terminal step, and after it every call is a no-op (ER-07).
struct TaskLifecycle: Sendable {
    private(set) var state: TaskState = .suspended
    /// The transfer was handed to the session's scheduler at least once.
    private(set) var started = false

    enum ResumeAction: Equatable { case none, start, continueTransfer }
    enum CancelAction: Equatable { case none, finishNow, cancelTransfer }

    mutating func resume() -> ResumeAction {
        guard state == .suspended else { return .none }
        state = .running
        if started { return .continueTransfer }
        started = true
        return .start
    }

    /// True when a running transfer must be paused.
    mutating func suspend() -> Bool {
        guard state == .running else { return false }
        state = .suspended
        return started
    }

    mutating func cancel() -> CancelAction {
        switch state {
        case .suspended where !started:
            state = .canceling
            return .finishNow
        case .suspended, .running:
            state = .canceling
            return .cancelTransfer
        case .canceling, .completed:
            return .none
        }
    }

    /// False when the task had already completed.
    mutating func complete() -> Bool {
        guard state != .completed else { return false }
        state = .completed
        return true
    }
}
