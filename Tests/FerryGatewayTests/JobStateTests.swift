@testable import FerryAPI
@testable import FerryGateway
@testable import FerryMetrics
@testable import FerryModel
@testable import FerryPrivatePostgres
@testable import FerryRuntime
@testable import FerryStore
@testable import FerryVault
@testable import FerryWebhooks
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
