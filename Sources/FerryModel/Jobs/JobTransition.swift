/// One change of a job's state that the state machine allows, with what it brings about besides the
/// new state. Stores carry these effects out and write the state they are given; none decides a
/// state of its own (design: "Every transition goes through one state machine").
///
/// The effects follow from the two states and the event by the rules below, so that a new row in
/// `JobStateMachine.transitions` cannot forget one.
public struct JobTransition: Sendable, Equatable, CustomStringConvertible {
    public let from: JobState
    public let event: JobEvent
    public let to: JobState

    package init(_ from: JobState, _ event: JobEvent, _ to: JobState) {
        self.from = from
        self.event = event
        self.to = to
    }

    /// The `job_events.type` the change writes, with its webhook deliveries, in the change's own
    /// transaction (`JobEventsTrigger` in FerryStore says how).
    public var announcedEventType: String { to.eventType }

    /// A worker takes the job: a new attempt (a `job_attempts` row) starts, and the worker holds
    /// the job's lease until the attempt ends.
    public var startsAttempt: Bool { to == .running }

    /// The running attempt is over: its `job_attempts` row gets an outcome, and the lease is
    /// released, so that the worker is free and no other write of that attempt can land.
    public var endsAttempt: Bool { from == .running }

    /// Only the worker holding the lease may carry this change out, because it owns the transfer
    /// (the partial file, the connection). Anyone else stores the event in `jobs.stop_request` and
    /// the worker ends its attempt with it; if the worker died, the lease expiry does.
    public var asksWorker: Bool { from == .running && JobEvent.stopRequests.contains(event) }

    /// The job runs again once its backoff has passed (`run_after`); nothing wakes the workers,
    /// whose polling finds it then.
    public var schedulesRetry: Bool { to == .retrying }

    /// Claimable at once: the workers are woken (NOTIFY on `JobQueue.channel`).
    public var wakesWorkers: Bool { to == .queued }

    /// The job is over: `finished_at` is set (the schema requires it exactly for final states), and
    /// its resume data goes, since nothing will continue the partial file.
    public var finishes: Bool { to.isTerminal }

    public var description: String { "\(from.rawValue) --\(event.rawValue)--> \(to.rawValue)" }
}

/// The job state machine as data: every legal transition is a row of `transitions`, and any
/// (state, event) pair without a row is refused. The stores' SQL takes its state lists from here
/// (`JobStateSQL` in FerryStore), so this table is the one place a transition is defined.
public enum JobStateMachine {
    /// The state a submitted job starts in (the `jobs.state` column default; a test compares them).
    public static let initialState = JobState.queued

    public static let transitions: [JobTransition] = [
        JobTransition(.queued, .claim, .running),
        JobTransition(.retrying, .claim, .running),
        JobTransition(.running, .leaseExpired, .queued),
        // A waiting job's attempt released its lease; should one still hold a lease, its expiry queues it.
        JobTransition(.waitingForDecision, .leaseExpired, .queued),
        JobTransition(.running, .release, .queued),
        JobTransition(.running, .succeed, .succeeded),
        JobTransition(.running, .fail, .failed),
        // An answer that rejects a certificate, or a decision left unanswered past its deadline.
        JobTransition(.waitingForDecision, .fail, .failed),
        JobTransition(.running, .retry, .retrying),
        JobTransition(.queued, .pause, .paused),
        JobTransition(.running, .pause, .paused),
        JobTransition(.waitingForDecision, .pause, .paused),
        JobTransition(.retrying, .pause, .paused),
        JobTransition(.paused, .resume, .queued),
        JobTransition(.queued, .cancel, .cancelled),
        JobTransition(.running, .cancel, .cancelled),
        JobTransition(.paused, .cancel, .cancelled),
        JobTransition(.waitingForDecision, .cancel, .cancelled),
        JobTransition(.retrying, .cancel, .cancelled),
        JobTransition(.running, .awaitDecision, .waitingForDecision),
        // Queued, not running: the waiting job holds no worker, and the next attempt is claimed as
        // any other; it replays the transfer to the decision, where the answer waits.
        JobTransition(.waitingForDecision, .decide, .queued),
    ]

    private struct Key: Hashable {
        var from: JobState
        var event: JobEvent
    }

    private static let byKey: [Key: JobTransition] = Dictionary(
        transitions.map { (Key(from: $0.from, event: $0.event), $0) }, uniquingKeysWith: { first, _ in first })

    /// The transition `event` makes from `state`, or why it is not allowed. Never changes silently.
    public static func apply(_ event: JobEvent, to state: JobState) -> Result<JobTransition, IllegalJobTransition> {
        guard let transition = byKey[Key(from: state, event: event)] else {
            return .failure(IllegalJobTransition(from: state, event: event))
        }
        return .success(transition)
    }

    /// The transitions `event` makes, one per state it is allowed from, in `JobState.allCases` order.
    public static func transitions(on event: JobEvent) -> [JobTransition] {
        JobState.allCases.compactMap { byKey[Key(from: $0, event: event)] }
    }

    /// The transition of a pair the caller names in its code (a statement written for it), which the
    /// table test shows legal; an illegal pair is a programming error.
    public static func transition(_ event: JobEvent, from state: JobState) -> JobTransition {
        guard case .success(let transition) = apply(event, to: state) else {
            preconditionFailure("\(state.rawValue) does not allow \(event.rawValue)")
        }
        return transition
    }

    /// How a worker ends its attempt: one of `JobEvent.attemptEnds`, from `running`.
    public static func attemptEnd(_ event: JobEvent) -> JobTransition {
        precondition(JobEvent.attemptEnds.contains(event), "a worker does not end its attempt with \(event.rawValue)")
        return transition(event, from: .running)
    }

    /// The worker's end of an attempt that leads to `state` (each leads to another state).
    public static func attemptEnd(reaching state: JobState) -> JobTransition {
        guard let event = JobEvent.attemptEnds.first(where: { attemptEnd($0).to == state }) else {
            preconditionFailure("no end of an attempt leads to \(state.rawValue)")
        }
        return attemptEnd(event)
    }
}

extension JobEvent {
    /// The events another party (the API, a session's invalidation) asks a running job's worker to
    /// carry out, stored as their raw value in `jobs.stop_request` (whose CHECK allows exactly these).
    public static let stopRequests: [JobEvent] = [.pause, .cancel]

    /// The events with which a worker ends its own attempt (`JobQueue.finish`).
    public static let attemptEnds: [JobEvent] = [.release, .succeed, .fail, .retry, .pause, .cancel, .awaitDecision]
}
