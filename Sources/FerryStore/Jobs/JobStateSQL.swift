import FerryModel

/// The state parts of the statements that change `jobs.state` in sets (a claim of many jobs, the
/// lease expiry, a session's cancellation), generated from `JobStateMachine.transitions` so that the
/// table stays the one definition of what may change into what. Statements that change one job take
/// the transition decided in Swift as a bound value instead.
///
/// Each fragment is computed once, so a prepared statement has the same text on every execution,
/// and it reads as hand-written SQL would: `claimable` is `'queued', 'retrying'` in that order,
/// exactly the predicate of the partial index `jobs_claimable_in_order` (migrations/0018) that the claim's
/// plan depends on.
enum JobStateSQL {
    /// When a job whose policies are `policies` (a jsonb expression) may run at the earliest from now:
    /// not before its `not_before` (BG-18).
    static func earliestRun(policies: String) -> String {
        "greatest(now(), coalesce((\(policies)->>'not_before')::timestamptz, now()))"
    }

    /// `'queued'`.
    static func literal(_ state: JobState) -> String {
        "'\(state.rawValue)'"
    }

    /// `'queued', 'retrying'`: the states the transitions start from, for `state IN (...)`.
    static func list(from transitions: [JobTransition]) -> String {
        list(transitions.map(\.from))
    }

    static func list(_ states: [JobState]) -> String {
        states.map(literal).joined(separator: ", ")
    }

    /// The one rendering of `value` that every transition gives. A statement that writes one
    /// expression for all of its rows relies on it; were the table to send them to different
    /// states, the statement would need a `CASE state` and this stops the process at its first use
    /// (every test that touches the store).
    static func common(_ transitions: [JobTransition], _ value: (JobTransition) -> String) -> String {
        let values = Set(transitions.map(value))
        guard values.count == 1, let only = values.first else {
            preconditionFailure("the transitions \(transitions) do not agree on one value: \(values.sorted())")
        }
        return only
    }

    // MARK: - Claim (`ClaimJobsStatement`, and the queue's room, which counts the same jobs)

    /// The states a worker claims jobs from.
    static let claimable = list(from: JobStateMachine.transitions(on: .claim))
    /// The state a claimed job is in while its worker holds it.
    static let claimed = common(JobStateMachine.transitions(on: .claim)) { literal($0.to) }

    // MARK: - Lease expiry (`JobQueue.takeBackExpiredLeases`)

    /// The states whose lease can expire.
    static let expirable = list(from: JobStateMachine.transitions(on: .leaseExpired))

    /// `CASE stop_request WHEN 'pause' THEN … WHEN 'cancel' THEN … ELSE … END`: a job whose lease
    /// expired while a stop was asked of its worker gets the stop's transition (the worker would
    /// have written it); otherwise the expiry's. `value` renders what the statement writes for it.
    static func onExpiry(_ value: (JobTransition) -> String) -> String {
        let states = JobStateMachine.transitions(on: .leaseExpired).map(\.from)
        func among(_ event: JobEvent) -> [JobTransition] {
            JobStateMachine.transitions(on: event).filter { states.contains($0.from) }
        }
        let stops = JobEvent.stopRequests.map { event in "WHEN '\(event.rawValue)' THEN \(common(among(event), value))" }
        return "CASE stop_request \(stops.joined(separator: " ")) ELSE \(common(among(.leaseExpired), value)) END"
    }

    // MARK: - A session's cancellation (`SessionStore.invalidate`)

    /// The states a cancel changes at once, without a worker.
    static let cancellableAtOnce = list(from: JobStateMachine.transitions(on: .cancel).filter { !$0.asksWorker })
    static let cancelled = common(JobStateMachine.transitions(on: .cancel)) { literal($0.to) }
    /// `'cancel'`: a stop request, as `jobs.stop_request` stores it.
    static func literalStopRequest(_ event: JobEvent) -> String {
        precondition(JobEvent.stopRequests.contains(event), "\(event.rawValue) is not asked of a worker")
        return "'\(event.rawValue)'"
    }

    /// The states whose cancel is asked of the worker (`jobs.stop_request`).
    static let cancellableByWorker = list(from: JobStateMachine.transitions(on: .cancel).filter(\.asksWorker))
}
