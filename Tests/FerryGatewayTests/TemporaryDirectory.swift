import FerryPrivatePostgres
import Foundation

/// Throwaway directories for tests, always removed afterwards, together with any PostgreSQL server
/// a test left running in them (a failing test must not leave a server behind).
enum TemporaryDirectory {
    /// Short, and open for others to enter: as root the private cluster runs as `ferry-postgres`,
    /// which must be able to reach its folder.
    static let root: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-gateway-tests").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        return path
    }()

    /// Runs `body` with a new, not yet existing directory path under `root` (plus `suffix`).
    @discardableResult
    static func withNew<Result>(suffix: String = "", _ body: (String) async throws -> Result) async throws -> Result {
        let top = "\(root)/\(UUID().uuidString.prefix(8).lowercased())"
        let path = top + suffix
        defer {
            try? PrivatePostgres.stopServerNow(dataDirectory: path)
            try? FileManager.default.removeItem(atPath: top)
        }
        return try await body(path)
    }

    /// A directory that exists, filled with `files` (name → contents).
    @discardableResult
    static func withFiles<Result>(_ files: [String: String], _ body: (String) async throws -> Result) async throws -> Result {
        try await withNew { path in
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            for (name, contents) in files {
                try Data(contents.utf8).write(to: URL(fileURLWithPath: "\(path)/\(name)"))
            }
            return try await body(path)
        }
    }
}
