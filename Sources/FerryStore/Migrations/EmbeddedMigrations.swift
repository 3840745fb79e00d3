import Foundation

/// The schema ferryd carries: the files of `Sources/FerryStore/Embedded/migrations/`, compiled into the
/// binary by the EmbedFiles plugin. So a ferryd copied alone onto a machine migrates its database
/// without the repository beside it, and the schema it applies is always the one it was built with.
///
/// The bytes are the files' bytes, so the SHA-256 recorded in `ferry_migrations` is the same as when
/// the files were read from a folder: databases migrated by an older ferryd (which read `migrations/`
/// from disk) are recognised as they are.
public enum EmbeddedMigrations {
    /// How messages name this set ("... is missing from the migrations built into this ferryd").
    public static let origin = "the migrations built into this ferryd"

    /// The folder below `Embedded/` that holds them.
    static let folder = "migrations/"

    /// The migrations in order of their numbers.
    public static func load() throws(MigrationError) -> [Migration] {
        try load(from: EmbeddedFiles.all)
    }

    /// The migrations among `files` (paths below `Embedded/` to bytes): those directly in `migrations/`.
    static func load(from files: [String: [UInt8]]) throws(MigrationError) -> [Migration] {
        let migrationFiles = files.compactMap { path, bytes -> (name: String, contents: Data)? in
            guard path.hasPrefix(folder) else { return nil }
            let name = String(path.dropFirst(folder.count))
            return name.contains("/") ? nil : (name, Data(bytes))
        }
        return try MigrationList.ordered(migrationFiles, origin: origin)
    }
}
