import FerryStore
import Foundation
import Logging
import PostgresNIO
import Testing

/// Applying `migrations/` ("Running it"): in order, once, each in one transaction,
/// recorded with a checksum, and refused when the files no longer match what was applied.
@Suite(.timeLimit(.minutes(3)))
struct MigrationRunnerTests {
    let logger = Logger(label: "ferry.tests.migrations")

    static let first = "CREATE TABLE widgets (id integer PRIMARY KEY, name text NOT NULL);\n"
    static let second = """
        -- A comment; with a semicolon.
        ALTER TABLE widgets ADD COLUMN colour text DEFAULT 'red; or blue';
        CREATE FUNCTION widget_count() RETURNS bigint LANGUAGE sql AS $$ SELECT count(*) FROM widgets; $$;
        """

    func load(_ directory: String) throws -> [Migration] {
        try MigrationDirectory(path: directory).load()
    }

    func apply(_ directory: String, on database: TestDatabase) async throws -> MigrationReport {
        let migrations = try load(directory)
        return try await database.withConnection { connection in
            try await MigrationRunner(logger: logger).apply(migrations, directory: directory, on: connection)
        }
    }

    func recorded(on database: TestDatabase) async throws -> [(Int, String, String)] {
        try await database.withConnection { connection in
            var rows: [(Int, String, String)] = []
            let result = try await connection.query("SELECT version, name, checksum FROM ferry_migrations ORDER BY version", logger: logger)
            for try await row in result.decode((Int, String, String).self) {
                rows.append(row)
            }
            return rows
        }
    }

    @Test func anEmptyDatabaseGetsEveryMigrationInOrderWithItsChecksum() async throws {
        try await TestDatabase.withFresh { database in
            try await TemporaryDirectory.withFiles(["0001_widgets.sql": Self.first, "0002_colours.sql": Self.second, "README.md": "not SQL"]) { directory in
                let report = try await apply(directory, on: database)
                #expect(report.lines == ["applied 0001_widgets", "applied 0002_colours"])
                #expect(report.previouslyApplied == 0)

                let migrations = try load(directory)
                let rows = try await recorded(on: database)
                #expect(rows.map(\.0) == [1, 2])
                #expect(rows.map(\.1) == ["widgets", "colours"])
                #expect(rows.map(\.2) == migrations.map(\.checksum))
                #expect(migrations[0].checksum.count == 64)

                let count = try await PostgresProbe.value("SELECT widget_count()", as: Int.self, on: database.connectionConfiguration)
                #expect(count == 0, "the dollar-quoted function body with its inner semicolon arrived whole")
            }
        }
    }

    @Test func runningAgainChangesNothing() async throws {
        try await TestDatabase.withFresh { database in
            try await TemporaryDirectory.withFiles(["0001_widgets.sql": Self.first]) { directory in
                _ = try await apply(directory, on: database)
                let again = try await apply(directory, on: database)
                #expect(again.isUpToDate)
                #expect(again.lines == ["database is up to date"])
                #expect(again.previouslyApplied == 1)
                #expect(try await recorded(on: database).count == 1)
            }
        }
    }

    @Test func aNewFileIsAppliedOnTopOfEarlierOnes() async throws {
        try await TestDatabase.withFresh { database in
            try await TemporaryDirectory.withFiles(["0001_widgets.sql": Self.first]) { directory in
                _ = try await apply(directory, on: database)
                try Data(Self.second.utf8).write(to: URL(fileURLWithPath: "\(directory)/0002_colours.sql"))
                let report = try await apply(directory, on: database)
                #expect(report.lines == ["applied 0002_colours"])
            }
        }
    }

    @Test func anAppliedMigrationThatWasEditedIsRefusedNamingTheFileAndBothChecksums() async throws {
        try await TestDatabase.withFresh { database in
            try await TemporaryDirectory.withFiles(["0001_widgets.sql": Self.first]) { directory in
                _ = try await apply(directory, on: database)
                let original = try #require(try load(directory).first?.checksum)
                try Data((Self.first + "-- an innocent comment\n").utf8).write(to: URL(fileURLWithPath: "\(directory)/0001_widgets.sql"))
                let edited = try #require(try load(directory).first?.checksum)

                let error = await #expect(throws: MigrationError.self) { try await apply(directory, on: database) }
                #expect(error == .changedAfterApplied(fileName: "0001_widgets.sql", recordedChecksum: original, currentChecksum: edited))
                let message = error?.description ?? ""
                #expect(message.contains("0001_widgets.sql"))
                #expect(message.contains(original) && message.contains(edited))
            }
        }
    }

    @Test func anAppliedMigrationWhoseFileIsMissingIsRefused() async throws {
        try await TestDatabase.withFresh { database in
            try await TemporaryDirectory.withFiles(["0001_widgets.sql": Self.first, "0002_colours.sql": Self.second]) { directory in
                _ = try await apply(directory, on: database)
                try FileManager.default.removeItem(atPath: "\(directory)/0002_colours.sql")
                let error = await #expect(throws: MigrationError.self) { try await apply(directory, on: database) }
                #expect(error == .appliedFileMissing(version: 2, name: "colours", directory: directory))
                #expect(error?.description.contains("0002_colours.sql") == true)
            }
        }
    }

    @Test func aRenamedOrOutOfOrderFileIsRefused() async throws {
        try await TestDatabase.withFresh { database in
            try await TemporaryDirectory.withFiles(["0001_widgets.sql": Self.first, "0003_later.sql": "SELECT 1;"]) { directory in
                _ = try await apply(directory, on: database)

                try Data(Self.second.utf8).write(to: URL(fileURLWithPath: "\(directory)/0002_colours.sql"))
                let early = await #expect(throws: MigrationError.self) { try await apply(directory, on: database) }
                #expect(early == .addedOutOfOrder(fileName: "0002_colours.sql", latestApplied: "0003_later.sql"))
                try FileManager.default.removeItem(atPath: "\(directory)/0002_colours.sql")

                try FileManager.default.moveItem(atPath: "\(directory)/0001_widgets.sql", toPath: "\(directory)/0001_gadgets.sql")
                let renamed = await #expect(throws: MigrationError.self) { try await apply(directory, on: database) }
                #expect(renamed == .renamedAfterApplied(version: 1, recordedName: "widgets", fileName: "0001_gadgets.sql"))
            }
        }
    }

    @Test func aFailingStatementLeavesNothingOfItsMigrationAndNamesTheLine() async throws {
        let broken = "CREATE TABLE gadgets (id integer);\n\nINSERT INTO no_such_table VALUES (1);\n"
        try await TestDatabase.withFresh { database in
            try await TemporaryDirectory.withFiles(["0001_widgets.sql": Self.first, "0002_broken.sql": broken]) { directory in
                let error = await #expect(throws: MigrationError.self) { try await apply(directory, on: database) }
                guard case .statementFailed(let fileName, let line, let reason) = error else {
                    Issue.record("expected statementFailed, got \(String(describing: error))")
                    return
                }
                #expect(fileName == "0002_broken.sql")
                #expect(line == 3)
                #expect(reason.contains("no_such_table"))

                #expect(try await recorded(on: database).map(\.0) == [1], "the first migration stays applied")
                let gadgets = try await PostgresProbe.value(
                    "SELECT to_regclass('gadgets')::text", as: String?.self, on: database.connectionConfiguration)
                #expect(gadgets == .some(nil), "the failed migration's first statement was rolled back")
            }
        }
    }

    @Test func twoRunsAtOnceApplyEachMigrationOnce() async throws {
        // The sleep widens the window in which a second runner would apply the same file again.
        let slow = "CREATE TABLE slow (id integer);\nSELECT pg_sleep(0.5);\n"
        try await TestDatabase.withFresh { database in
            try await TemporaryDirectory.withFiles(["0001_widgets.sql": Self.first, "0002_slow.sql": slow]) { directory in
                async let one = apply(directory, on: database)
                async let two = apply(directory, on: database)
                let reports = try await [one, two]
                #expect(reports.map(\.applied.count).sorted() == [0, 2], "one run applies both, the other finds them applied")
                #expect(try await recorded(on: database).map(\.0) == [1, 2])
            }
        }
    }
}
