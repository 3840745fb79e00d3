import Foundation

/// A ferryd command other than `serve` (`migrate`, `admin ...`), run as an operator runs it: a real
/// process, with none of the test's own FERRY_* variables.
enum FerrydCommand {
    struct Run: Sendable {
        let status: Int32
        let standardOutput: String
        let standardError: String
    }

    /// Runs ferryd with `arguments` and the FERRY_* variables of `environment`, in `workingDirectory`
    /// (where its output is collected, in files of their own, so runs there may overlap).
    static func run(_ arguments: [String], environment: [String: String] = [:], in workingDirectory: String) async throws -> Run {
        TestProcessCleanup.prepare()
        let process = Process()
        process.executableURL = try FerrydBinary.url()
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory)
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FERRY_") }.merging(environment) { $1 }
        let name = "\(workingDirectory)/ferryd.\(UUID().uuidString.prefix(8))"
        let output = URL(fileURLWithPath: name + ".out")
        let errors = URL(fileURLWithPath: name + ".err")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        let status = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int32, any Error>) in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        return Run(
            status: status,
            standardOutput: try String(contentsOf: output, encoding: .utf8),
            standardError: try String(contentsOf: errors, encoding: .utf8))
    }
}
