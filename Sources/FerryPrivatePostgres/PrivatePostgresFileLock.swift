import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory `flock(2)` lock on a file, held until `release()` or until this object goes away.
///
/// flock is what lets several ferryd processes share one private cluster safely: the kernel drops
/// a dead process's locks, so a ferryd killed with SIGKILL can never leave a lock behind. Locks
/// belong to an open file description, so two holders in one process are as separate as two
/// processes. The file is opened close-on-exec, or the server started by `pg_ctl` would inherit
/// the descriptor and hold the lock for as long as it runs.
final class PrivatePostgresFileLock: Sendable {
    enum Mode: Sendable {
        case shared
        case exclusive

        var operation: Int32 { self == .shared ? LOCK_SH : LOCK_EX }
    }

    private let descriptor: Mutex<Int32>

    private init(descriptor: Int32) {
        self.descriptor = Mutex(descriptor)
    }

    deinit {
        release()
    }

    /// Takes the lock now, or returns nil if someone else holds it in a conflicting mode.
    static func tryAcquire(_ path: String, mode: Mode) throws(PrivatePostgresError) -> PrivatePostgresFileLock? {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .fileSystem(path: path, action: "open the lock file", reason: String(cString: strerror(errno)))
        }
        if flock(descriptor, mode.operation | LOCK_NB) == 0 {
            return PrivatePostgresFileLock(descriptor: descriptor)
        }
        let failure = errno
        close(descriptor)
        guard failure == EWOULDBLOCK || failure == EINTR else {
            throw .fileSystem(path: path, action: "lock", reason: String(cString: strerror(failure)))
        }
        return nil
    }

    /// Takes the lock, polling (so no thread sits blocked in the kernel) until `timeout`.
    static func acquire(
        _ path: String, mode: Mode, timeout: Duration, waitingFor: String, onWait: () -> Void = {}
    ) async throws -> PrivatePostgresFileLock {
        let deadline = ContinuousClock.now + timeout
        var announced = false
        while true {
            if let lock = try tryAcquire(path, mode: mode) {
                return lock
            }
            if !announced {
                onWait()
                announced = true
            }
            guard ContinuousClock.now < deadline else {
                throw PrivatePostgresError.timedOut(waitingFor: waitingFor)
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    func release() {
        descriptor.withLock { descriptor in
            guard descriptor >= 0 else { return }
            close(descriptor)
            descriptor = -1
        }
    }
}
