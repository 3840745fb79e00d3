import Foundation

/// The rules every set of migration files follows, wherever the files come from (the folder given by
/// `--migrations`, or the set compiled into ferryd): every `.sql` file is a migration (a stray
/// `notes.sql` is more likely a mistake than something to skip silently), other files (README.md) are
/// ignored, there is at least one, and no two share a number.
enum MigrationList {
    /// The migrations among `files` (name, bytes) in order of their numbers; `origin` names where the
    /// files came from, for messages.
    static func ordered(_ files: [(name: String, contents: Data)], origin: String) throws(MigrationError) -> [Migration] {
        var migrations: [Migration] = []
        for file in files.sorted(by: { $0.name < $1.name }) where file.name.hasSuffix(".sql") {
            migrations.append(try Migration(fileName: file.name, contents: file.contents, directory: origin))
        }
        guard !migrations.isEmpty else {
            throw .noMigrations(directory: origin)
        }
        migrations.sort { $0.version < $1.version }
        for (index, migration) in migrations.enumerated().dropFirst() where migrations[index - 1].version == migration.version {
            let sameNumber = migrations.filter { $0.version == migration.version }.map(\.fileName)
            throw .duplicateVersion(version: migration.version, fileNames: sameNumber)
        }
        return migrations
    }
}
