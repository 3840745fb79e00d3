@testable import FerryModel
@testable import FerryStore
import Testing

@Suite("Job state machine")
struct JobStateTests {
    @Test("the documented lifecycle: queued → running → succeeded, with retries and pauses")
    func happyPaths() throws {
        func step(_ state: JobState, _ event: JobEvent) throws -> JobState { try state.applying(event).get() }
        #expect(try step(.queued, .claim) == .running)
        #expect(try step(.running, .retry) == .retrying)
        #expect(try step(.retrying, .claim) == .running)
        #expect(try step(.running, .succeed) == .succeeded)
        #expect(try step(.running, .pause) == .paused)
        #expect(try step(.paused, .resume) == .queued)
        #expect(try step(.running, .leaseExpired) == .queued)
        #expect(try step(.running, .awaitDecision) == .waitingForDecision)
        // An answered decision queues the job again: the waiting job holds no worker.
        #expect(try step(.waitingForDecision, .decide) == .queued)
        #expect(try step(.waitingForDecision, .fail) == .failed)
        #expect(try step(.waitingForDecision, .pause) == .paused)
        for state in JobState.allCases where !state.isTerminal {
            #expect(try step(state, .cancel) == .cancelled, "\(state)")
        }
    }

    @Test("terminal states accept nothing, and illegal transitions say why (409 illegal_transition)")
    func illegalTransitions() {
        for state in JobState.allCases where state.isTerminal {
            for event in JobEvent.allCases {
                guard case .failure(let refusal) = state.applying(event) else {
                    Issue.record("\(state) accepted \(event)")
                    continue
                }
                #expect(refusal.code == "illegal_transition")
            }
        }
        guard case .failure(let refusal) = JobState.succeeded.applying(.resume) else {
            Issue.record("resume of a succeeded job was accepted")
            return
        }
        #expect(refusal.description == "only a paused job can be resumed; this job is succeeded")
        #expect(JobState.queued.applying(.succeed) == .failure(IllegalJobTransition(from: .queued, event: .succeed)))
        #expect(JobState.paused.applying(.claim) == .failure(IllegalJobTransition(from: .paused, event: .claim)))
    }

    @Test("only a running attempt stops at a decision, and only a waiting job takes an answer")
    func decisions() {
        for state in JobState.allCases where state != .running {
            #expect(state.applying(.awaitDecision) == .failure(IllegalJobTransition(from: state, event: .awaitDecision)), "\(state)")
        }
        for state in JobState.allCases where state != .waitingForDecision {
            #expect(state.applying(.decide) == .failure(IllegalJobTransition(from: state, event: .decide)), "\(state)")
        }
    }

    /// What a transition brings about besides its new state (`JobTransition`).
    enum Effect: CaseIterable {
        case startsAttempt, endsAttempt, asksWorker, schedulesRetry, wakesWorkers, finishes

        func holds(for transition: JobTransition) -> Bool {
            switch self {
            case .startsAttempt: transition.startsAttempt
            case .endsAttempt: transition.endsAttempt
            case .asksWorker: transition.asksWorker
            case .schedulesRetry: transition.schedulesRetry
            case .wakesWorkers: transition.wakesWorkers
            case .finishes: transition.finishes
            }
        }
    }

    /// Every legal transition with its effects, written out by hand; every pair not here is illegal.
    static let expected: [(JobState, JobEvent, JobState, Set<Effect>)] = [
        (.queued, .claim, .running, [.startsAttempt]),
        (.retrying, .claim, .running, [.startsAttempt]),
        (.running, .leaseExpired, .queued, [.endsAttempt, .wakesWorkers]),
        (.waitingForDecision, .leaseExpired, .queued, [.wakesWorkers]),
        (.running, .release, .queued, [.endsAttempt, .wakesWorkers]),
        (.running, .succeed, .succeeded, [.endsAttempt, .finishes]),
        (.running, .fail, .failed, [.endsAttempt, .finishes]),
        (.waitingForDecision, .fail, .failed, [.finishes]),
        (.running, .retry, .retrying, [.endsAttempt, .schedulesRetry]),
        (.queued, .pause, .paused, []),
        (.running, .pause, .paused, [.endsAttempt, .asksWorker]),
        (.waitingForDecision, .pause, .paused, []),
        (.retrying, .pause, .paused, []),
        (.paused, .resume, .queued, [.wakesWorkers]),
        (.queued, .cancel, .cancelled, [.finishes]),
        (.running, .cancel, .cancelled, [.endsAttempt, .asksWorker, .finishes]),
        (.paused, .cancel, .cancelled, [.finishes]),
        (.waitingForDecision, .cancel, .cancelled, [.finishes]),
        (.retrying, .cancel, .cancelled, [.finishes]),
        (.running, .awaitDecision, .waitingForDecision, [.endsAttempt]),
        (.waitingForDecision, .decide, .queued, [.wakesWorkers]),
    ]

    @Test("the whole table: every (state, event) pair is the expected transition with its effects, or refused")
    func wholeTable() {
        var checked = 0
        for state in JobState.allCases {
            for event in JobEvent.allCases {
                checked += 1
                let row = Self.expected.first { $0.0 == state && $0.1 == event }
                switch (JobStateMachine.apply(event, to: state), row) {
                case (.success(let transition), .some(let row)):
                    let (to, effects) = (row.2, row.3)
                    #expect(transition.from == state && transition.event == event && transition.to == to, "\(transition)")
                    #expect(Set(Effect.allCases.filter { $0.holds(for: transition) }) == effects, "\(transition)")
                    #expect(transition.announcedEventType == to.eventType, "\(transition)")
                    #expect(state.applying(event) == .success(to), "JobState.applying agrees: \(transition)")
                case (.failure(let refusal), nil):
                    #expect(refusal == IllegalJobTransition(from: state, event: event))
                    #expect(state.applying(event) == .failure(refusal))
                case (.success(let transition), nil):
                    Issue.record("\(transition) is allowed, but the expected table refuses it")
                case (.failure, let row?):
                    Issue.record("\(state.rawValue) refuses \(event.rawValue), expected to lead to \(row.2.rawValue)")
                }
            }
        }
        #expect(checked == JobState.allCases.count * JobEvent.allCases.count)
        #expect(JobStateMachine.transitions.count == Self.expected.count, "each pair has at most one row")
        #expect(JobStateMachine.initialState == .queued)
    }

    @Test("a worker ends its attempt with one event per end state, each from running; others ask the worker through stop_request")
    func attemptEndsAndStopRequests() {
        for event in JobEvent.attemptEnds {
            let end = JobStateMachine.attemptEnd(event)
            #expect(end.from == .running && end.endsAttempt, "\(end)")
            #expect(JobStateMachine.attemptEnd(reaching: end.to) == end, "\(end) is the only end that leads to \(end.to.rawValue)")
        }
        #expect(Set(JobEvent.attemptEnds.map { JobStateMachine.attemptEnd($0).to }).count == JobEvent.attemptEnds.count)
        #expect(JobEvent.stopRequests.map(\.rawValue) == ["pause", "cancel"], "the values jobs.stop_request's CHECK allows")
        let completion = JobQueue.Completion(.retry, attemptOutcome: "retrying", progress: .init(bytesDone: 0))
        #expect(completion.transition == JobStateMachine.attemptEnd(.retry))
    }

    @Test("a state's event type is job.<state>, and waiting for a decision is announced as job.decision_required")
    func eventTypes() {
        #expect(JobState.succeeded.eventType == "job.succeeded")
        #expect(JobState.waitingForDecision.eventType == "job.decision_required")
    }

    @Test("every state has a stable stored name")
    func storedNames() {
        #expect(JobState.allCases.map(\.rawValue) == [
            "queued", "running", "paused", "waiting_for_decision", "retrying", "succeeded", "failed", "cancelled",
        ])
    }
}
