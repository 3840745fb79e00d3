import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

@Suite("Upload tasks", .timeLimit(.minutes(2)))
struct UploadTaskTests {
    @Test("from Data: Content-Length computed, a caller's Content-Length ignored (UP-02, UP-08)")
    func fromData() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let body = Fixture.pattern(300_000)
            var request = Fixture.request(origin.url("/echo"), method: "PUT")
            request.headers["Content-Length"] = "5"
            request.headers["Content-Type"] = "application/octet-stream"
            let (data, response) = try await session.upload(for: request, from: .data(body))
            #expect(response.statusCode == 200)
            let echo = try Fixture.echo(data)
            #expect(echo.method == "PUT")
            #expect(echo.header("Content-Length") == "300000")
            #expect(echo.body_fnv1a64 == OriginServer.fnv1a64Hex(body))
        }
    }

    @Test("an upload defaults to POST")
    func defaultsToPost() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let (data, _) = try await session.upload(for: Fixture.request(origin.url("/echo")), from: .data(Data("x".utf8)))
            #expect(try Fixture.echo(data).method == "POST")
        }
    }

    @Test("from a file: Content-Length from the file, Content-Type from its extension (UP-03)")
    func fromFile() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let directory = try TemporaryDirectory()
            let file = directory.url.appendingPathComponent("report.json")
            let body = Data(String(repeating: "{\"k\": 1}\n", count: 50_000).utf8)
            try body.write(to: file)
            let (data, _) = try await session.upload(for: Fixture.request(origin.url("/echo"), method: "POST"), from: .file(file))
            let echo = try Fixture.echo(data)
            #expect(echo.header("Content-Length") == String(body.count))
            #expect(echo.header("Content-Type") == "application/json")
            #expect(echo.body_fnv1a64 == OriginServer.fnv1a64Hex(body))
        }
    }

    @Test("a missing upload file fails with file_does_not_exist")
    func missingFile() async throws {
        let session = try Fixture.session()
        let error = await #expect(throws: TransferError.self) {
            _ = try await session.upload(for: Fixture.request("http://127.0.0.1:9/echo"), from: .file(URL(fileURLWithPath: "/nonexistent/ferry.bin")))
        }
        #expect(error?.code == .fileDoesNotExist)
    }

    @Test("from a stream: sent as it is produced, chunked without a length (UP-04)")
    func fromStream() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let pieces = (0..<40).map { Data(repeating: UInt8($0), count: 50_000) }
            let stream = AsyncStream<Data> { continuation in
                Task {
                    for piece in pieces {
                        continuation.yield(piece)
                        try? await Task.sleep(for: .milliseconds(2))
                    }
                    continuation.finish()
                }
            }
            var request = Fixture.request(origin.url("/echo"), method: "POST")
            request.headers["Content-Type"] = "application/octet-stream"
            let (data, _) = try await session.upload(for: request, from: .stream(UploadBody.Stream(stream)))
            let echo = try Fixture.echo(data)
            let expected = pieces.reduce(Data(), +)
            #expect(echo.body_length == expected.count)
            #expect(echo.body_fnv1a64 == OriginServer.fnv1a64Hex(expected))
            #expect(echo.header("Transfer-Encoding") == "chunked")
        }
    }

    @Test("a stream with a declared Content-Length is sent with that length (UP-04)")
    func streamWithLength() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let body = Fixture.pattern(10_000)
            var request = Fixture.request(origin.url("/echo"), method: "PUT")
            request.headers["Content-Length"] = "10000"
            let (data, _) = try await session.upload(for: request, from: .stream(UploadBody.Stream(AsyncStream { c in
                c.yield(body)
                c.finish()
            })))
            let echo = try Fixture.echo(data)
            #expect(echo.header("Content-Length") == "10000")
            #expect(echo.body == body)
        }
    }

    @Test("upload progress reaches the body's size (LC-11, UP-14)")
    func uploadProgress() async throws {
        try await Fixture.withOrigin { origin in
            let delegate = RecordingDelegate()
            let session = try Fixture.session(delegate: delegate)
            // A body produced over about a second, so sending it spans several progress reports.
            let piece = Fixture.pattern(100_000)
            let stream = AsyncStream<Data> { continuation in
                Task {
                    for _ in 0..<20 {
                        continuation.yield(piece)
                        try? await Task.sleep(for: .milliseconds(60))
                    }
                    continuation.finish()
                }
            }
            var request = Fixture.request(origin.url("/echo"), method: "PUT")
            request.headers["Content-Length"] = "2000000"
            let task = try session.uploadTask(with: request, from: .stream(UploadBody.Stream(stream)))
            task.resume()
            #expect(await task.waitUntilCompleted() == nil)
            try await Fixture.eventually("completion delivered") { delegate.entries.contains { $0.hasPrefix("complete") } }
            let totals = delegate.sentTotals.withLock { $0 }
            #expect(totals.count >= 2)
            #expect(totals.last == 2_000_000)
            #expect(task.progress.totalBytesExpectedToSend == 2_000_000)
        }
    }

    @Test("a 307 resends a Data body; a streamed body asks the delegate for a new stream (UP-05, UP-06)")
    func redirectResendsBody() async throws {
        try await Fixture.withOrigin { origin in
            let delegate = RecordingDelegate(newStream: {
                UploadBody.Stream(AsyncStream { c in
                    c.yield(Data("second stream".utf8))
                    c.finish()
                })
            })
            let session = try Fixture.session(delegate: delegate)
            let target = "/redirect-to?url=/echo&status=307"

            let (data, _) = try await session.upload(for: Fixture.request(origin.url(target), method: "POST"), from: .data(Data("payload".utf8)))
            #expect(try Fixture.echo(data).body == Data("payload".utf8))
            #expect(!delegate.entries.contains("needNewBodyStream"))

            let first = UploadBody.Stream(AsyncStream { c in
                c.yield(Data("first stream".utf8))
                c.finish()
            })
            let (streamed, _) = try await session.upload(for: Fixture.request(origin.url(target), method: "POST"), from: .stream(first))
            #expect(try Fixture.echo(streamed).body == Data("second stream".utf8))
            #expect(delegate.entries.contains("needNewBodyStream"))
        }
    }

    @Test("without a new stream, a redirect that needs the body again fails clearly (UP-05, UP-07)")
    func redirectWithoutNewStream() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let stream = UploadBody.Stream(AsyncStream { c in
                c.yield(Data("once".utf8))
                c.finish()
            })
            let error = await #expect(throws: TransferError.self) {
                _ = try await session.upload(for: Fixture.request(origin.url("/redirect-to?url=/echo&status=308"), method: "POST"),
                                             from: .stream(stream))
            }
            #expect(error?.code == .cannotReadUploadBody)
        }
    }
}
