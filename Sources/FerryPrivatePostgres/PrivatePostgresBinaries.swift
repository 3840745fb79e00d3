import Foundation

/// Where the PostgreSQL server programs are (`initdb`, `pg_ctl`, `postgres`).
///
/// Debian and Ubuntu keep them out of `PATH`, under `/usr/lib/postgresql/<major>/bin`, so they are
/// looked for in this order: `pg_config --bindir` (the installation the headers belong to), then
/// the newest `/usr/lib/postgresql/*/bin`, then every directory in `PATH` (other distributions,
/// Homebrew). The first directory holding all three programs wins.
public struct PrivatePostgresBinaries: Sendable, Equatable {
    public let directory: String

    public var initdb: String { "\(directory)/initdb" }
    public var pgCtl: String { "\(directory)/pg_ctl" }
    public var postgres: String { "\(directory)/postgres" }

    package static let requiredPrograms = ["initdb", "pg_ctl", "postgres"]

    public init(directory: String) {
        self.directory = directory
    }

    /// The first of `candidates` (default: the search order above) that holds every program.
    public static func locate(in candidates: [String]? = nil) throws(PrivatePostgresError) -> PrivatePostgresBinaries {
        let directories = candidates ?? defaultCandidates()
        let fileManager = FileManager.default
        for directory in directories {
            let complete = requiredPrograms.allSatisfy { fileManager.isExecutableFile(atPath: "\(directory)/\($0)") }
            if complete {
                return PrivatePostgresBinaries(directory: directory)
            }
        }
        // Name the first program that is missing everywhere, which is what the operator has to install.
        let missing = requiredPrograms.first { program in
            !directories.contains { fileManager.isExecutableFile(atPath: "\($0)/\(program)") }
        } ?? requiredPrograms[0]
        throw .binaryNotFound(name: missing, searched: directories)
    }

    package static func defaultCandidates() -> [String] {
        var candidates: [String] = []
        if let bindir = pgConfigBindir() {
            candidates.append(bindir)
        }
        candidates += debianVersionDirectories()
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        candidates += path.split(separator: ":").map(String.init)
        var seen = Set<String>()
        return candidates.filter { seen.insert($0).inserted }
    }

    /// `/usr/lib/postgresql/<major>/bin`, newest major version first.
    private static func debianVersionDirectories() -> [String] {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions
            .compactMap { name in Double(name).map { (version: $0, name: name) } }
            .sorted { $0.version > $1.version }
            .map { "\(root)/\($0.name)/bin" }
    }

    private static func pgConfigBindir() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let searched = path.split(separator: ":").map { "\($0)/pg_config" }
        guard let pgConfig = searched.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            return nil
        }
        let command = PrivatePostgresCommand(executable: pgConfig, arguments: ["--bindir"], purpose: "pg_config")
        guard let outcome = try? command.runBlocking(), outcome.succeeded else {
            return nil
        }
        let bindir = outcome.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        return bindir.isEmpty ? nil : bindir
    }
}
