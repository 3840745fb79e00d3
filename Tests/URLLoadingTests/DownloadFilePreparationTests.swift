import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// A download's file is made off the loop while its request is under way, and the body waits for it
/// when it comes first (DL-05).
///
/// Serialized: the second test holds the engine's file queue, which every new download of the
/// process uses; other suites' downloads only wait meanwhile.
@Suite("Download files made off the loop", .serialized, .timeLimit(.minutes(2)))
struct DownloadFilePreparationTests {
    static func temporaryFiles(in directory: TemporaryDirectory) -> [String] {
        ((try? directory.contents()) ?? []).filter { $0.hasPrefix(DownloadFile.defaultPrefix) }
    }

    @Test("the file is made while the request waits for its response; a cancelled download leaves none (DL-05, LC-15)")
    func madeBeforeTheResponse() async throws {
        try await Fixture.withOrigin { origin in
            let directory = try TemporaryDirectory()
            let task = try Fixture.session().downloadTask(with: Fixture.request(origin.url("/delay/3000")))
            task.temporaryDirectory = directory.url
            task.resume()
            try await Fixture.eventually("the file made") { Self.temporaryFiles(in: directory).count == 1 }
            #expect(task.response == nil)
            task.cancel()
            #expect(await task.waitUntilCompleted()?.code == .cancelled)
            try await Fixture.eventually("the file removed") { Self.temporaryFiles(in: directory).isEmpty }
        }
    }

    @Test("a body that arrives before its file waits for it, and an empty one too (DL-05)", arguments: [100_000, 0])
    func bodyWaitsForItsFile(_ length: Int) async throws {
        try await Fixture.withOrigin { origin in
            let directory = try TemporaryDirectory()
            let task = try Fixture.session().downloadTask(with: Fixture.request(origin.url("/bytes/\(length)")))
            task.temporaryDirectory = directory.url
            // No file can be made until the queue runs again: the response comes first for certain.
            TaskTransfer.fileQueue.suspend()
            var held = true
            defer { if held { TaskTransfer.fileQueue.resume() } }
            let events = task.events
            task.resume()
            try await Fixture.eventually("the response") { task.response != nil }
            #expect(Self.temporaryFiles(in: directory).isEmpty)
            #expect(task.state == .running)
            TaskTransfer.fileQueue.resume()
            held = false

            var contents: Data?
            for await event in events {
                if case .downloadFinished(let file) = event { contents = try? Data(contentsOf: file) }
            }
            #expect(task.error == nil)
            #expect(contents == Fixture.pattern(length))
            #expect(task.fileLength == Int64(length))
            #expect(Self.temporaryFiles(in: directory).isEmpty)
        }
    }
}
