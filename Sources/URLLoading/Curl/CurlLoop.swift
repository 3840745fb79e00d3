import Foundation
import Synchronization
internal import CCurl

/// One thread that owns one curl multi handle and every easy handle added to it.
///
/// The loop waits in `epoll_wait` on the sockets curl asks it to watch, plus an eventfd that other
/// threads write to after putting work in the inbox. It drives curl with `curl_multi_socket_action`,
/// which only looks at the sockets that are ready (`curl_multi_poll` would rescan all of them).
/// Nothing but this thread touches curl handles: other threads only `execute` closures here.
public final class CurlLoop: @unchecked Sendable {
    /// How many connections the loop's cache keeps open after use. curl's default follows the easy
    /// handles in the multi handle (four times their number), which falls as a burst of transfers
    /// ends: connections were closed that the next transfers opened again (bench P3: 150 to 290 new
    /// connections for 2,000 jobs to one host, 50 at once; curl -Z and aria2c opened 50). Idle
    /// connections still close after curl's maximum idle age.
    static let idleConnectionsKept = 256

    // Thread-safe part: the inbox and the wake-up descriptor.
    private let inbox = Locked<[@Sendable () -> Void]>([])
    private let wakeFD: Int32
    let name: String

    // Loop-confined part: touched only on the loop thread.
    private let epollFD: Int32
    private let multi: UnsafeMutableRawPointer
    private var watchedSockets: [Int32: UInt32] = [:]
    private var timerDeadline: UInt64?
    private var lastSweep: UInt64 = 0
    private var lastIdleCheck: UInt64 = 0
    private var transfers: [UnsafeMutableRawPointer: CurlTransferDriver] = [:]
    private var stopRequested = false
    private var thread: Thread?
    private let stopped = Locked<Bool>(false)
    /// How many transfer hops this loop has run, for tests and diagnostics.
    let hopsStarted = Atomic<Int>(0)

    init(name: String) throws(TransferError) {
        CurlGlobal.ensureInitialised()
        self.name = name
        let epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        let wakeFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard epollFD >= 0, wakeFD >= 0, let multi = curl_multi_init() else {
            if epollFD >= 0 { close(epollFD) }
            if wakeFD >= 0 { close(wakeFD) }
            throw TransferError(.unknown, "could not create the transfer loop (epoll, eventfd or curl multi)")
        }
        self.epollFD = epollFD
        self.wakeFD = wakeFD
        self.multi = multi
        _ = ferry_epoll_update(epollFD, EPOLL_CTL_ADD, wakeFD, EPOLLIN.rawValue)

        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = ferry_multi_setopt_pointer(multi, CURLMOPT_SOCKETDATA, me)
        _ = ferry_multi_setopt_socket_callback(multi, curlLoopSocketCallback)
        _ = ferry_multi_setopt_pointer(multi, CURLMOPT_TIMERDATA, me)
        _ = ferry_multi_setopt_timer_callback(multi, curlLoopTimerCallback)
        // Let HTTP/2 requests to one host share a connection.
        _ = ferry_multi_setopt_long(multi, CURLMOPT_PIPELINING, 2 /* CURLPIPE_MULTIPLEX */)
        _ = ferry_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, Self.idleConnectionsKept)

        let thread = Thread { [self] in self.run() }
        thread.name = name
        self.thread = thread
        thread.start()
    }

    /// Runs `work` on the loop thread, soon. Safe from any thread, including the loop itself. After
    /// `shutdown()` the work runs at once on the caller's thread: every transfer method checks
    /// `stopRequested` before touching curl, so it only fails the transfer with `cancelled`.
    func execute(_ work: @escaping @Sendable () -> Void) {
        let isStopped = inbox.withLock { queue -> Bool in
            if stopped.withLock({ $0 }) { return true }
            queue.append(work)
            if queue.count == 1 {
                // Under the lock, so the descriptor cannot be closed by a shutdown in between.
                var one: UInt64 = 1
                _ = write(wakeFD, &one, 8)
            }
            return false
        }
        if isStopped { work() }
    }

    /// Stops the loop: every transfer still running fails with `cancelled`, curl's handles are cleaned
    /// up on the loop thread, and the call returns once the thread has finished.
    /// Must not be called from the loop's own thread.
    public func shutdown() {
        if stopped.withLock({ $0 }) { return }
        execute { [self] in self.stopRequested = true }
        while !stopped.withLock({ $0 }) { usleep(1000) }
    }

    // MARK: - Loop thread

    /// The key of the mark a loop thread carries in its thread dictionary.
    private static let loopThreadKey = "ferry.curl-loop"

    /// Whether the calling thread is one of the loops' (where nothing may block: `Session`'s
    /// synchronous request refuses to run there).
    static var isLoopThread: Bool { Thread.current.threadDictionary[loopThreadKey] != nil }

    private func run() {
        Thread.current.threadDictionary[Self.loopThreadKey] = true
        let capacity = 256
        let fds = UnsafeMutablePointer<Int32>.allocate(capacity: capacity)
        let masks = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity)
        defer {
            fds.deallocate()
            masks.deallocate()
        }
        var running: Int32 = 0
        while !stopRequested {
            let count = ferry_epoll_wait(epollFD, fds, masks, Int32(capacity), waitTimeout())
            if count > 0 {
                for index in 0..<Int(count) {
                    let fd = fds[index]
                    if fd == wakeFD {
                        var value: UInt64 = 0
                        _ = read(wakeFD, &value, 8)
                        continue
                    }
                    let mask = masks[index]
                    var flags: Int32 = 0
                    if mask & EPOLLIN.rawValue != 0 { flags |= FERRY_CSELECT_IN }
                    if mask & EPOLLOUT.rawValue != 0 { flags |= FERRY_CSELECT_OUT }
                    if mask & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 { flags |= FERRY_CSELECT_ERR }
                    curl_multi_socket_action(multi, fd, flags, &running)
                }
            }
            let now = Self.nowMilliseconds()
            if let deadline = timerDeadline, now >= deadline {
                timerDeadline = nil
                curl_multi_socket_action(multi, FERRY_SOCKET_TIMEOUT, 0, &running)
            }
            if !transfers.isEmpty, now &- lastIdleCheck >= Self.idleCheckInterval {
                lastIdleCheck = now
                // A copy: a transfer that times out leaves `transfers` while we walk it.
                for driver in Array(transfers.values) { driver.checkIdle(now: now) }
            }
            if !transfers.isEmpty, now &- lastSweep >= Self.sweepInterval {
                // libcurl 7.88 sometimes never reports a socket it waits on (seen: an FTP upload on a
                // reused control connection, under load), and a socket-driven loop would then wait
                // for a timeout that can be minutes away. curl's own tool polls every socket on every
                // turn, so it never notices. This sweep re-syncs curl's sockets once a second.
                lastSweep = now
                ferry_multi_sweep_all(multi, &running)
            }
            runInbox()
            collectFinishedTransfers()
        }
        tearDown()
    }

    static let sweepInterval: UInt64 = 1000
    /// How often idle timeouts are checked; an idle timeout fires at most this late.
    static let idleCheckInterval: UInt64 = 100

    private func waitTimeout() -> Int32 {
        if !inbox.withLock({ $0.isEmpty }) { return 0 }
        let now = Self.nowMilliseconds()
        var wait: UInt64 = transfers.isEmpty ? 60_000 : Self.idleCheckInterval
        if let deadline = timerDeadline { wait = min(wait, deadline > now ? deadline - now : 0) }
        if timerDeadline == nil, transfers.isEmpty { return -1 }
        return Int32(wait)
    }

    private func runInbox() {
        let work = inbox.withLock { queue -> [@Sendable () -> Void] in
            let taken = queue
            queue.removeAll(keepingCapacity: true)
            return taken
        }
        for item in work { item() }
    }

    private func collectFinishedTransfers() {
        var result = CURLE_OK
        while let easy = ferry_multi_next_done(multi, &result) {
            curl_multi_remove_handle(multi, easy)
            if let driver = transfers.removeValue(forKey: easy) {
                driver.curlDidFinish(easy: easy, result: result)
            }
        }
    }

    private func tearDown() {
        for (easy, driver) in transfers {
            curl_multi_remove_handle(multi, easy)
            driver.loopDidShutDown(easy: easy)
        }
        transfers.removeAll()
        curl_multi_cleanup(multi)
        // From here on `execute` runs work inline; what was queued before runs now. Nothing is lost.
        inbox.withLock { _ in stopped.withLock { $0 = true } }
        close(epollFD)
        close(wakeFD)
        runInbox()
    }

    // MARK: - Used by transfer drivers, on the loop thread

    /// Transfers the loop drives now.
    var transferCount: Int { transfers.count }

    /// Adds a configured easy handle; curl starts it on the next turn of the loop.
    func add(easy: UnsafeMutableRawPointer, driver: CurlTransferDriver) -> Bool {
        guard !stopRequested, curl_multi_add_handle(multi, easy) == CURLM_OK else { return false }
        transfers[easy] = driver
        hopsStarted.wrappingAdd(1, ordering: .relaxed)
        return true
    }

    /// Removes a running easy handle without waiting for curl to finish it (cancel, early stop).
    func remove(easy: UnsafeMutableRawPointer) {
        if transfers.removeValue(forKey: easy) != nil {
            curl_multi_remove_handle(multi, easy)
        }
    }

    // MARK: - curl callbacks

    fileprivate func watch(socket: Int32, what: Int32) {
        let wanted: UInt32
        switch what {
        case 1 /* CURL_POLL_IN */: wanted = EPOLLIN.rawValue
        case 2 /* CURL_POLL_OUT */: wanted = EPOLLOUT.rawValue
        case 3 /* CURL_POLL_INOUT */: wanted = EPOLLIN.rawValue | EPOLLOUT.rawValue
        default:
            if watchedSockets.removeValue(forKey: socket) != nil {
                _ = ferry_epoll_update(epollFD, EPOLL_CTL_DEL, socket, 0)
            }
            return
        }
        let operation = watchedSockets[socket] == nil ? EPOLL_CTL_ADD : EPOLL_CTL_MOD
        if ferry_epoll_update(epollFD, operation, socket, wanted) != 0 {
            // The descriptor number was reused behind our back: register it afresh.
            let retry = operation == EPOLL_CTL_ADD ? EPOLL_CTL_MOD : EPOLL_CTL_ADD
            _ = ferry_epoll_update(epollFD, retry, socket, wanted)
        }
        watchedSockets[socket] = wanted
    }

    fileprivate func setTimer(milliseconds: Int) {
        timerDeadline = milliseconds < 0 ? nil : Self.nowMilliseconds() + UInt64(milliseconds)
    }

    static func nowMilliseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1000 + UInt64(spec.tv_nsec) / 1_000_000
    }
}

/// What the loop needs from whoever runs a transfer on it.
protocol CurlTransferDriver: AnyObject {
    /// curl finished `easy` (success or failure); the handle is already out of the multi handle.
    func curlDidFinish(easy: UnsafeMutableRawPointer, result: CURLcode)
    /// The loop is stopping with `easy` still running.
    func loopDidShutDown(easy: UnsafeMutableRawPointer)
    /// Called every `idleCheckInterval` while the transfer runs, to enforce its idle timeout.
    func checkIdle(now: UInt64)
}

private let curlLoopSocketCallback: ferry_socket_callback = { _, socket, what, userp, _ in
    guard let userp else { return 0 }
    Unmanaged<CurlLoop>.fromOpaque(userp).takeUnretainedValue().watch(socket: socket, what: what)
    return 0
}

private let curlLoopTimerCallback: ferry_timer_callback = { _, timeout, userp in
    guard let userp else { return 0 }
    Unmanaged<CurlLoop>.fromOpaque(userp).takeUnretainedValue().setTimer(milliseconds: timeout)
    return 0
}
