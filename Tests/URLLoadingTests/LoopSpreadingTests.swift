import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// How a loop group places one host's transfers (`CurlLoopGroup`): HTTP/1.1 transfers that run
/// together spread over the loops, each loop's connections are reused by its next transfers, so the
/// host gets no more connections than transfers it ran at once (SES-18), and a transfer that runs
/// alone goes to the loop the host's last one ended on.
@Suite("Transfer loops", .timeLimit(.minutes(2)))
struct LoopSpreadingTests {
    @Test("parallel plain-http transfers to one host run on every loop and reuse each loop's connections (SES-18)")
    func parallelTransfersSpread() async throws {
        try await Fixture.withOrigin { origin in
            let loops = try CurlLoopGroup(loopCount: 2)
            defer { loops.shutdown() }
            let session = try Fixture.session {
                $0.maximumConnectionsPerHost = 4
                $0.loopGroup = loops
            }
            let hopsBefore = loops.loops.map { $0.hopsStarted.load(ordering: .relaxed) }
            for _ in 0..<2 {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<4 {
                        group.addTask { _ = try await session.data(for: Fixture.request(origin.url("/delay/200"))) }
                    }
                    try await group.waitForAll()
                }
            }
            let hops = zip(loops.loops, hopsBefore).map { $0.hopsStarted.load(ordering: .relaxed) - $1 }
            #expect(hops == [4, 4], "each loop ran half of the transfers")
            #expect(origin.maxConcurrentRequests == 4)

            // One at a time now: each goes to the loop the last one ended on, to its idle connection.
            for _ in 0..<3 {
                _ = try await session.data(for: Fixture.request(origin.url("/bytes/10")))
            }
            #expect(origin.requests.count == 11)
            #expect(origin.connectionCount == 4, "the second round and the sequential requests reused the first round's connections")
        }
    }

    @Test("a transfer runs on the loop its host's last transfer ended on")
    func sequentialTransfersStayHome() async throws {
        try await Fixture.withOrigin { origin in
            let loops = try CurlLoopGroup(loopCount: 2)
            defer { loops.shutdown() }
            let session = try Fixture.session { $0.loopGroup = loops }
            let hopsBefore = loops.loops.map { $0.hopsStarted.load(ordering: .relaxed) }
            for _ in 0..<5 {
                _ = try await session.data(for: Fixture.request(origin.url("/bytes/10")))
            }
            let hops = zip(loops.loops, hopsBefore).map { $0.hopsStarted.load(ordering: .relaxed) - $1 }
            #expect(hops.sorted() == [0, 5])
            #expect(origin.connectionCount == 1)
        }
    }
}
