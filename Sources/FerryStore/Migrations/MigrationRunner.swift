import FerryPrivatePostgres
import Logging
import PostgresNIO

/// Applies migration files to a database, each exactly once, in order, each in its own transaction,
/// and refuses to go on when the database and the files disagree about the past.
///
/// Applied migrations are recorded in `ferry_migrations` with the SHA-256 of the file. Before
/// anything is applied, every recorded migration must still be there unchanged, under the same
/// name, and no unapplied file may sort before an applied one: a database must never end up with a
/// history that no checkout of the repository describes.
///
/// Concurrent runs (several ferryd processes starting on one database) are serialised by a
/// session-level advisory lock held for the whole run; the second run waits, then finds everything
/// applied. The lock is tied to the connection, so a process that dies mid-run releases it.
public struct MigrationRunner: Sendable {
    /// The advisory lock's key: "FERRYMIG" in ASCII, so it is recognisable in `pg_locks`.
    public static let advisoryLockKey: Int64 = 0x4645_5252_594D_4947

    private let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    /// Applies whatever of `migrations` is not applied yet, on one connection of `client` (the
    /// advisory lock belongs to a session, so the whole run stays on one connection).
    public func apply(_ migrations: [Migration], directory: String, using client: PostgresClient) async throws -> MigrationReport {
        try await client.withConnection { connection in
            try await apply(migrations, directory: directory, on: connection)
        }
    }

    /// Applies whatever of `migrations` is not applied yet. `migrations` must be in version order
    /// with unique versions, as `MigrationDirectory.load()` returns them; `directory` is where
    /// they came from, for messages.
    public func apply(_ migrations: [Migration], directory: String, on connection: PostgresConnection) async throws -> MigrationReport {
        try await lock(connection)
        do {
            let report = try await applyHoldingLock(migrations, directory: directory, on: connection)
            try await unlock(connection)
            return report
        } catch {
            // Best effort: if the connection itself broke, closing it released the lock anyway.
            try? await unlock(connection)
            throw error
        }
    }

    private func applyHoldingLock(_ migrations: [Migration], directory: String, on connection: PostgresConnection) async throws -> MigrationReport {
        try await run(
            """
            CREATE TABLE IF NOT EXISTS ferry_migrations (
                version integer PRIMARY KEY,
                name text NOT NULL,
                checksum text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """, on: connection, step: "create the ferry_migrations table")
        let recorded = try await appliedMigrations(on: connection)
        let pending = try Self.pending(migrations, recorded: recorded, directory: directory)

        var applied: [Migration] = []
        for migration in pending {
            try await apply(migration, on: connection)
            logger.info("applied migration", metadata: ["migration": "\(migration.identifier)"])
            applied.append(migration)
        }
        return MigrationReport(applied: applied, previouslyApplied: recorded.count)
    }

    package struct RecordedMigration: Equatable {
        package let version: Int
        package let name: String
        package let checksum: String

        package init(version: Int, name: String, checksum: String) {
            self.version = version
            self.name = name
            self.checksum = checksum
        }
    }

    /// The files still to apply, after checking the recorded history against the files.
    package static func pending(_ migrations: [Migration], recorded: [RecordedMigration], directory: String) throws(MigrationError) -> [Migration] {
        let byVersion = Dictionary(migrations.map { ($0.version, $0) }, uniquingKeysWith: { first, _ in first })
        for record in recorded {
            guard let file = byVersion[record.version] else {
                throw .appliedFileMissing(version: record.version, name: record.name, directory: directory)
            }
            guard file.name == record.name else {
                throw .renamedAfterApplied(version: record.version, recordedName: record.name, fileName: file.fileName)
            }
            guard file.checksum == record.checksum else {
                throw .changedAfterApplied(fileName: file.fileName, recordedChecksum: record.checksum, currentChecksum: file.checksum)
            }
        }
        let appliedVersions = Set(recorded.map(\.version))
        let pending = migrations.filter { !appliedVersions.contains($0.version) }
        if let latest = recorded.max(by: { $0.version < $1.version }), let early = pending.first(where: { $0.version < latest.version }) {
            throw .addedOutOfOrder(
                fileName: early.fileName, latestApplied: MigrationFileName.make(version: latest.version, name: latest.name))
        }
        return pending
    }

    private func appliedMigrations(on connection: PostgresConnection) async throws -> [RecordedMigration] {
        do {
            let rows = try await connection.query("SELECT version, name, checksum FROM ferry_migrations ORDER BY version", logger: logger)
            var recorded: [RecordedMigration] = []
            for try await (version, name, checksum) in rows.decode((Int, String, String).self) {
                recorded.append(RecordedMigration(version: version, name: name, checksum: checksum))
            }
            return recorded
        } catch {
            throw MigrationError.databaseFailed(step: "read ferry_migrations", reason: PostgresErrorDescription.describe(error))
        }
    }

    /// One migration: its statements and its record, in one transaction. Done by hand rather than
    /// with `withTransaction` so that a failure names the statement's line, not a wrapper error.
    private func apply(_ migration: Migration, on connection: PostgresConnection) async throws {
        try await run("BEGIN", on: connection, step: "begin a transaction for \(migration.fileName)")
        do {
            for statement in MigrationScript.statements(in: migration.sql) {
                do {
                    try await drain(connection.query(PostgresQuery(unsafeSQL: statement.sql), logger: logger))
                } catch {
                    throw MigrationError.statementFailed(
                        fileName: migration.fileName, line: statement.line, reason: PostgresErrorDescription.describe(error))
                }
            }
            try await run(
                "INSERT INTO ferry_migrations (version, name, checksum) VALUES (\(migration.version), \(migration.name), \(migration.checksum))",
                on: connection, step: "record \(migration.fileName) in ferry_migrations")
            try await run("COMMIT", on: connection, step: "commit \(migration.fileName)")
        } catch {
            try? await run("ROLLBACK", on: connection, step: "roll back \(migration.fileName)")
            throw error
        }
    }

    private func lock(_ connection: PostgresConnection) async throws {
        let key = Self.advisoryLockKey
        var acquired = false
        do {
            let rows = try await connection.query("SELECT pg_try_advisory_lock(\(key))", logger: logger)
            for try await granted in rows.decode(Bool.self) {
                acquired = granted
            }
        } catch {
            throw MigrationError.databaseFailed(step: "take the migration lock", reason: PostgresErrorDescription.describe(error))
        }
        if !acquired {
            logger.info("another process is applying migrations to this database; waiting for it")
            try await run("SELECT pg_advisory_lock(\(key))", on: connection, step: "wait for the migration lock")
        }
    }

    private func unlock(_ connection: PostgresConnection) async throws {
        try await run("SELECT pg_advisory_unlock(\(Self.advisoryLockKey))", on: connection, step: "release the migration lock")
    }

    private func run(_ query: PostgresQuery, on connection: PostgresConnection, step: String) async throws {
        do {
            try await drain(connection.query(query, logger: logger))
        } catch {
            throw MigrationError.databaseFailed(step: step, reason: PostgresErrorDescription.describe(error))
        }
    }

    /// Reads a result to its end: a connection runs its next query only after the previous one's
    /// rows were consumed.
    private func drain(_ rows: PostgresRowSequence) async throws {
        for try await _ in rows {}
    }
}
