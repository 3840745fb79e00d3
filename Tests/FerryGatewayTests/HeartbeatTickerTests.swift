@testable import FerryRuntime
import Foundation
import Testing

/// The worker pool's one heartbeat clock: every waiting runner wakes at a tick, and once the clock
/// stops, a wait returns at once (so no heartbeat waits for ever during a hard shutdown).
@Suite("Heartbeat ticker", .timeLimit(.minutes(1)))
struct HeartbeatTickerTests {
    @Test("all waiters wake at the next tick; after the ticker stops, waits return false at once")
    func wakesEveryWaiterThenStops() async throws {
        let ticker = HeartbeatTicker(interval: .milliseconds(50))
        let clock = Task { await ticker.run() }
        let woke = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<100 { group.addTask { await ticker.nextTick() } }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(woke.count == 100 && woke.allSatisfy { $0 })
        clock.cancel()
        await clock.value
        #expect(await ticker.nextTick() == false)
    }
}
