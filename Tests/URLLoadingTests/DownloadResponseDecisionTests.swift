import Foundation
import Synchronization
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// A download task's response head put to the delegate before any byte is written: the seeds ask
/// only data tasks (LC-08); the gateway asks this of downloads for a job's `response: ask` (LC-05).
@Suite("Download response decisions", .timeLimit(.minutes(2)))
struct DownloadResponseDecisionTests {
    final class ResponseJudge: SessionDelegate {
        let answer: ResponseDisposition
        let decides: Bool
        let heads = Mutex<[Int]>([])
        init(answer: ResponseDisposition, decides: Bool = true) {
            self.answer = answer
            self.decides = decides
        }
        var receivesTaskEvents: Bool { false }
        var decidesDownloadResponses: Bool { decides }
        func session(_ session: Session, downloadTask: DownloadTask, didReceive response: TransferResponse) async -> ResponseDisposition {
            heads.withLock { $0.append(response.statusCode ?? 0) }
            // Long enough that body bytes arrive meanwhile and must wait.
            try? await Task.sleep(for: .milliseconds(200))
            return answer
        }
    }

    /// Runs a download of `path` and returns its file's bytes (nil: none) and its error.
    static func download(_ path: String, judge: ResponseJudge, origin: OriginServer) async throws -> (Data?, TransferError?) {
        let session = try Fixture.session(delegate: judge)
        defer { session.finishTasksAndInvalidate() }
        let task = try session.downloadTask(with: Fixture.request(origin.url(path)))
        let events = task.events
        task.resume()
        var body: Data?
        var failure: TransferError?
        for await event in events {
            switch event {
            case .downloadFinished(let file): body = try Data(contentsOf: file)
            case .completed(let error): failure = error
            default: break
            }
        }
        return (body, failure)
    }

    @Test("allow: asked once with the head, then the whole body is written (LC-08 for downloads)")
    func allowWritesTheBody() async throws {
        try await Fixture.withOrigin { origin in
            let judge = ResponseJudge(answer: .allow)
            let (body, failure) = try await Self.download("/bytes/300000", judge: judge, origin: origin)
            #expect(failure == nil)
            #expect(body == Fixture.pattern(300_000))
            #expect(judge.heads.withLock { $0 } == [200])
        }
    }

    @Test("cancel: the task ends cancelled and no file is handed over")
    func cancelEndsTheTask() async throws {
        try await Fixture.withOrigin { origin in
            let judge = ResponseJudge(answer: .cancel)
            let (body, failure) = try await Self.download("/bytes/300000", judge: judge, origin: origin)
            #expect(body == nil)
            #expect(failure?.code == .cancelled)
            #expect(judge.heads.withLock { $0 } == [200])
        }
    }

    @Test("a delegate that does not decide download responses is never asked (the seeds' behaviour)")
    func notAskedByDefault() async throws {
        try await Fixture.withOrigin { origin in
            let judge = ResponseJudge(answer: .cancel, decides: false)
            let (body, failure) = try await Self.download("/bytes/1000", judge: judge, origin: origin)
            #expect(failure == nil)
            #expect(body == Fixture.pattern(1000))
            #expect(judge.heads.withLock { $0 }.isEmpty)
        }
    }

    @Test("after a redirect only the final response is asked about")
    func onlyTheFinalResponse() async throws {
        try await Fixture.withOrigin { origin in
            let judge = ResponseJudge(answer: .allow)
            let (body, failure) = try await Self.download("/redirect/2", judge: judge, origin: origin)
            #expect(failure == nil)
            #expect(body != nil)
            #expect(judge.heads.withLock { $0 } == [200])
        }
    }
}
