import Foundation
import Synchronization

/// A fixed set of transfer loops; a session spreads its tasks over them round-robin.
public final class CurlLoopGroup: Sendable, Equatable {
    let loops: [CurlLoop]
    private let nextIndex = Atomic<Int>(0)

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

    func next() -> CurlLoop {
        let index = nextIndex.wrappingAdd(1, ordering: .relaxed).oldValue
        return loops[index % loops.count]
    }

    /// Stops every loop (see `CurlLoop.shutdown`). The shared group is never shut down.
    public func shutdown() {
        for loop in loops { loop.shutdown() }
    }

    public static func == (lhs: CurlLoopGroup, rhs: CurlLoopGroup) -> Bool { lhs === rhs }
}
