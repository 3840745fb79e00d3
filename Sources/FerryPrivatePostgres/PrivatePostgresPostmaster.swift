import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a cluster's `postmaster.pid` says about the server that wrote it, and whether that
/// server is still there.
///
/// The file's lines are, in order: pid, data directory, start time, port, first socket directory,
/// listen address, shared memory key, status ("starting", "ready", "stopping", "standby").
/// A running server is the only authority on where it listens, so a reused server is reached
/// through what this file says, not through what ferryd would configure today.
struct PrivatePostgresPostmaster: Sendable, Equatable {
    let pid: pid_t
    let port: Int?
    let socketDirectory: String?
    let status: String?

    /// Nil when the file is missing or too short to name a pid (a server that is just writing it).
    static func read(from path: String) -> PrivatePostgresPostmaster? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard let first = lines.first, let pid = pid_t(first), pid > 0 else { return nil }
        func line(_ number: Int) -> String? {
            lines.count >= number && !lines[number - 1].isEmpty ? lines[number - 1] : nil
        }
        return PrivatePostgresPostmaster(
            pid: pid, port: line(4).flatMap { Int($0) }, socketDirectory: line(5), status: line(8))
    }

    var isReady: Bool { status == "ready" }
    var processState: ProcessState { ProcessState.of(pid) }

    /// Whether that process is the PostgreSQL server of `clusterDirectory`, not an unrelated program
    /// (or another cluster's server) that got the same pid after a reboot or a container restart.
    /// A server runs with its data directory as working directory, which /proc shows. Without
    /// /proc (macOS) a live pid is taken at its word.
    func isServer(of clusterDirectory: String) -> Bool {
        guard ProcessState.hasProcFileSystem else {
            return true
        }
        guard let name = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8) else {
            return false
        }
        let command = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard command == "postgres" || command == "postmaster" else {
            return false
        }
        return ProcessState.workingDirectory(of: pid) == Self.canonical(clusterDirectory)
    }

    /// Live processes whose working directory is `clusterDirectory`: a server and its children,
    /// including the children of a server that died and are still finishing. Empty without /proc.
    static func processes(workingIn clusterDirectory: String) -> [pid_t] {
        let directory = canonical(clusterDirectory)
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { pid_t($0) }.filter { ProcessState.workingDirectory(of: $0) == directory }
    }

    private static func canonical(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }
}

/// Whether a process exists, as far as starting a server is concerned.
enum ProcessState: Sendable, Equatable {
    case gone
    /// Exited, but not yet collected by its parent. A server that died under an init that is slow
    /// to reap (or a container whose pid 1 never reaps) stays like this; PostgreSQL's own check
    /// (`kill(pid, 0)`) takes it for alive and refuses to start, so ferryd has to know better.
    case zombie
    case alive

    static let hasProcFileSystem = FileManager.default.fileExists(atPath: "/proc/self/stat")

    static func of(_ pid: pid_t) -> ProcessState {
        guard kill(pid, 0) == 0 || errno == EPERM else {
            return .gone
        }
        // /proc/<pid>/stat is "pid (command) S ...", S being the state letter; the command may
        // itself contain ") ", so the state is read after the last one.
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.range(of: ") ", options: .backwards)
        else {
            return .alive
        }
        return stat[end.upperBound...].first == "Z" ? .zombie : .alive
    }

    /// Nil when unreadable: no such process, a zombie, or another user's process (when not root).
    static func workingDirectory(of pid: pid_t) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/cwd")
    }
}
