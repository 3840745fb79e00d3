/// A job's state (design: "States"). Stored as its raw value in `jobs.state`.
public enum JobState: String, Sendable, Codable, CaseIterable {
    case queued
    case running
    case paused
    /// A challenge, redirect or trust decision the client answers over the API; no worker holds it.
    case waitingForDecision = "waiting_for_decision"
    /// Failed an attempt; waits for its backoff, then runs again.
    case retrying
    case succeeded
    case failed
    case cancelled

    /// The type of the event (`job_events.type`, webhook subscriptions) a change into this state
    /// writes: `job.<state>`, except that waiting for a decision is announced as `job.decision_required`
    /// (the database trigger maps it the same way: `JobEventsTrigger`).
    public var eventType: String {
        self == .waitingForDecision ? "job.decision_required" : "job.\(rawValue)"
    }

    /// No transition leaves these.
    public var isTerminal: Bool {
        self == .succeeded || self == .failed || self == .cancelled
    }
}

/// What can happen to a job. Every state change is a row of `JobStateMachine.transitions`.
public enum JobEvent: String, Sendable, CaseIterable {
    /// A worker takes the job (from queued, or retrying once its backoff passed).
    case claim
    /// A worker's lease ran out (the worker died): the job goes back to be claimed again.
    case leaseExpired
    /// The worker gives a running job back unfinished (ferryd shutting down): queued for the next.
    case release
    case succeed
    case fail
    /// An attempt failed in a way worth retrying, and attempts remain.
    case retry
    case pause
    case resume
    case cancel
    /// The attempt stopped at a decision only the client can make.
    case awaitDecision
    /// The client answered: the job runs again and replays to the decision, where the answer waits.
    case decide
}

/// A transition the state machine refuses: an API answers it with 409 and this code.
public struct IllegalJobTransition: Error, Equatable, Sendable, CustomStringConvertible {
    public let from: JobState
    public let event: JobEvent
    public var code: String { "illegal_transition" }

    public var description: String {
        switch event {
        case .resume where from != .paused: "only a paused job can be resumed; this job is \(from.rawValue)"
        case .pause: "a \(from.rawValue) job cannot be paused"
        case .cancel: "a \(from.rawValue) job cannot be cancelled"
        default: "a \(from.rawValue) job cannot \(event.rawValue)"
        }
    }

    package init(from: JobState, event: JobEvent) {
        self.from = from
        self.event = event
    }
}

extension JobState {
    /// The state after `event` (`JobStateMachine.apply` gives the whole transition with its effects),
    /// or why the event is not allowed now.
    public func applying(_ event: JobEvent) -> Result<JobState, IllegalJobTransition> {
        JobStateMachine.apply(event, to: self).map(\.to)
    }
}
