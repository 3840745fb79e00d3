import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One run of an external program the private cluster needs (initdb, pg_ctl, useradd, chown),
/// with its output captured.
///
/// Started with `posix_spawn` rather than Foundation's `Process`, because `pg_ctl start` leaves a
/// daemon behind: `Process` notices a child's exit through a socket the child inherits, and the
/// PostgreSQL server inherits it in turn, so `Process` would report pg_ctl as running for as long as
/// the server runs. Here the child gets standard input, output and error and nothing else (every
/// other descriptor is closed in the child), and its exit is observed with `waitpid`.
///
/// Output goes to temporary files rather than pipes for the same reason: a daemon holding a pipe
/// open would make reading "to the end" wait for the server to exit.
struct PrivatePostgresCommand: Sendable {
    let executable: String
    let arguments: [String]
    /// What this run is for, as error messages say it: "initdb", "pg_ctl start".
    let purpose: String

    struct Outcome: Sendable {
        /// The exit status; 128 + the signal for a program killed by one.
        let status: Int32
        let standardOutput: String
        let standardError: String
        var succeeded: Bool { status == 0 }
    }

    var commandLine: String { ([executable] + arguments).joined(separator: " ") }

    /// Runs to completion; the wait happens on a thread of its own, not on the concurrency pool.
    func run() async throws(PrivatePostgresError) -> Outcome {
        let capture = try OutputCapture()
        let pid = try spawn(capture)
        let status = await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            Thread.detachNewThread {
                continuation.resume(returning: Self.waitForExit(pid))
            }
        }
        return capture.collect(status: status)
    }

    /// Runs to completion on the calling thread: for process exit, where nothing can be awaited.
    func runBlocking() throws(PrivatePostgresError) -> Outcome {
        let capture = try OutputCapture()
        let pid = try spawn(capture)
        return capture.collect(status: Self.waitForExit(pid))
    }

    /// Runs, and turns a non-zero exit into an error carrying what the program printed.
    @discardableResult
    func runChecked() async throws(PrivatePostgresError) -> Outcome {
        let outcome = try await run()
        guard outcome.succeeded else {
            throw .commandFailed(
                purpose: purpose, commandLine: commandLine, status: outcome.status,
                output: outcome.standardError.isEmpty ? outcome.standardOutput : outcome.standardError)
        }
        return outcome
    }

    private func spawn(_ capture: OutputCapture) throws(PrivatePostgresError) -> pid_t {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            capture.remove()
            throw .commandNotStarted(purpose: purpose, commandLine: commandLine, reason: "\(executable) is not an executable file")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, capture.outputDescriptor, 1)
        posix_spawn_file_actions_adddup2(&actions, capture.errorDescriptor, 2)
        // The server account may not be allowed into our working directory; "/" is open to all.
        SpawnExtensions.changeDirectory(&actions, "/")

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Start from a clean slate: no blocked signals, default handling of the ones this process
        // may ignore (SIGPIPE), and, where the platform can, no inherited descriptors beyond 0-2.
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaultSignals = sigset_t()
        sigemptyset(&defaultSignals)
        sigaddset(&defaultSignals, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaultSignals)
        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        #if canImport(Darwin)
        flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #else
        SpawnExtensions.closeDescriptors(&actions, from: 3)
        #endif
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let argv = ([executable] + arguments).map { strdup($0) }
        let envp = Self.environment.map { strdup("\($0.key)=\($0.value)") }
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid = pid_t()
        let result = (argv + [nil]).withUnsafeBufferPointer { argvPointer in
            (envp + [nil]).withUnsafeBufferPointer { envpPointer in
                guard let argvBase = argvPointer.baseAddress, let envpBase = envpPointer.baseAddress else {
                    return EINVAL
                }
                return posix_spawn(&pid, executable, &actions, &attributes, argvBase, envpBase)
            }
        }
        guard result == 0 else {
            capture.remove()
            throw .commandNotStarted(purpose: purpose, commandLine: commandLine, reason: String(cString: strerror(result)))
        }
        return pid
    }

    private static func waitForExit(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { return -1 }
        }
        // The wait status packs either an exit code (bits 8-15, when bits 0-6 are zero) or a signal.
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// Ours minus `PG*` variables (a stray PGPORT or PGDATA must not redirect the private cluster)
    /// and with C messages, so tool output in error messages is the same everywhere.
    private static var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PG") }
        environment["LC_ALL"] = "C"
        return environment
    }
}

/// Two temporary files receiving a command's standard output and standard error.
private struct OutputCapture {
    let outputPath: String
    let errorPath: String
    let outputDescriptor: Int32
    let errorDescriptor: Int32

    init() throws(PrivatePostgresError) {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-command-\(UUID().uuidString)").path
        outputPath = base + ".out"
        errorPath = base + ".err"
        outputDescriptor = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        errorDescriptor = open(errorPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard outputDescriptor >= 0, errorDescriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            remove()
            throw .fileSystem(path: base, action: "create output files for a command at", reason: reason)
        }
    }

    func collect(status: Int32) -> PrivatePostgresCommand.Outcome {
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        let error = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        remove()
        return .init(status: status, standardOutput: output, standardError: error)
    }

    func remove() {
        if outputDescriptor >= 0 { close(outputDescriptor) }
        if errorDescriptor >= 0 { close(errorDescriptor) }
        unlink(outputPath)
        unlink(errorPath)
    }
}
