import Foundation
import Synchronization

/// What a finished `ferry` run left behind.
struct FerryResult: Sendable {
    let arguments: [String]
    /// The exit status; for a process killed by a signal, 128 + the signal.
    let status: Int32
    /// True when it died of a signal (a crash), rather than exiting.
    let diedOfSignal: Bool
    let standardOutput: Data
    let standardError: String

    var standardErrorLines: [String] {
        standardError.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    var summary: String {
        "ferry \(arguments.joined(separator: " ")) → status \(status)\(diedOfSignal ? " (signal)" : ""), stderr: \(standardError)"
    }
}

/// Runs the `ferry` binary as a child process, with a time limit so a hang fails the test instead of
/// blocking the suite.
///
/// Pipes are drained on their own threads (not the test's async tasks) while the child runs: a child
/// that fills a pipe nobody reads would never exit.
final class FerryProcess: @unchecked Sendable {
    // @unchecked: `process` and the descriptors are configured in init and started once; the
    // collected output is behind `output`'s lock.
    private let process = Process()
    private let arguments: [String]
    private let standardInput: Data?
    private let terminal: PseudoTerminal?
    private let environment: [String: String]
    private let outputPipe = Pipe()
    private let errorPipe = Pipe()
    private let inputPipe = Pipe()
    private let finished = DispatchGroup()
    private let output = Mutex((standardOutput: Data(), standardError: Data()))

    struct TimedOut: Error, CustomStringConvertible {
        let description: String
    }

    /// - Parameters:
    ///   - standardInput: bytes piped to the child; nil gives it /dev/null.
    ///   - terminal: run with standard error on this pseudo-terminal instead of a pipe.
    ///   - environment: variables set for the child, over the test's own less any `FERRY_*` (so a
    ///     developer's FERRY_URL or FERRY_API_KEY never leaks into a test).
    init(_ arguments: [String], standardInput: Data? = nil, terminal: PseudoTerminal? = nil, environment: [String: String] = [:]) {
        self.arguments = arguments
        self.standardInput = standardInput
        self.terminal = terminal
        self.environment = environment
    }

    /// Runs `ferry` with `arguments` to the end.
    static func run(
        _ arguments: [String], standardInput: Data? = nil, terminal: PseudoTerminal? = nil, environment: [String: String] = [:],
        timeout: Duration = .seconds(60)
    ) async throws -> FerryResult {
        let child = FerryProcess(arguments, standardInput: standardInput, terminal: terminal, environment: environment)
        try child.start()
        return try await child.waitForExit(timeout: timeout)
    }

    func start() throws {
        process.executableURL = try FerryBinary.url()
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FERRY_") }
            .merging(environment) { $1 }
        process.standardOutput = outputPipe
        process.standardInput = standardInput == nil ? FileHandle.nullDevice : inputPipe
        if let terminal {
            process.standardError = FileHandle(fileDescriptor: terminal.follower, closeOnDealloc: false)
        } else {
            process.standardError = errorPipe
        }
        finished.enter()
        process.terminationHandler = { [finished] _ in finished.leave() }
        try process.run()
        terminal?.closeFollower()

        drain { [outputPipe] in outputPipe.fileHandleForReading.readDataToEndOfFile() } into: { $0.standardOutput = $1 }
        if let terminal {
            drain { terminal.readToEnd() } into: { $0.standardError = $1 }
        } else {
            drain { [errorPipe] in errorPipe.fileHandleForReading.readDataToEndOfFile() } into: { $0.standardError = $1 }
        }
        if let standardInput {
            let input = inputPipe.fileHandleForWriting
            Thread.detachNewThread {
                try? input.write(contentsOf: standardInput)
                try? input.close()
            }
        }
    }

    /// Sends `signal` to the child (e.g. SIGINT, as Ctrl-C would).
    func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    func waitForExit(timeout: Duration) async throws -> FerryResult {
        let seconds = timeout.components.seconds
        let inTime = await withCheckedContinuation { continuation in
            Thread.detachNewThread { [self] in
                if finished.wait(timeout: .now() + .seconds(Int(seconds))) == .success {
                    continuation.resume(returning: true)
                    return
                }
                kill(process.processIdentifier, SIGKILL)
                finished.wait()
                continuation.resume(returning: false)
            }
        }
        let collected = output.withLock { $0 }
        let standardError = String(decoding: collected.standardError, as: UTF8.self)
        guard inTime else {
            throw TimedOut(
                description: "ferry \(arguments.joined(separator: " ")) did not finish within \(seconds) s; stderr: \(standardError)")
        }
        let diedOfSignal = process.terminationReason == .uncaughtSignal
        return FerryResult(
            arguments: arguments, status: diedOfSignal ? 128 + process.terminationStatus : process.terminationStatus,
            diedOfSignal: diedOfSignal, standardOutput: collected.standardOutput, standardError: standardError)
    }

    /// Reads on a thread of its own until the end, then stores the bytes; the exit waits for it.
    private func drain(
        _ read: @escaping @Sendable () -> Data,
        into store: @escaping @Sendable (inout (standardOutput: Data, standardError: Data), Data) -> Void
    ) {
        finished.enter()
        Thread.detachNewThread { [self] in
            let data = read()
            output.withLock { store(&$0, data) }
            finished.leave()
        }
    }
}
