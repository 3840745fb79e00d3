import Foundation

/// Finds one of the package's executables for tests that run it as a subprocess (exit status,
/// standard error and terminal handling only exist in a process).
///
/// The binary built beside the running test bundle comes first, so `swift test --scratch-path X`
/// tests X's build; then `.build/debug/<name>` under the package root, found by walking up from the
/// calling test's source file (the README's test command runs `swift build` before `swift test`).
public enum BuiltExecutable {
    public struct Missing: Error, CustomStringConvertible {
        public let name: String
        public let searched: [String]
        public var description: String {
            "the \(name) executable was not found (looked at \(searched.joined(separator: ", "))); run `swift build` first"
        }
    }

    public static func url(named name: String, callerFile: String = #filePath) throws -> URL {
        let candidates = [
            Bundle.main.executableURL?.deletingLastPathComponent().appendingPathComponent(name),
            packageRoot(from: callerFile).map { $0.appendingPathComponent(".build/debug/\(name)") },
        ].compactMap { $0 }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw Missing(name: name, searched: candidates.map(\.path))
        }
        return found
    }

    /// The nearest directory above `file` that holds `Package.swift`.
    public static func packageRoot(from file: String) -> URL? {
        var directory = URL(fileURLWithPath: file).deletingLastPathComponent()
        while directory.path != "/" {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
                return directory
            }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }
}
