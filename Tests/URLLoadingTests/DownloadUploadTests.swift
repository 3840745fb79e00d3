import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// Download tasks that send a body (`downloadTask(with:uploading:)`): an upload job whose response
/// goes to a file.
@Suite("Downloads sending a body", .timeLimit(.minutes(2)))
struct DownloadUploadTests {
    @Test("a file body is sent with POST, its progress reported, and the echoed response lands in the download's file (TT-09, UP-11, UP-03, LC-11)")
    func fileBodyToEcho() async throws {
        try await Fixture.withOrigin { origin in
            let directory = try TemporaryDirectory()
            let source = directory.url.appendingPathComponent("body.bin")
            let body = Fixture.pattern(700_000)
            try body.write(to: source)
            let delegate = RecordingDelegate()
            let session = try Fixture.session(delegate: delegate)

            let task = try session.downloadTask(with: Fixture.request(origin.url("/echo")), uploading: .file(source))
            #expect(task.originalRequest.method == "POST")
            task.resume()
            #expect(await task.waitUntilCompleted() == nil)
            try await Fixture.eventually("completion delivered") { delegate.entries.contains { $0.hasPrefix("complete") } }

            let files = delegate.finishedDownloads.withLock { $0 }
            #expect(files.count == 1)
            let report = try Fixture.echo(try #require(files.first))
            #expect(report.method == "POST")
            #expect(report.body_length == body.count)
            #expect(report.body == body)
            #expect(report.header("Content-Type") == "application/octet-stream")
            #expect(report.header("Content-Length") == String(body.count))
            #expect(task.response?.statusCode == 200)
            #expect(task.fileLength == Int64(files.first?.count ?? -1))
            // Bytes sent count, as for an upload task.
            #expect(task.progress.bytesSent == Int64(body.count))
            #expect(task.progress.totalBytesExpectedToSend == Int64(body.count))
            #expect(delegate.sentTotals.withLock { $0 }.last == Int64(body.count))
            #expect(delegate.writtenTotals.withLock { $0 }.last == task.fileLength)
        }
    }

    @Test("a 307 or 308 sends the body again with the same method; a streamed body asks for a new stream (TT-09, UP-11, UP-05, UP-06)")
    func redirectResendsTheBody() async throws {
        try await Fixture.withOrigin { origin in
            let directory = try TemporaryDirectory()
            let source = directory.url.appendingPathComponent("body.txt")
            try Data("file payload".utf8).write(to: source)
            let delegate = RecordingDelegate(newStream: {
                UploadBody.Stream(AsyncStream { c in
                    c.yield(Data("second stream".utf8))
                    c.finish()
                })
            })
            let session = try Fixture.session(delegate: delegate)

            func echoed(_ request: TransferRequest, _ body: UploadBody) async throws -> EchoReport {
                let task = try session.downloadTask(with: request, uploading: body)
                task.resume()
                let error = await task.waitUntilCompleted()
                #expect(error == nil)
                try await Fixture.eventually("completion delivered") {
                    delegate.entries.contains("complete \(task.taskIdentifier) ok")
                }
                let files = delegate.finishedDownloads.withLock { $0 }
                return try Fixture.echo(try #require(files.last))
            }

            let viaFile = try await echoed(Fixture.request(origin.url("/redirect-to?url=/echo&status=307")), .file(source))
            #expect(viaFile.method == "POST")
            #expect(viaFile.body == Data("file payload".utf8))
            #expect(viaFile.header("Content-Type") == "text/plain")

            let viaData = try await echoed(
                Fixture.request(origin.url("/redirect-to?url=/echo&status=308"), method: "PUT"), .data(Data("data payload".utf8)))
            #expect(viaData.method == "PUT")
            #expect(viaData.body == Data("data payload".utf8))
            #expect(!delegate.entries.contains("needNewBodyStream"))

            let first = UploadBody.Stream(AsyncStream { c in
                c.yield(Data("first stream".utf8))
                c.finish()
            })
            let viaStream = try await echoed(Fixture.request(origin.url("/redirect-to?url=/echo&status=307")), .stream(first))
            #expect(viaStream.body == Data("second stream".utf8))
            #expect(delegate.entries.contains("needNewBodyStream"))
        }
    }

    @Test("download(for:uploading:to:) puts the response at the destination (TT-09, DL-04)")
    func asyncFormToDestination() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let directory = try TemporaryDirectory()
            let destination = directory.url.appendingPathComponent("response.json")
            let response = try await session.download(
                for: Fixture.request(origin.url("/echo")), uploading: .data(Data("hello".utf8)), to: destination)
            #expect(response.statusCode == 200)
            let report = try Fixture.echo(try Data(contentsOf: destination))
            #expect(report.method == "POST")
            #expect(report.body == Data("hello".utf8))
            #expect(try directory.contents() == ["response.json"])
        }
    }

    @Test("the completion-handler form sends the body and hands over the echoed file (TT-09, TT-08, DL-02)")
    func completionHandlerForm() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let contents: Data? = await withCheckedContinuation { continuation in
                do {
                    let task = try session.downloadTask(
                        with: Fixture.request(origin.url("/echo")), uploading: .data(Data("handled".utf8))
                    ) { url, _, _ in
                        continuation.resume(returning: url.flatMap { try? Data(contentsOf: $0) })
                    }
                    task.resume()
                } catch {
                    continuation.resume(returning: nil)
                }
            }
            let report = try Fixture.echo(try #require(contents))
            #expect(report.method == "POST")
            #expect(report.body == Data("handled".utf8))
        }
    }

    @Test("a download that sent a body produces no resume data: pausing it removes its file (TT-09, DL-10)")
    func noResumeData() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let directory = try TemporaryDirectory()
            // The route would be resumable for a GET: strong ETag, Range support.
            let task = try session.downloadTask(
                with: Fixture.request(origin.url("/resumable/100000?stall_at=40000")), uploading: .data(Data("job".utf8)))
            task.temporaryDirectory = directory.url
            task.resume()
            try await Fixture.eventually("40000 bytes") { task.progress.bytesReceived == 40_000 }
            #expect(await task.resumeDataSnapshot() == nil)
            #expect(await task.cancelProducingResumeData() == nil)
            #expect(task.error?.code == .cancelled)
            #expect(try directory.contents().isEmpty)
            #expect(origin.requests.first?.method == "POST")
            #expect(origin.requests.first?.bodyLength == 3)
        }
    }
}
