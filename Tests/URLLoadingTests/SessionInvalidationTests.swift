import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

@Suite("Session invalidation", .timeLimit(.minutes(2)))
struct SessionInvalidationTests {
    @Test("finishTasksAndInvalidate lets running tasks finish, then reports invalid last (SES-33, LC-14)")
    func finishThenInvalidate() async throws {
        try await Fixture.withOrigin { origin in
            let delegate = RecordingDelegate()
            let session = try Fixture.session(delegate: delegate)
            let task = try session.dataTask(with: Fixture.request(origin.url("/delay/300")))
            task.resume()
            session.finishTasksAndInvalidate()
            #expect(throws: TransferError.self) { _ = try session.dataTask(with: Fixture.request(origin.url("/bytes/1"))) }
            await session.waitUntilInvalidated()
            #expect(task.error == nil)
            #expect(session.isInvalidated)
            #expect(delegate.entries.suffix(2) == ["complete \(task.taskIdentifier) ok", "invalid"])
        }
    }

    @Test("invalidateAndCancel cancels outstanding tasks (SES-33, ER-04)")
    func invalidateAndCancel() async throws {
        try await Fixture.withOrigin { origin in
            let delegate = RecordingDelegate()
            let session = try Fixture.session(delegate: delegate)
            let running = try session.dataTask(with: Fixture.request(origin.url("/stall?bytes=10")))
            let neverStarted = try session.downloadTask(with: Fixture.request(origin.url("/bytes/10")))
            running.resume()
            try await Fixture.eventually("the request") { origin.requests.count == 1 }
            session.invalidateAndCancel()
            await session.waitUntilInvalidated()
            #expect(running.error?.code == .cancelled)
            #expect(neverStarted.error?.code == .cancelled)
            #expect(delegate.entries.last == "invalid")
            let error = await #expect(throws: TransferError.self) {
                _ = try await session.data(for: Fixture.request(origin.url("/bytes/1")))
            }
            #expect(error?.code == .sessionInvalidated)
        }
    }

    @Test("a session with no tasks becomes invalid at once, and says so exactly once (SES-33)")
    func emptySession() async throws {
        let delegate = RecordingDelegate()
        let session = try Fixture.session(delegate: delegate)
        session.finishTasksAndInvalidate()
        session.invalidateAndCancel()
        session.invalidateAndCancel()
        await session.waitUntilInvalidated()
        try await Task.sleep(for: .milliseconds(100))
        #expect(delegate.entries == ["invalid"])
    }
}
