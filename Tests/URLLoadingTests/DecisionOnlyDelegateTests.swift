import Foundation
import Synchronization
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// A delegate that only decides (`receivesTaskEvents` false, as the gateway's per-job decision
/// maker): it is still asked about redirects (RD-02), while every task event stays in `task.events`
/// for the code that made the task (LC-14), as without a delegate.
@Suite("Decision-only delegates", .timeLimit(.minutes(2)))
struct DecisionOnlyDelegateTests {
    final class RedirectChanger: SessionDelegate {
        let target: URL
        let asked = Mutex(0)
        init(target: URL) { self.target = target }
        var receivesTaskEvents: Bool { false }
        func session(_ session: Session, task: SessionTask, willPerformRedirection response: TransferResponse,
                     newRequest: TransferRequest) async -> RedirectDisposition {
            asked.withLock { $0 += 1 }
            var changed = newRequest
            changed.url = target
            return .follow(changed)
        }
        // Would be called for a delegate that receives events; must not be for this one.
        let finishedCalls = Mutex(0)
        func session(_ session: Session, downloadTask: DownloadTask, didFinishDownloadingTo location: URL) async {
            finishedCalls.withLock { $0 += 1 }
        }
    }

    @Test("a download task's events reach task.events while the delegate decides its redirect (RD-02, LC-14)")
    func eventsStayWithTheTask() async throws {
        try await Fixture.withOrigin { origin in
            let delegate = RedirectChanger(target: Fixture.url(origin.url("/bytes/321")))
            let session = try Fixture.session(delegate: delegate)
            let task = try session.downloadTask(with: Fixture.request(origin.url("/redirect/1")))
            let events = task.events
            task.resume()
            var body: Data?
            var completed = false
            for await event in events {
                switch event {
                case .downloadFinished(let file): body = try Data(contentsOf: file)
                case .completed(let error):
                    #expect(error == nil)
                    completed = true
                default: break
                }
            }
            #expect(completed, "the task's own sequence got its events")
            #expect(body == Fixture.pattern(321))
            #expect(delegate.asked.withLock { $0 } == 1)
            #expect(delegate.finishedCalls.withLock { $0 } == 0)
            session.finishTasksAndInvalidate()
        }
    }
}
