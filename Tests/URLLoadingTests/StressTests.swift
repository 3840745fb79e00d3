import Foundation
import Synchronization
import Testing
@testable import URLLoading
import URLLoadingTestSupport

@Suite("Stress", .timeLimit(.minutes(3)))
struct StressTests {
    /// Open file descriptors of this process.
    private static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    static func describeDescriptors() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0) }.sorted()
    }

    @Test("2,000 tasks over 4 loops with random cancels and suspends: no crash, no leaked descriptor or file (LC-02)")
    func randomCancelsAndSuspends() async throws {
        // Warm up what lives for the whole process (the test servers' event loops) before counting.
        // (and the dispatch timers behind Task.sleep)
        try await Fixture.withOrigin { _ in try await Task.sleep(for: .milliseconds(5)) }
        let baseline = Self.openDescriptors()
        let before = Self.describeDescriptors()
        let downloads = try TemporaryDirectory()

        let loops = try CurlLoopGroup(loopCount: 4)
        // Four origins (four hosts, as the engine counts them), so the work spreads over the loops.
        var origins: [OriginServer] = []
        for _ in 0..<4 { origins.append(try await OriginServer.start()) }
        let summary = try await { () async throws -> Summary in
            let session = try Fixture.session {
                $0.loopGroup = loops
                $0.maximumConnectionsPerHost = 64
                $0.requestTimeout = 30
            }
            var generator = SystemRandomNumberGenerator()
            return try await withThrowingTaskGroup(of: Outcome.self) { group in
                for index in 0..<2000 {
                    let size = Int.random(in: 0...200_000, using: &generator)
                    let slow = index % 10 == 0
                    let path = slow ? "/drip?bytes=\(size)&chunks=4&delay_ms=20" : "/bytes/\(size)"
                    let action = Action.allCases.randomElement(using: &generator) ?? .none
                    let delay = Int.random(in: 0...30, using: &generator)
                    let asDownload = index % 2 == 0
                    let origin = origins[index % origins.count]
                    group.addTask {
                        let request = Fixture.request(origin.url(path))
                        let task: SessionTask
                        if asDownload {
                            let download = try session.downloadTask(with: request)
                            download.temporaryDirectory = downloads.url
                            task = download
                        } else {
                            task = try session.dataTask(with: request)
                        }
                        let events = task.events
                        let consumer = Task { () -> Int? in
                            var fileSize: Int?
                            for await event in events {
                                if case .downloadFinished(let url) = event {
                                    fileSize = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? -1
                                }
                            }
                            return fileSize
                        }
                        task.resume()
                        try await action.apply(to: task, afterMilliseconds: delay)
                        let error = await task.waitUntilCompleted()
                        let fileSize = await consumer.value
                        if let error {
                            return error.code == .cancelled ? .cancelled : .failed("\(error)")
                        }
                        if asDownload {
                            return fileSize == size ? .succeeded : .failed("file of \(String(describing: fileSize)) bytes, wanted \(size)")
                        }
                        let (data, _) = try await (task as! DataTask).value()
                        return data.count == size ? .succeeded : .failed("body of \(data.count) bytes, wanted \(size)")
                    }
                }
                var summary = Summary()
                for try await outcome in group { summary.add(outcome) }
                return summary
            }
        }()
        for origin in origins { try await origin.shutdown() }
        let hopsPerLoop = loops.loops.map { $0.hopsStarted.load(ordering: .relaxed) }
        loops.shutdown()
        #expect(hopsPerLoop.allSatisfy { $0 > 0 }, "hops per loop: \(hopsPerLoop)")

        #expect(summary.failures.isEmpty, "\(summary.failures.prefix(5))")
        #expect(summary.succeeded + summary.cancelled == 2000)
        #expect(summary.succeeded > 500)
        #expect(summary.cancelled > 100)
        #expect(try downloads.contents().isEmpty)
        // The servers' side of each connection closes asynchronously.
        try await Fixture.eventually(timeout: .seconds(30), "descriptors back to \(baseline)") { Self.openDescriptors() <= baseline }
        if Self.openDescriptors() > baseline {
            var after = Self.describeDescriptors()
            for item in before { if let i = after.firstIndex(of: item) { after.remove(at: i) } }
            Issue.record("new open descriptors: \(after)")
        }
    }

    enum Action: CaseIterable {
        case none, cancel, suspendThenResume, suspendThenCancel

        func apply(to task: SessionTask, afterMilliseconds delay: Int) async throws {
            guard self != .none else { return }
            try await Task.sleep(for: .milliseconds(delay))
            switch self {
            case .none: break
            case .cancel: task.cancel()
            case .suspendThenResume:
                task.suspend()
                try await Task.sleep(for: .milliseconds(20))
                task.resume()
            case .suspendThenCancel:
                task.suspend()
                try await Task.sleep(for: .milliseconds(10))
                task.cancel()
            }
        }
    }

    enum Outcome: Sendable {
        case succeeded, cancelled
        case failed(String)
    }

    struct Summary {
        var succeeded = 0
        var cancelled = 0
        var failures: [String] = []

        mutating func add(_ outcome: Outcome) {
            switch outcome {
            case .succeeded: succeeded += 1
            case .cancelled: cancelled += 1
            case .failed(let reason): failures.append(reason)
            }
        }
    }
}
