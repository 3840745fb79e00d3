import Foundation

/// A folder of migration files: what `--migrations DIR` / `FERRY_MIGRATIONS_DIR` names instead of the
/// set built into ferryd (`EmbeddedMigrations`). The files follow `MigrationList`'s rules.
public struct MigrationDirectory: Sendable, Equatable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// The migrations in order of their numbers.
    public func load() throws(MigrationError) -> [Migration] {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .directoryNotFound(path: path)
        }
        let names: [String]
        do {
            names = try fileManager.contentsOfDirectory(atPath: path)
        } catch {
            throw .directoryUnreadable(path: path, reason: "\(error)")
        }
        var files: [(name: String, contents: Data)] = []
        for fileName in names where fileName.hasSuffix(".sql") {
            let filePath = "\(path)/\(fileName)"
            guard let contents = fileManager.contents(atPath: filePath) else {
                throw .unreadableFile(path: filePath, reason: "it cannot be opened")
            }
            files.append((fileName, contents))
        }
        return try MigrationList.ordered(files, origin: path)
    }
}
