/// Why the private PostgreSQL cluster could not be set up, started or stopped. Each case reads as
/// one sentence naming what failed and, for external tools, what they printed.
public enum PrivatePostgresError: Error, CustomStringConvertible, Sendable {
    /// A PostgreSQL program is missing.
    case binaryNotFound(name: String, searched: [String])
    /// A helper program (runuser, useradd, chown) is missing.
    case toolNotFound(name: String, package: String)
    /// An external command ran and failed; `output` is its standard error (and the server log, for pg_ctl).
    case commandFailed(purpose: String, commandLine: String, status: Int32, output: String)
    /// An external command could not be started at all.
    case commandNotStarted(purpose: String, commandLine: String, reason: String)
    /// A file or directory the cluster needs could not be created or changed.
    case fileSystem(path: String, action: String, reason: String)
    /// The account the server runs as cannot reach its own directory.
    case unreachable(path: String, account: String, blockedAt: String, mode: UInt16)
    /// The socket directory under /tmp exists but belongs to someone else.
    case socketDirectoryTaken(path: String, ownerUID: UInt32, expectedUID: UInt32)
    /// Waited too long for something (another ferryd's start, a starting server).
    case timedOut(waitingFor: String)
    /// The server runs but something about it is unusable.
    case unusableServer(reason: String)
    /// The server runs, but the `ferry` database could not be checked or created.
    case databaseSetupFailed(reason: String)

    public var description: String {
        switch self {
        case .binaryNotFound(let name, let searched):
            let places = searched.isEmpty ? "" : " (looked in \(searched.joined(separator: ", ")))"
            return "\(name) not found\(places): install the postgresql package, or set FERRY_DATABASE_URL to use an existing server"
        case .toolNotFound(let name, let package):
            return "\(name) not found: install the \(package) package"
        case .commandFailed(let purpose, let commandLine, let status, let output):
            let trimmed = output.trimmingCharacters(in: .whitespacesAndNewlines)
            return "\(purpose) failed (exit status \(status)): \(commandLine)" + (trimmed.isEmpty ? "" : "\n\(trimmed)")
        case .commandNotStarted(let purpose, let commandLine, let reason):
            return "\(purpose) could not be started: \(commandLine): \(reason)"
        case .fileSystem(let path, let action, let reason):
            return "could not \(action) \(path): \(reason)"
        case .unreachable(let path, let account, let blockedAt, let mode):
            return "the PostgreSQL server runs as the user \(account) (PostgreSQL refuses to run as root), which cannot reach \(path): "
                + "\(blockedAt) has mode 0\(String(mode, radix: 8)); choose a data directory (FERRY_DATA_DIR) that other users can enter, "
                + "e.g. under /var/lib or /srv"
        case .socketDirectoryTaken(let path, let ownerUID, let expectedUID):
            return "the socket directory \(path) belongs to uid \(ownerUID), not to uid \(expectedUID) that runs the server; "
                + "remove it if it is stale, or use a shorter data directory path so the socket can live inside it"
        case .timedOut(let waitingFor):
            return "timed out waiting for \(waitingFor)"
        case .unusableServer(let reason):
            return "the private PostgreSQL server cannot be used: \(reason)"
        case .databaseSetupFailed(let reason):
            return "could not prepare the database in the private PostgreSQL cluster: \(reason)"
        }
    }
}
