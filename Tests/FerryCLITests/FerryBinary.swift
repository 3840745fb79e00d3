import Foundation

/// Finds the `ferry` executable the tests run.
///
/// Tests run the real binary as a subprocess (exit status, standard error and terminal handling are
/// what they check, and those only exist in a process). The binary built alongside this test bundle
/// comes first, so `swift test --scratch-path X` tests X's build; then `.build/debug/ferry` under the
/// package root, found by walking up from this file (the README runs `swift build` before `swift test`).
enum FerryBinary {
    struct Missing: Error, CustomStringConvertible {
        let searched: [String]
        var description: String {
            "the ferry executable was not found (looked at \(searched.joined(separator: ", "))); run `swift build` first"
        }
    }

    static func url() throws -> URL {
        let candidates = [
            Bundle.main.executableURL?.deletingLastPathComponent().appendingPathComponent("ferry"),
            packageRoot().map { $0.appendingPathComponent(".build/debug/ferry") },
        ].compactMap { $0 }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw Missing(searched: candidates.map(\.path))
        }
        return found
    }

    /// The nearest directory above this source file that holds `Package.swift`.
    static func packageRoot(from file: String = #filePath) -> URL? {
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
