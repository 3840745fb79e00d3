import Foundation
import Synchronization

/// A fixed set of transfer loops, shared by sessions.
///
/// Each curl multi handle keeps its own connection cache, so every transfer to one host goes to the
/// same loop, where it reuses that host's connections (and HTTP/2 connections carry many streams). A
/// host seen for the first time goes to the loop with the fewest running transfers. Hosts are
/// remembered (up to `rememberedHosts`, idle ones forgotten first) so that sequential requests to a
/// host keep finding its connections.
public final class CurlLoopGroup: Sendable, Equatable {
    let loops: [CurlLoop]
    private let nextIndex = Atomic<Int>(0)

    private struct Assignment {
        var loop: Int
        var running: Int
    }

    private let assignments = Locked<[String: Assignment]>([:])
    static let rememberedHosts = 4096

    /// Starts `loopCount` loop threads.
    public init(loopCount: Int) throws(TransferError) {
        precondition(loopCount >= 1, "a loop group needs at least one loop")
        var loops: [CurlLoop] = []
        for index in 0..<loopCount {
            loops.append(try CurlLoop(name: "ferry-curl-loop-\(index)"))
        }
        self.loops = loops
    }

    /// The process-wide group: one loop per core, at least two.
    public static let shared: CurlLoopGroup = {
        do {
            return try CurlLoopGroup(loopCount: max(2, ProcessInfo.processInfo.activeProcessorCount))
        } catch {
            fatalError("cannot start the shared transfer loops: \(error)")
        }
    }()

    /// The loop a transfer to `hostKey` runs on; pair with `release(host:)` when it ends. Without a
    /// host (file and data URLs), round-robin.
    func acquireLoop(forHost hostKey: String?) -> CurlLoop {
        guard let hostKey else {
            let index = nextIndex.wrappingAdd(1, ordering: .relaxed).oldValue
            return loops[index % loops.count]
        }
        let index = assignments.withLock { assignments -> Int in
            if let known = assignments[hostKey] {
                assignments[hostKey]?.running += 1
                return known.loop
            }
            if assignments.count >= Self.rememberedHosts {
                assignments = assignments.filter { $0.value.running > 0 }
            }
            var load = [Int](repeating: 0, count: loops.count)
            for assignment in assignments.values { load[assignment.loop] += assignment.running }
            let quietest = load.indices.min { load[$0] < load[$1] } ?? 0
            assignments[hostKey] = Assignment(loop: quietest, running: 1)
            return quietest
        }
        return loops[index]
    }

    func release(host hostKey: String?) {
        guard let hostKey else { return }
        assignments.withLock { assignments in
            if let running = assignments[hostKey]?.running, running > 0 { assignments[hostKey]?.running = running - 1 }
        }
    }

    /// Stops every loop (see `CurlLoop.shutdown`). The shared group is never shut down.
    public func shutdown() {
        for loop in loops { loop.shutdown() }
    }

    public static func == (lhs: CurlLoopGroup, rhs: CurlLoopGroup) -> Bool { lhs === rhs }
}
