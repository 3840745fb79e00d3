/// Where ferryd takes its schema from: the set compiled into it, unless `--migrations DIR` /
/// `FERRY_MIGRATIONS_DIR` names a folder (to try a migration under development without rebuilding).
/// An explicit folder that is missing is an error, never a silent fall back to the built-in set: that
/// would hide a typo.
public enum MigrationSource: Sendable, Equatable, CustomStringConvertible {
    case embedded
    case directory(MigrationDirectory)

    /// The folder when one is configured, else the built-in set.
    public init(directory: String?) {
        self = directory.map { MigrationSource.directory(MigrationDirectory(path: $0)) } ?? .embedded
    }

    /// The migrations in order of their numbers.
    public func load() throws(MigrationError) -> [Migration] {
        switch self {
        case .embedded: try EmbeddedMigrations.load()
        case .directory(let directory): try directory.load()
        }
    }

    /// Where the migrations came from, for messages and the log.
    public var description: String {
        switch self {
        case .embedded: EmbeddedMigrations.origin
        case .directory(let directory): directory.path
        }
    }
}
