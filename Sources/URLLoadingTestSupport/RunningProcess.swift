import Foundation

/// A child process that runs until terminated, logging to a file, and whose standard input
/// is a pipe held open by this object (so the child can notice when its parent is gone).
final class RunningProcess: Sendable {
    private let process: Process
    private let standardInput: Pipe
    private let logFile: URL

    private init(process: Process, standardInput: Pipe, logFile: URL) {
        self.process = process
        self.standardInput = standardInput
        self.logFile = logFile
    }

    static func launch(_ executable: String, arguments: [String], log logFile: URL) throws -> RunningProcess {
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let log = try FileHandle(forWritingTo: logFile)
        defer { try? log.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let standardInput = Pipe()
        process.standardInput = standardInput
        process.standardOutput = log
        process.standardError = log
        try process.run()
        return RunningProcess(process: process, standardInput: standardInput, logFile: logFile)
    }

    var isRunning: Bool { process.isRunning }

    /// What the process has written so far.
    var logText: String {
        (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
    }

    /// Asks the process to stop (SIGTERM and closing its input) and waits until it has.
    func terminate() {
        try? standardInput.fileHandleForWriting.close()
        if process.isRunning {
            process.terminate()
        }
        process.waitUntilExit()
    }
}
