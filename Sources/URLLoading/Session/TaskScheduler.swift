import Foundation

/// Decides when a resumed task starts: at most `maximumConnectionsPerHost` transfers per host run at
/// once (SES-18); the rest wait, and a freed place goes to the waiting task with the highest priority,
/// the oldest first among equals. ftp/file/data URLs of no host start at once.
final class TaskScheduler: Sendable {
    private struct Waiting {
        let task: SessionTask
        let sequence: Int
    }

    private struct State {
        var running: [String: Int] = [:]
        var waiting: [String: [Waiting]] = [:]
        /// Which host's place each running task holds, by task identifier.
        var places: [Int: String] = [:]
        /// The loop each running task with a host runs on (`CurlLoopGroup`), by task identifier.
        var loopIndexes: [Int: Int] = [:]
        var sequence = 0
    }

    private let state = Locked(State())
    private let limit: Int
    private let configuration: SessionConfiguration
    private let loops: CurlLoopGroup

    init(configuration: SessionConfiguration, loops: CurlLoopGroup) {
        self.configuration = configuration
        self.limit = configuration.maximumConnectionsPerHost
        self.loops = loops
    }

    static func hostKey(for url: URL) -> String? {
        guard let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        return "\(url.scheme?.lowercased() ?? ""):\(host):\(RedirectPolicy.effectivePort(url) ?? 0)"
    }

    func submit(_ task: SessionTask) {
        guard let key = Self.hostKey(for: task.originalRequest.url) else {
            launch(task)
            return
        }
        let startNow = state.withLock { state -> Bool in
            if state.running[key, default: 0] < limit {
                state.running[key, default: 0] += 1
                state.places[task.taskIdentifier] = key
                return true
            }
            state.sequence += 1
            state.waiting[key, default: []].append(Waiting(task: task, sequence: state.sequence))
            return false
        }
        if startNow { launch(task) }
    }

    /// Takes a task that has not started out of the queue; false when it was not waiting.
    func withdraw(_ task: SessionTask) -> Bool {
        state.withLock { state in
            for (key, queue) in state.waiting {
                if let index = queue.firstIndex(where: { $0.task === task }) {
                    state.waiting[key]?.remove(at: index)
                    return true
                }
            }
            return false
        }
    }

    /// A task ended: its place goes to the next waiting task of that host.
    func release(_ task: SessionTask) {
        let next = state.withLock { state -> [SessionTask] in
            guard let key = state.places.removeValue(forKey: task.taskIdentifier) else { return [] }
            state.running[key, default: 1] -= 1
            if let index = state.loopIndexes.removeValue(forKey: task.taskIdentifier) {
                loops.release(host: key, loop: index)
            }
            let next = Self.takeStartable(for: key, limit: limit, state: &state)
            if state.running[key] == 0 { state.running[key] = nil }
            return next
        }
        next.forEach(launch)
    }

    /// Hands a running task's place to the download task it turned into (LC-09).
    func movePlace(from old: SessionTask, to new: SessionTask) {
        state.withLock { state in
            if let key = state.places.removeValue(forKey: old.taskIdentifier) {
                state.places[new.taskIdentifier] = key
            }
            if let index = state.loopIndexes.removeValue(forKey: old.taskIdentifier) {
                state.loopIndexes[new.taskIdentifier] = index
            }
        }
    }

    /// A waiting task was resumed after a suspend: it may start now.
    func wake() {
        let startable = state.withLock { state -> [SessionTask] in
            var all: [SessionTask] = []
            for key in state.waiting.keys { all += Self.takeStartable(for: key, limit: limit, state: &state) }
            return all
        }
        startable.forEach(launch)
    }

    private static func takeStartable(for key: String, limit: Int, state: inout State) -> [SessionTask] {
        var started: [SessionTask] = []
        while state.running[key, default: 0] < limit, var queue = state.waiting[key], !queue.isEmpty {
            // Suspended tasks keep their place in line but do not start.
            let candidates = queue.indices.filter { !queue[$0].task.isUserSuspended }
            guard let best = candidates.max(by: { a, b in
                let (pa, pb) = (queue[a].task.priority, queue[b].task.priority)
                return pa != pb ? pa < pb : queue[a].sequence > queue[b].sequence
            }) else { break }
            let chosen = queue.remove(at: best)
            state.waiting[key] = queue.isEmpty ? nil : queue
            state.running[key, default: 0] += 1
            state.places[chosen.task.taskIdentifier] = key
            started.append(chosen.task)
        }
        return started
    }

    private func launch(_ task: SessionTask) {
        let url = task.originalRequest.url
        let key = Self.hostKey(for: url)
        let sharesConnections = CurlRequestOptions.multiplexes(scheme: url.scheme?.lowercased() ?? "", configuration)
        let placement = loops.acquireLoop(forHost: key, needsOwnConnection: !sharesConnections)
        if key != nil { state.withLock { $0.loopIndexes[task.taskIdentifier] = placement.index } }
        let loop = placement.loop
        let transfer = TaskTransfer(task: task, loop: loop, configuration: configuration)
        // Read the state in the same step that makes the transfer visible to suspend() and cancel(), so
        // neither can slip between.
        let stateNow = task.attach(transfer)
        loop.execute { transfer.start(paused: stateNow == .suspended) }
        if stateNow == .canceling { transfer.post { $0.cancel() } }
    }
}
