import Testing
@testable import URLLoading

@Suite("Task lifecycle state machine")
struct TaskLifecycleStateMachineTests {
    @Test("allowed transitions say what to do; everything after completion is a no-op (LC-01, LC-02, ER-07)")
    func transitions() {
        var lifecycle = TaskLifecycle()
        #expect(lifecycle.state == .suspended)
        #expect(lifecycle.suspend() == false)
        #expect(lifecycle.resume() == .start)
        #expect(lifecycle.resume() == .none)
        #expect(lifecycle.suspend() == true)
        #expect(lifecycle.state == .suspended)
        #expect(lifecycle.resume() == .continueTransfer)
        #expect(lifecycle.cancel() == .cancelTransfer)
        #expect(lifecycle.state == .canceling)
        #expect(lifecycle.cancel() == .none)
        #expect(lifecycle.complete() == true)
        #expect(lifecycle.complete() == false)
        #expect(lifecycle.resume() == .none)
        #expect(lifecycle.suspend() == false)
        #expect(lifecycle.state == .completed)
    }

    @Test("a task cancelled before it ever started finishes at once")
    func cancelBeforeStart() {
        var lifecycle = TaskLifecycle()
        #expect(lifecycle.cancel() == .finishNow)
    }
}
