import Foundation

/// Finds the `ferryd` executable the tests run (the same way FerryCLITests finds `ferry`): the
/// binary built beside this test bundle first, so `swift test --scratch-path X` tests X's build,
/// then `.build/debug/ferryd` under the package root.
enum FerrydBinary {
    struct Missing: Error, CustomStringConvertible {
        let searched: [String]
        var description: String {
            "the ferryd executable was not found (looked at \(searched.joined(separator: ", "))); run `swift build` first"
        }
    }

    static func url() throws -> URL {
        let candidates = [
            Bundle.main.executableURL?.deletingLastPathComponent().appendingPathComponent("ferryd"),
            packageRoot().map { $0.appendingPathComponent(".build/debug/ferryd") },
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
