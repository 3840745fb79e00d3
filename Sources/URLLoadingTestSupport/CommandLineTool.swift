import Foundation

/// Runs an external tool to completion and reports failures with what it printed.
struct CommandLineTool {
    let executablePath: String

    /// Runs the tool with `arguments` in `directory`, discarding its standard output;
    /// throws with its standard error if it cannot be found or exits unsuccessfully.
    func run(_ arguments: [String], in directory: URL? = nil) throws {
        guard FileManager.default.isExecutableFile(atPath: executablePath) else {
            throw TestServerError.toolMissing(path: executablePath)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executablePath)
        process.arguments = arguments
        if let directory {
            process.currentDirectoryURL = directory
        }
        let standardError = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = standardError
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read to the end before waiting: a tool that fills the pipe would otherwise block forever.
        let errorOutput = standardError.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw TestServerError.toolFailed(
                command: ([executablePath] + arguments).joined(separator: " "),
                status: process.terminationStatus,
                standardError: String(decoding: errorOutput, as: UTF8.self)
            )
        }
    }

    /// Whether the tool runs `arguments` successfully; false also when it is missing.
    func succeeds(_ arguments: [String]) -> Bool {
        (try? run(arguments)) != nil
    }
}
