import Foundation

/// The SHA-256 of a download's file, computed off the loop thread: a hashing queue reads back
/// (`pread`) the bytes the loop wrote, a chunk of at most `chunkSize` at a time, so the loop thread
/// only writes, and no more of the body than one chunk is in memory for the hash.
///
/// It runs in one of two ways:
/// - eagerly, for a download that asked for its digest (`DownloadTask.computesSHA256`): hashing
///   follows the writes on another core, and the digest of the whole file is ready moments after
///   the last byte. When hashing falls more than `maximumLag` bytes behind, `keepsUp` says so and
///   the download stops receiving until it caught up, so the bytes it has still to read are ones
///   the page cache just got, not ones it must fetch from the disk again.
/// - on demand, for every other download: nothing is hashed until a digest is asked for (resume
///   data records the hash of the bytes so far); then the bytes up to there are read back once, and
///   the state is kept, so a later request reads only what was written since.
///
/// Thread-safe. The loop thread calls `written`, `keepsUp`, `reset` and `close`; digests are asked
/// from anywhere. Each turn of hashing reads through its own `dup` of the file's descriptor, made
/// under the lock that `close()` takes before the file closes its own: a read never meets a closed
/// or reused number, and a download holds no second descriptor while its hash waits.
final class DownloadDigest: Sendable {
    /// The most bytes read back at a time.
    static let chunkSize = 1 << 20
    /// How far an eager hash may fall behind the writes before the download pauses receiving.
    static let defaultMaximumLag: Int64 = 64 << 20
    /// An eager hash starts reading once this many bytes wait, not at every write.
    static let wakeThreshold: Int64 = 1 << 20
    /// Bytes one turn on the queue hashes before letting the other downloads' hashes run.
    static let bytesPerTurn: Int64 = 16 << 20

    /// One queue for every download's hash: at most one core goes to hashing, and the loops keep
    /// theirs.
    static let sharedQueue = DispatchQueue(label: "ferry.download-digest")

    private struct Request {
        let offset: Int64
        let reply: @Sendable (String?) -> Void
    }

    private struct State {
        var hasher: SHA256Hasher
        /// Bytes hashed: the hasher's state is that of the file's first `hashed` bytes.
        var hashed: Int64
        /// Bytes the file holds (written by the loop).
        var written: Int64
        /// Bumped when the file is emptied: a read made before belongs to bytes that are gone.
        var generation = 0
        /// A turn is queued or running on the hashing queue.
        var running = false
        /// The file could not be read back; every digest of this generation is nil.
        var unreadable = false
        /// `close()` was called: the file's descriptor may be closed from now on.
        var isClosed = false
        /// Digests asked for and not answered yet, all of this generation (`reset()` answers the rest).
        var requests: [Request] = []
        /// Called once an eager hash that fell behind has caught up again.
        var caughtUp: (@Sendable () -> Void)?
    }

    private let state: Locked<State>
    /// The file's descriptor, which the file owns; duplicated for each turn, never used after `close()`.
    private let fileDescriptor: Int32
    private let eager: Bool
    private let maximumLag: Int64
    private let queue: DispatchQueue

    /// A digest of the file open as `descriptor` (readable, and open until `close()`), which holds
    /// `written` bytes, the first `hashed` of them already in `hasher`. `queue` runs the hashing;
    /// tests pass their own, to hold it back.
    init(hashing descriptor: Int32, from hasher: SHA256Hasher = SHA256Hasher(), hashed: Int64 = 0, written: Int64 = 0, eager: Bool,
         maximumLag: Int64 = DownloadDigest.defaultMaximumLag, queue: DispatchQueue = DownloadDigest.sharedQueue) {
        fileDescriptor = descriptor
        self.eager = eager
        self.maximumLag = maximumLag
        self.queue = queue
        state = Locked(State(hasher: hasher, hashed: hashed, written: written))
    }

    /// Bytes hashed so far (for tests: on demand, nothing is hashed before it is asked for).
    var bytesHashed: Int64 { state.withLock { $0.hashed } }

    /// The file now holds `length` bytes (on the loop, after each write).
    func written(upTo length: Int64) {
        let start = state.withLock { state -> Bool in
            state.written = length
            guard eager, !state.running, !state.isClosed, !state.unreadable,
                  length - state.hashed >= Self.wakeThreshold else { return false }
            state.running = true
            return true
        }
        if start { queue.async { self.hashTurn() } }
    }

    /// True while an eager hash keeps up with the writes. Otherwise `onCaughtUp` is kept and called
    /// once it is back within half of `maximumLag` (checked and registered under one lock, so no
    /// wake-up is lost).
    func keepsUp(orCallWhenCaughtUp onCaughtUp: @autoclosure () -> @Sendable () -> Void) -> Bool {
        guard eager else { return true }
        return state.withLock { state in
            if state.written - state.hashed <= maximumLag || state.isClosed || state.unreadable { return true }
            state.caughtUp = onCaughtUp()
            return false
        }
    }

    /// Calls `reply` with the SHA-256 (lower-case hex) of the file's first `offset` bytes, or nil when
    /// they could not be read back, the file was emptied or closed first. `offset` is at most what
    /// was written. Called on the hashing queue, or at once when that much is already hashed.
    func sha256(ofFirst offset: Int64, reply: @escaping @Sendable (String?) -> Void) {
        enum Next { case answer(String?), wait, start }
        let next = state.withLock { state -> Next in
            if state.isClosed || state.unreadable || offset < state.hashed || offset > state.written { return .answer(nil) }
            if offset == state.hashed { return .answer(state.hasher.currentHexDigest) }
            state.requests.append(Request(offset: offset, reply: reply))
            if state.running { return .wait }
            state.running = true
            return .start
        }
        switch next {
        case .answer(let digest): reply(digest)
        case .wait: break
        case .start: queue.async { self.hashTurn() }
        }
    }

    /// The file was emptied, to be written again from byte 0.
    func reset() {
        let (dropped, hook) = state.withLock { state in
            state.generation += 1
            state.hasher = SHA256Hasher()
            state.hashed = 0
            state.written = 0
            state.unreadable = false
            defer { state.requests = []; state.caughtUp = nil }
            return (state.requests, state.caughtUp)
        }
        for request in dropped { request.reply(nil) }
        hook?()
    }

    /// The file is about to be closed: no more hashing; digests still asked for are nil.
    func close() {
        let dropped = state.withLock { state in
            defer { state.requests = []; state.caughtUp = nil }
            state.isClosed = true
            return state.requests
        }
        for request in dropped { request.reply(nil) }
    }

    // MARK: - The hashing queue

    private enum Step {
        /// `count` bytes at `at`, of the `wanted` this turn would hash now, through `descriptor`.
        case read(descriptor: Int32, at: Int64, count: Int, wanted: Int64, hasher: SHA256Hasher, generation: Int)
        case stop
        /// The file cannot be read (no descriptor left): these requests get nil.
        case giveUp([Request], caughtUp: (@Sendable () -> Void)?)
        case yield
    }

    /// Hashes what is wanted (everything written when eager, else up to the furthest request), up
    /// to `bytesPerTurn`, answering each request at its offset; then queues another turn if more is
    /// wanted, so that other downloads' hashes take their turns between.
    private func hashTurn() {
        var buffer: UnsafeMutableRawBufferPointer?
        var descriptor: Int32 = -1
        defer {
            buffer?.deallocate()
            if descriptor >= 0 { Foundation.close(descriptor) }
        }
        var budget = Self.bytesPerTurn
        while true {
            let step = state.withLock { state -> Step in
                if state.isClosed {
                    state.running = false
                    return .stop
                }
                let target = max(state.requests.lazy.map(\.offset).max() ?? 0, eager ? state.written : 0)
                guard !state.unreadable, target > state.hashed else {
                    state.running = false
                    return .stop
                }
                if budget <= 0 { return .yield }
                if descriptor < 0 {
                    // Under the lock, so `close()` (and the file's close after it) cannot come between.
                    descriptor = fcntl(fileDescriptor, F_DUPFD_CLOEXEC, 0)
                    guard descriptor >= 0 else {
                        state.running = false
                        state.unreadable = true
                        defer { state.requests = []; state.caughtUp = nil }
                        return .giveUp(state.requests, caughtUp: state.caughtUp)
                    }
                }
                // Stop exactly at the next request's offset, to answer it from the state there.
                let hashed = state.hashed
                let stop = state.requests.lazy.map(\.offset).filter { $0 > hashed }.min() ?? target
                return .read(
                    descriptor: descriptor, at: state.hashed, count: Int(min(Int64(Self.chunkSize), stop - state.hashed)),
                    wanted: target - state.hashed, hasher: state.hasher, generation: state.generation)
            }
            switch step {
            case .stop:
                return
            case .giveUp(let requests, let caughtUp):
                for request in requests { request.reply(nil) }
                caughtUp?()
                return
            case .yield:
                queue.async { self.hashTurn() }
                return
            case .read(let own, let offset, let count, let wanted, var hasher, let generation):
                // As big as what this turn first wants, at most `chunkSize`: a small file needs no more.
                let into = buffer ?? .allocate(byteCount: Int(min(Int64(Self.chunkSize), wanted)), alignment: 64)
                buffer = into
                let read = pread(own, into.baseAddress, min(count, into.count), off_t(offset))
                if read < 0 && errno == EINTR { continue }
                if read > 0 { hasher.update(UnsafeRawBufferPointer(rebasing: into[0..<read])) }
                budget -= Int64(max(read, 0))
                let (answered, hook) = finishRead(read > 0 ? Int64(read) : nil, at: offset, hasher: hasher, generation: generation)
                if !answered.isEmpty {
                    // Closed before the answers: an answer may end the download, whose file's
                    // `flock` lasts while any duplicate of its descriptor is open (the next
                    // download of the partial file would find it held). The next read makes another.
                    Foundation.close(descriptor)
                    descriptor = -1
                }
                for (request, digest) in answered { request.reply(digest) }
                hook?()
            }
        }
    }

    /// Records a read's outcome (nil: nothing could be read); returns the requests it answers and
    /// the hook to call when the writer may go on.
    private func finishRead(
        _ count: Int64?, at offset: Int64, hasher: SHA256Hasher, generation: Int
    ) -> ([(Request, String?)], (@Sendable () -> Void)?) {
        var answered: [(Request, String?)] = []
        let hook = state.withLock { state -> (@Sendable () -> Void)? in
            // The file was emptied meanwhile: these bytes are gone, and so is this read.
            guard state.generation == generation, state.hashed == offset else { return nil }
            guard let count else {
                state.unreadable = true
                answered = state.requests.map { ($0, nil) }
                defer { state.requests = []; state.caughtUp = nil }
                return state.caughtUp
            }
            state.hasher = hasher
            state.hashed = offset + count
            let hashed = state.hashed
            if state.requests.contains(where: { $0.offset == hashed }) {
                let digest = hasher.currentHexDigest
                answered = state.requests.filter { $0.offset == hashed }.map { ($0, digest) }
                state.requests.removeAll { $0.offset == hashed }
            }
            guard state.written - state.hashed <= maximumLag / 2 else { return nil }
            defer { state.caughtUp = nil }
            return state.caughtUp
        }
        return (answered, hook)
    }
}
