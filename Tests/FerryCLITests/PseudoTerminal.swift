import Foundation

/// A pseudo-terminal pair, so a test can give `ferry` a standard error that `isatty` accepts and read
/// what it drew there (the progress bar is only drawn on a terminal).
final class PseudoTerminal: @unchecked Sendable {
    // @unchecked: both descriptors are set once in init; `closeFollower()` runs once, before reading.
    let leader: Int32
    private(set) var follower: Int32

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init() throws {
        // /dev/ptmx with the two ioctls glibc's posix_openpt/unlockpt/ptsname use; those functions
        // are not visible to Swift without _XOPEN_SOURCE.
        leader = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        guard leader >= 0 else {
            throw Failure(description: "cannot open /dev/ptmx: \(Self.lastError())")
        }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard ioctl(leader, Self.unlockRequest, &unlock) == 0, ioctl(leader, Self.numberRequest, &number) == 0 else {
            close(leader)
            throw Failure(description: "cannot set up the pseudo-terminal: \(Self.lastError())")
        }
        follower = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        guard follower >= 0 else {
            close(leader)
            throw Failure(description: "cannot open /dev/pts/\(number): \(Self.lastError())")
        }
    }

    /// TIOCSPTLCK = _IOW('T', 0x31, int) and TIOCGPTN = _IOR('T', 0x30, unsigned int) on Linux; the C
    /// macros are function-like, so Swift does not import them.
    private static let unlockRequest: UInt = 0x4004_5431
    private static let numberRequest: UInt = 0x8004_5430

    private static func lastError() -> String {
        guard let text = strerror(errno) else { return "errno \(errno)" }
        return String(validatingCString: text) ?? "errno \(errno)"
    }

    /// The parent's copy of the terminal side must go once the child has it, or reading the leader
    /// never sees the end.
    func closeFollower() {
        guard follower >= 0 else { return }
        close(follower)
        follower = -1
    }

    /// Reads everything until the terminal side is closed by every process (EIO on Linux).
    func readToEnd() -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(leader, &buffer, buffer.count)
            if count > 0 {
                data.append(contentsOf: buffer[0..<count])
            } else if count < 0, errno == EINTR {
                continue
            } else {
                break
            }
        }
        return data
    }

    deinit {
        closeFollower()
        close(leader)
    }
}
