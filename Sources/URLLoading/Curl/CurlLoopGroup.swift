import Foundation
import Synchronization

/// A fixed set of transfer loops, shared by sessions.
///
/// Each curl multi handle keeps its own connection cache, so a host's transfers go where its
/// connections are: when none of them runs, to the loop its last transfer ended on (its idle
/// connections wait there); a host seen for the first time to the loop with the fewest running
/// transfers. Hosts are remembered (up to `rememberedHosts`, idle ones forgotten first) so that
/// sequential requests to a host keep finding its connections.
///
/// While some of a host's transfers run, one that HTTP/2 may multiplex beside them joins them on
/// their loop (`CurlRequestOptions.multiplexes`). One that needs a connection of its own (HTTP/1.1)
/// goes to the loop running the fewest of the host's transfers: with one loop per host, one thread
/// read every response of a busy host and set the pace while the other cores waited (bench P2: 50
/// downloads from one server, that thread on a CPU 85 % of the time). Each loop reuses its own
/// connections for its next transfers, so the host still gets about one connection per transfer
/// running at once: with `n` loops and a session's limit of `L` per host (`TaskScheduler`), a loop
/// runs at most ⌈L/n⌉ of them, which makes at most `n - 1` connections more than `L` in all.
public final class CurlLoopGroup: Sendable, Equatable {
    let loops: [CurlLoop]
    private let nextIndex = Atomic<Int>(0)

    private struct Assignment {
        /// Where the host's transfers go when none runs: the loop its last one ended on.
        var home: Int
        /// The host's running transfers on each loop.
        var running: [Int]

        var isIdle: Bool { running.allSatisfy { $0 == 0 } }

        /// The loop running the fewest of the host's transfers, home first on a tie.
        var leastRunning: Int {
            var chosen = home
            for index in running.indices where running[index] < running[chosen] { chosen = index }
            return chosen
        }
    }

    /// Where a transfer runs: give `index` back to `release(host:loop:)` when it ends.
    struct Placement {
        let loop: CurlLoop
        let index: Int
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

    /// The loop a transfer to `hostKey` runs on; pair with `release(host:loop:)` when it ends. Without
    /// a host (file and data URLs), round-robin. `needsOwnConnection`: the transfer cannot share a
    /// connection with the host's other transfers (no HTTP/2 multiplexing for it).
    func acquireLoop(forHost hostKey: String?, needsOwnConnection: Bool) -> Placement {
        guard let hostKey else {
            let index = nextIndex.wrappingAdd(1, ordering: .relaxed).oldValue % loops.count
            return Placement(loop: loops[index], index: index)
        }
        let index = assignments.withLock { assignments -> Int in
            if var known = assignments[hostKey] {
                let index = needsOwnConnection && !known.isIdle ? known.leastRunning : known.home
                known.running[index] += 1
                assignments[hostKey] = known
                return index
            }
            if assignments.count >= Self.rememberedHosts {
                assignments = assignments.filter { !$0.value.isIdle }
            }
            var load = [Int](repeating: 0, count: loops.count)
            for assignment in assignments.values {
                for (index, running) in assignment.running.enumerated() { load[index] += running }
            }
            let quietest = load.indices.min { load[$0] < load[$1] } ?? 0
            var assignment = Assignment(home: quietest, running: [Int](repeating: 0, count: loops.count))
            assignment.running[quietest] = 1
            assignments[hostKey] = assignment
            return quietest
        }
        return Placement(loop: loops[index], index: index)
    }

    /// A transfer to `hostKey` that ran on loop `index` ended: the host's next transfer, if none
    /// runs then, goes there, to the connection it leaves idle.
    func release(host hostKey: String?, loop index: Int) {
        guard let hostKey else { return }
        assignments.withLock { assignments in
            guard var known = assignments[hostKey], known.running[index] > 0 else { return }
            known.running[index] -= 1
            known.home = index
            assignments[hostKey] = known
        }
    }

    /// Stops every loop (see `CurlLoop.shutdown`). The shared group is never shut down.
    public func shutdown() {
        for loop in loops { loop.shutdown() }
    }

    public static func == (lhs: CurlLoopGroup, rhs: CurlLoopGroup) -> Bool { lhs === rhs }
}
