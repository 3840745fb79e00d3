import Foundation

/// A folder of migration files (`migrations/` in the repository).
///
/// Every `.sql` file in it must be a migration (a stray `notes.sql` is more likely a mistake than
/// something to skip silently); other files (README.md) are ignored.
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
        var migrations: [Migration] = []
        for fileName in names.sorted() where fileName.hasSuffix(".sql") {
            let filePath = "\(path)/\(fileName)"
            guard let contents = fileManager.contents(atPath: filePath) else {
                throw .unreadableFile(path: filePath, reason: "it cannot be opened")
            }
            migrations.append(try Migration(fileName: fileName, contents: contents, directory: path))
        }
        guard !migrations.isEmpty else {
            throw .noMigrations(directory: path)
        }
        migrations.sort { $0.version < $1.version }
        for (index, migration) in migrations.enumerated().dropFirst() where migrations[index - 1].version == migration.version {
            let sameNumber = migrations.filter { $0.version == migration.version }.map(\.fileName)
            throw .duplicateVersion(version: migration.version, fileNames: sameNumber)
        }
        return migrations
    }

    /// Whether `path` looks like a migrations folder: it holds a `0001_*.sql` file.
    package static func looksLikeMigrations(_ path: String) -> Bool {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.contains { $0.hasPrefix("0001_") && $0.hasSuffix(".sql") }
    }
}
