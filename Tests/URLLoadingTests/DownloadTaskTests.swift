import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

@Suite("Download tasks", .timeLimit(.minutes(2)))
struct DownloadTaskTests {
    @Test("the file is handed over, then deleted when the handler returns (DL-02, DL-05)")
    func handlerGetsTemporaryFile() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let (location, contents) = try await session.download(for: Fixture.request(origin.url("/bytes/1000000"))) { url, response in
                #expect(response.statusCode == 200)
                return (url, try Data(contentsOf: url))
            }
            #expect(contents == Fixture.pattern(1_000_000))
            #expect(!FileManager.default.fileExists(atPath: location.path))
        }
    }

    @Test("download(for:to:) puts the body at the destination, replacing what was there (DL-04)")
    func downloadToDestination() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let directory = try TemporaryDirectory()
            let destination = directory.url.appendingPathComponent("file.bin")
            try Data("old".utf8).write(to: destination)
            let response = try await session.download(for: Fixture.request(origin.url("/bytes/123456")), to: destination)
            #expect(response.statusCode == 200)
            #expect(try Data(contentsOf: destination) == Fixture.pattern(123_456))
            #expect(try directory.contents() == ["file.bin"])
            let mode = try FileManager.default.attributesOfItem(atPath: destination.path)[.posixPermissions] as? Int
            #expect(mode == Int(0o666 & ~FileModes.processUmask))
        }
    }

    @Test("the delegate hears progress, the finished file and completion, in that order (DL-01, LC-12)")
    func delegateDownload() async throws {
        try await Fixture.withOrigin { origin in
            let delegate = RecordingDelegate()
            let session = try Fixture.session(delegate: delegate)
            let task = try session.downloadTask(with: Fixture.request(origin.url("/drip?bytes=300000&chunks=6&delay_ms=120")))
            task.resume()
            await task.waitUntilCompleted()
            try await Fixture.eventually("completion delivered") { delegate.entries.contains { $0.hasPrefix("complete") } }
            #expect(delegate.finishedDownloads.withLock { $0 } == [Fixture.pattern(300_000)])
            #expect(delegate.entries.suffix(2) == ["finishedDownloading", "complete \(task.taskIdentifier) ok"])
            let written = delegate.writtenTotals.withLock { $0 }
            #expect(written.count >= 2)
            #expect(written == written.sorted())
            #expect(written.last == 300_000)
        }
    }

    @Test("a 404 download completes with the response; check the status before trusting the file (DL-03, ER-10)")
    func notFoundIsAResponse() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let status = try await session.download(for: Fixture.request(origin.url("/status/404"))) { _, response in response.statusCode }
            #expect(status == 404)
        }
    }

    @Test("a connection lost mid-body fails with network_connection_lost and leaves no file (ER-01)")
    func connectionLost() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let directory = try TemporaryDirectory()
            let destination = directory.url.appendingPathComponent("partial.bin")
            let error = await #expect(throws: TransferError.self) {
                _ = try await session.download(for: Fixture.request(origin.url("/drop?bytes=100000")), to: destination)
            }
            #expect(error?.code == .networkConnectionLost)
            #expect(error?.curlCode != nil)
            #expect(try directory.contents().isEmpty)
        }
    }

    @Test("the completion-handler form gets the file, valid during the handler (DL-02, TT-08)")
    func completionHandler() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let (contents, location): (Data?, URL?) = await withCheckedContinuation { continuation in
                do {
                    let task = try session.downloadTask(with: Fixture.request(origin.url("/bytes/5000"))) { url, _, _ in
                        continuation.resume(returning: (url.flatMap { try? Data(contentsOf: $0) }, url))
                    }
                    task.resume()
                } catch {
                    continuation.resume(returning: (nil, nil))
                }
            }
            #expect(contents == Fixture.pattern(5000))
            let gone = try #require(location)
            try await Fixture.eventually("the file to be deleted") { !FileManager.default.fileExists(atPath: gone.path) }
        }
    }

    @Test(
        "events until completion: the consumer first hears of a slow download when it ends, then every event in order (LC-14)",
        arguments: [false, true])
    func eventsUntilCompletion(untilCompletion: Bool) async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let task = try session.downloadTask(with: Fixture.request(origin.url("/drip?bytes=300000&chunks=6&delay_ms=120")))
            let events = untilCompletion ? task.events.untilCompletion : task.events
            task.resume()
            var heard: [String] = []
            var completedWhenFirstHeard: Bool?
            var contents: Data?
            for await event in events {
                if completedWhenFirstHeard == nil { completedWhenFirstHeard = task.state == .completed }
                switch event {
                case .response(let response): heard.append("response \(response.statusCode ?? 0)")
                case .progress: if heard.last != "progress" { heard.append("progress") }
                case .downloadFinished(let file):
                    heard.append("finished")
                    contents = try? Data(contentsOf: file)
                case .completed(let error): heard.append(error == nil ? "completed" : "failed")
                default: heard.append("\(event)")
                }
            }
            // The control (every event as it comes) shows that the drip gives the response time to be
            // heard long before the end.
            #expect(completedWhenFirstHeard == untilCompletion)
            #expect(heard == ["response 200", "progress", "finished", "completed"])
            #expect(contents == Fixture.pattern(300_000), "the file is still there when its event is heard")
        }
    }
}

/// A directory under the system temporary directory, removed when the value is released.
final class TemporaryDirectory: @unchecked Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func contents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}
