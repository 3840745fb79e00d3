import Foundation
import Synchronization

/// One clock for the heartbeats of every running job of a worker pool: a single timer wakes all
/// waiting runners each `interval`.
///
/// A sleep per runner is a task and a timer in the Swift runtime. With a thousand jobs running,
/// their own sleeps were a thousand of each alive at any moment and held ~50 MiB (heaptrack, bench
/// P5); waiting here is one continuation each.
package final class HeartbeatTicker: Sendable {
    package let interval: Duration
    private struct State {
        var waiting: [CheckedContinuation<Bool, Never>] = []
        var stopped = false
    }

    private let state = Mutex(State())

    package init(interval: Duration) {
        self.interval = interval
    }

    /// Returns true at the next tick; false at once when the ticker has stopped.
    package func nextTick() async -> Bool {
        await withCheckedContinuation { continuation in
            let stopped = state.withLock { state in
                if !state.stopped { state.waiting.append(continuation) }
                return state.stopped
            }
            if stopped { continuation.resume(returning: false) }
        }
    }

    /// Ticks until cancelled; then wakes every waiting runner and lets later waits return at once.
    package func run() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            tick()
        }
        let waiting = state.withLock { state in
            state.stopped = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume(returning: false) }
    }

    private func tick() {
        let waiting = state.withLock { state in
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume(returning: true) }
    }
}
