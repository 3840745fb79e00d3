/// Why migrations were not applied. Each case reads as one sentence that names the file involved
/// and says what to do about it.
public enum MigrationError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The directory given by `--migrations` / `FERRY_MIGRATIONS_DIR` does not exist.
    case directoryNotFound(path: String)
    case directoryUnreadable(path: String, reason: String)
    case noMigrations(directory: String)
    /// A `.sql` file whose name is not `NNNN_name.sql`.
    case invalidFileName(fileName: String, directory: String)
    case duplicateVersion(version: Int, fileNames: [String])
    case unreadableFile(path: String, reason: String)
    /// The file differs from the one that was applied (its SHA-256 changed).
    case changedAfterApplied(fileName: String, recordedChecksum: String, currentChecksum: String)
    /// The database records a migration whose file is gone.
    case appliedFileMissing(version: Int, name: String, directory: String)
    /// The database records this version under another name.
    case renamedAfterApplied(version: Int, recordedName: String, fileName: String)
    /// A file that is not applied sorts before one that is.
    case addedOutOfOrder(fileName: String, latestApplied: String)
    /// A statement of a migration failed; nothing of that migration was kept.
    case statementFailed(fileName: String, line: Int, reason: String)
    /// Talking to the database failed outside a migration's statements.
    case databaseFailed(step: String, reason: String)

    public var description: String {
        switch self {
        case .directoryNotFound(let path):
            return "the migrations directory \(path) does not exist"
        case .directoryUnreadable(let path, let reason):
            return "cannot read the migrations directory \(path): \(reason)"
        case .noMigrations(let directory):
            return "the migrations directory \(directory) holds no NNNN_name.sql files"
        case .invalidFileName(let fileName, let directory):
            return "\(directory)/\(fileName) is not named like a migration (NNNN_name.sql: four or more digits, an underscore, "
                + "letters, digits or underscores); rename it or move it out of the directory"
        case .duplicateVersion(let version, let fileNames):
            return "migration number \(version) is used by more than one file: \(fileNames.joined(separator: ", "))"
        case .unreadableFile(let path, let reason):
            return "cannot read the migration \(path): \(reason)"
        case .changedAfterApplied(let fileName, let recordedChecksum, let currentChecksum):
            return "the migration \(fileName) was changed after it was applied to this database "
                + "(applied with SHA-256 \(recordedChecksum), the file now has \(currentChecksum)); "
                + "restore the applied version and put the change in a new migration"
        case .appliedFileMissing(let version, let name, let directory):
            return "the migration \(MigrationFileName.make(version: version, name: name)) was applied to this database "
                + "but is missing from \(directory); restore the file (is this ferryd older than the database?)"
        case .renamedAfterApplied(let version, let recordedName, let fileName):
            return "migration number \(version) was applied as \(MigrationFileName.make(version: version, name: recordedName)) "
                + "but the file is now \(fileName); restore the original name"
        case .addedOutOfOrder(let fileName, let latestApplied):
            return "the migration \(fileName) is not applied, but the later \(latestApplied) already is; "
                + "give it a number after the last applied migration"
        case .statementFailed(let fileName, let line, let reason):
            return "the migration \(fileName) failed at the statement on line \(line): \(reason); nothing of it was applied"
        case .databaseFailed(let step, let reason):
            return "could not \(step): \(reason)"
        }
    }
}
