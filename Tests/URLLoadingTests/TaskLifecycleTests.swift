import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

@Suite("Task lifecycle", .timeLimit(.minutes(2)))
struct TaskLifecycleTests {
    @Test("tasks start suspended and only run on resume (LC-01)")
    func tasksStartSuspended() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let task = try session.dataTask(with: Fixture.request(origin.url("/bytes/10")))
            #expect(task.state == .suspended)
            try await Task.sleep(for: .milliseconds(200))
            #expect(origin.requests.isEmpty)
            task.resume()
            let (data, _) = try await task.value()
            #expect(data == Fixture.pattern(10))
            #expect(task.state == .completed)
        }
    }

    @Test("suspend pauses the transfer on the same connection; resume continues it (LC-02)")
    func suspendAndResume() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let task = try session.dataTask(with: Fixture.request(origin.url("/drip?bytes=40000&chunks=40&delay_ms=25")))
            task.resume()
            try await Fixture.eventually("some bytes") { task.progress.bytesReceived > 0 }
            task.suspend()
            #expect(task.state == .suspended)
            // Bytes may still be counted until the loop has applied the pause, which on a loaded
            // machine can take longer than any fixed wait (a count that held still for a second once
            // moved on after it). The loop runs what is posted to it in order: once a marker posted
            // after the pause has run, the write callback can no longer be called. Unpaused, the drip
            // would run to its end (40,000 bytes) within about a second.
            let transfer = try #require(task.guarded.withLock { $0.transfer })
            await withCheckedContinuation { (applied: CheckedContinuation<Void, Never>) in transfer.post { _ in applied.resume() } }
            let whilePaused = task.progress.bytesReceived
            try await Task.sleep(for: .seconds(1))
            #expect(task.progress.bytesReceived == whilePaused)
            #expect(whilePaused < 40_000, "the transfer stopped before its end")
            task.resume()
            // The rest may already wait in the socket: the task can complete before this line.
            #expect(task.state == .running || task.state == .completed, "\(task.state)")
            let (data, _) = try await task.value()
            #expect(data == Fixture.pattern(40_000))
            #expect(origin.connectionCount == 1)
            #expect(origin.requests.count == 1)
        }
    }

    @Test("a suspended task does not time out (LC-22)")
    func suspendedTaskDoesNotTimeOut() async throws {
        try await Fixture.withOrigin { origin in
            // Suspended well past the idle timeout; the timeout leaves room for a slow first byte, and
            // for the rest after resuming, on a loaded machine (the whole suite runs in parallel).
            let session = try Fixture.session { $0.requestTimeout = 20 }
            let task = try session.dataTask(with: Fixture.request(origin.url("/drip?bytes=2000&chunks=20&delay_ms=20")))
            task.resume()
            try await Fixture.eventually("some bytes") { task.progress.bytesReceived > 0 }
            task.suspend()
            try await Task.sleep(for: .seconds(24))
            task.resume()
            let (data, _) = try await task.value()
            #expect(data.count == 2000)
        }
    }

    @Test("cancel ends a running task with a cancelled error (LC-15, ER-04)")
    func cancelRunning() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let task = try session.dataTask(with: Fixture.request(origin.url("/stall?bytes=100")))
            task.resume()
            try await Fixture.eventually("the request") { origin.requests.count == 1 }
            task.cancel()
            let error = await task.waitUntilCompleted()
            #expect(error?.code == .cancelled)
            #expect(task.state == .completed)
            task.resume()
            task.cancel()
            #expect(task.state == .completed)
        }
    }

    @Test("cancelling a task that never started completes it at once")
    func cancelSuspended() async throws {
        let session = try Fixture.session()
        let task = try session.dataTask(with: Fixture.request("http://127.0.0.1:9/never"))
        task.cancel()
        #expect(await task.waitUntilCompleted()?.code == .cancelled)
    }

    @Test("cancelling the Swift task of an async call cancels the transfer")
    func swiftCancellation() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let call = Task { try await session.data(for: Fixture.request(origin.url("/stall?bytes=10"))) }
            try await Fixture.eventually("the request") { origin.requests.count == 1 }
            call.cancel()
            let error = await #expect(throws: TransferError.self) { _ = try await call.value }
            #expect(error?.code == .cancelled)
        }
    }

    @Test("events arrive in the documented order and end with one completion (LC-14, LC-07)")
    func eventOrder() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let task = try session.downloadTask(with: Fixture.request(origin.url("/redirect-to?url=/bytes/300000")))
            let events = task.events
            task.resume()
            var names: [String] = []
            var finishedFile: URL?
            for await event in events {
                switch event {
                case .redirected: names.append("redirected")
                case .response(let response):
                    names.append("response")
                    #expect(response.statusCode == 200)
                case .progress: if names.last != "progress" { names.append("progress") }
                case .downloadFinished(let url):
                    names.append("downloadFinished")
                    #expect(try Data(contentsOf: url) == Fixture.pattern(300_000))
                    finishedFile = url
                case .completed(let error):
                    names.append("completed")
                    #expect(error == nil)
                case .data, .becameDownload, .resumed, .partCompleted: names.append("unexpected")
                }
            }
            #expect(names.first == "redirected")
            #expect(names.contains("response"))
            #expect(names.suffix(2) == ["downloadFinished", "completed"])
            // The file was deleted once the next event was asked for (DL-02).
            if let finishedFile { #expect(!FileManager.default.fileExists(atPath: finishedFile.path)) }
        }
    }

    @Test("progress reports bytes received against the expected total (LC-12, LC-19)")
    func progressTotals() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let task = try session.dataTask(with: Fixture.request(origin.url("/bytes/2000000")))
            task.resume()
            _ = try await task.value()
            #expect(task.progress.bytesReceived == 2_000_000)
            #expect(task.progress.totalBytesExpectedToReceive == 2_000_000)
            #expect(task.progress.fractionCompleted == 1)

            let chunked = try session.dataTask(with: Fixture.request(origin.url("/drip?bytes=5000&chunks=5&delay_ms=1&length=0")))
            chunked.resume()
            _ = try await chunked.value()
            #expect(chunked.progress.totalBytesExpectedToReceive == nil)
            #expect(chunked.progress.bytesReceived == 5000)
        }
    }
}

