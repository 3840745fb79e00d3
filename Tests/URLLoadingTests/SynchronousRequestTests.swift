import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// The connection-style convenience calls (LG-01, LG-03, LG-08, ER-09, ER-14): a blocking request
/// from a thread of the caller's, refused at once inside a Swift task instead of deadlocking, and a
/// completion handler on the caller's queue.
@Suite("Synchronous and queue-delivered requests", .timeLimit(.minutes(2)))
struct SynchronousRequestTests {
    /// Runs `body` on a thread of its own (not the cooperative pool), as code that is not async does.
    private func onOwnThread<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }

    @Test("blocks its thread until the body arrived; an HTTP error status is a response; a failure throws (LG-01, LG-08, ER-09)")
    func blockingRequest() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let ok = await onOwnThread { Result { () throws(TransferError) in try session.sendSynchronousRequest(Fixture.request(origin.url("/bytes/5000"))) } }
            let (data, response) = try ok.get()
            #expect(data == Fixture.pattern(5000))
            #expect(response.statusCode == 200)

            let missing = await onOwnThread { Result { () throws(TransferError) in try session.sendSynchronousRequest(Fixture.request(origin.url("/status/404"))) } }
            #expect(try missing.get().1.statusCode == 404, "a 404 is an answer, not an error")

            let silent = try SilentServer()
            let port = silent.port
            silent.close()
            let refused = await onOwnThread { Result { () throws(TransferError) in try session.sendSynchronousRequest(Fixture.request("http://127.0.0.1:\(port)/")) } }
            #expect(throws: TransferError.self) { try refused.get() }
            if case .failure(let error) = refused { #expect(error.code == .cannotConnectToHost) }
        }
    }

    @Test("inside a Swift task it refuses at once with a clear error instead of blocking the cooperative pool (ER-14, LG-08)")
    func refusedInsideATask() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let error = #expect(throws: TransferError.self) {
                _ = try session.sendSynchronousRequest(Fixture.request(origin.url("/bytes/10")))
            }
            #expect(error?.code == .invalidRequest)
            #expect(error?.message.contains("data(for:)") == true, "\(String(describing: error))")
            #expect(origin.requests.isEmpty, "nothing was sent")
        }
    }

    @Test("on an engine loop thread, which would have to run the transfer, it refuses at once (LG-08)")
    func refusedOnALoopThread() async throws {
        let session = try Fixture.session()
        let loop = try #require(CurlLoopGroup.shared.loops.first)
        let error: TransferError? = await withCheckedContinuation { (continuation: CheckedContinuation<TransferError?, Never>) in
            loop.execute {
                do throws(TransferError) {
                    _ = try session.sendSynchronousRequest(Fixture.request("http://127.0.0.1:9/"))
                    continuation.resume(returning: nil)
                } catch {
                    continuation.resume(returning: error)
                }
            }
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("loop thread") == true, "\(String(describing: error))")
        #expect(!CurlLoop.isLoopThread, "a test's own thread is no loop")
    }

    @Test("the asynchronous form starts without resume and calls its handler once on the given queue (LG-01, LG-03, ER-09)")
    func handlerOnQueue() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let queue = DispatchQueue(label: "ferry.tests.handler-queue")
            let marker = DispatchSpecificKey<String>()
            queue.setSpecific(key: marker, value: "handler-queue")
            let (data, status, onQueue): (Data?, Int?, Bool) = await withCheckedContinuation { continuation in
                session.sendAsynchronousRequest(Fixture.request(origin.url("/bytes/3000")), queue: queue) { data, response, _ in
                    continuation.resume(returning: (data, response?.statusCode, DispatchQueue.getSpecific(key: marker) == "handler-queue"))
                }
            }
            #expect(data == Fixture.pattern(3000))
            #expect(status == 200)
            #expect(onQueue, "the handler ran on the queue given")

            let (failedData, failure, failedOnQueue): (Data?, TransferError?, Bool) = await withCheckedContinuation { continuation in
                session.sendAsynchronousRequest(Fixture.request("gopher://127.0.0.1/"), queue: queue) { data, _, error in
                    continuation.resume(returning: (data, error, DispatchQueue.getSpecific(key: marker) == "handler-queue"))
                }
            }
            #expect(failedData == nil)
            #expect(failure?.code == .unsupportedURL, "\(String(describing: failure))")
            #expect(failedOnQueue)
        }
    }
}
