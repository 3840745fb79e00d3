import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Collects the exit of the PostgreSQL servers this process started.
///
/// `pg_ctl start` daemonizes the server: pg_ctl exits and the server is orphaned, handed to the
/// machine's init, which normally reaps it when it exits. But not every pid 1 does that promptly
/// (or at all: a container whose pid 1 is a program that never calls `wait`), and a stopped server
/// then lingers as a zombie, which PostgreSQL's own "is the old server still alive?" check
/// (`kill(pid, 0)`) mistakes for a live server. On Linux ferryd therefore marks itself a "child
/// subreaper" before starting servers: orphans of its descendants come to ferryd instead, and
/// ferryd collects its servers' exits itself. A ferryd that is killed hands them on to init.
public enum PrivatePostgresReaper {
    private typealias ProcessControl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
    /// PR_SET_CHILD_SUBREAPER from <linux/prctl.h>.
    private static let setChildSubreaper: Int32 = 36

    /// Marks this process a child subreaper, once; does nothing where that does not exist.
    public static func adoptOrphanedServers() {
        _ = becameSubreaper
    }

    private static let becameSubreaper: Bool = {
        #if os(Linux)
        // prctl is variadic in C, which Swift cannot call; looked up and called with its fixed form.
        guard let program = dlopen(nil, RTLD_NOW), let address = dlsym(program, "prctl") else {
            return false
        }
        let processControl = unsafeBitCast(address, to: ProcessControl.self)
        return processControl(setChildSubreaper, 1, 0, 0, 0) == 0
        #else
        return false
        #endif
    }()

    /// Waits up to `timeout` (zero: just looks once) for `pid` to exit and collects it, if it is a
    /// child of this process (otherwise returns at once: whoever its parent is collects it).
    package static func collect(_ pid: pid_t, timeout: Duration = .seconds(10)) {
        let deadline = ContinuousClock.now + timeout
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid || (result == -1 && errno != EINTR) || ContinuousClock.now >= deadline {
                return
            }
            usleep(10_000)
        }
    }
}
