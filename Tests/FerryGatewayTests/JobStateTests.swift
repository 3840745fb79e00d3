import Testing
@testable import FerryGateway

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
        #expect(try step(.waitingForDecision, .decide) == .running)
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

    @Test("every state has a stable stored name")
    func storedNames() {
        #expect(JobState.allCases.map(\.rawValue) == [
            "queued", "running", "paused", "waiting_for_decision", "retrying", "succeeded", "failed", "cancelled",
        ])
    }
}
