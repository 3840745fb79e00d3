@testable import FerryStore
import Foundation
import Testing
import URLLoadingTestSupport

/// Reading migrations: file names, order, statements, the set built into ferryd, and a folder given instead.
@Suite
struct MigrationFilesTests {
    @Test func filesAreOrderedByNumberAndOtherFilesIgnored() async throws {
        try await TemporaryDirectory.withFiles([
            "0010_tenth.sql": "SELECT 10;", "0002_second.sql": "SELECT 2;", "README.md": "notes",
        ]) { directory in
            let migrations = try MigrationDirectory(path: directory).load()
            #expect(migrations.map(\.identifier) == ["0002_second", "0010_tenth"])
            #expect(migrations.map(\.version) == [2, 10])
        }
    }

    @Test func badlyNamedDuplicateOrMissingFilesAreRefused() async throws {
        try await TemporaryDirectory.withFiles(["0001_ok.sql": "", "notes.sql": ""]) { directory in
            #expect(throws: MigrationError.invalidFileName(fileName: "notes.sql", directory: directory)) {
                try MigrationDirectory(path: directory).load()
            }
        }
        try await TemporaryDirectory.withFiles(["0001_a.sql": "", "0001_b.sql": ""]) { directory in
            #expect(throws: MigrationError.duplicateVersion(version: 1, fileNames: ["0001_a.sql", "0001_b.sql"])) {
                try MigrationDirectory(path: directory).load()
            }
        }
        try await TemporaryDirectory.withFiles(["README.md": ""]) { directory in
            #expect(throws: MigrationError.noMigrations(directory: directory)) { try MigrationDirectory(path: directory).load() }
        }
        #expect(throws: MigrationError.directoryNotFound(path: "/nonexistent/migrations")) {
            try MigrationDirectory(path: "/nonexistent/migrations").load()
        }
    }

    @Test func fileNamesFollowTheNumberedPattern() throws {
        let initial = try #require(MigrationFileName.parse("0001_initial.sql"))
        #expect(initial.version == 1 && initial.name == "initial")
        let long = try #require(MigrationFileName.parse("12345_more_things.sql"))
        #expect(long.version == 12345 && long.name == "more_things")
        for bad in ["001_short.sql", "0001-dash.sql", "0001_.sql", "0000_zero.sql", "0001_x.SQL", "0001_spa ce.sql", "abcd_x.sql"] {
            #expect(MigrationFileName.parse(bad) == nil, "\(bad)")
        }
    }

    @Test func statementsAreCutAtSemicolonsOutsideStringsCommentsAndDollarQuotes() {
        let sql = """
            -- leading comment; not a statement
            CREATE TABLE a (note text DEFAULT 'x;y', "odd;name" int);
            /* block; /* nested; */ still comment */
            INSERT INTO a (note) VALUES (E'it\\'s; fine');
            CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $body$
            BEGIN
                RETURN 1; -- inside the body
            END;
            $body$;
            SELECT $$;$$, a$b, $1
            """
        let statements = MigrationScript.statements(in: sql)
        #expect(statements.map(\.line) == [2, 4, 5, 10])
        #expect(statements[0].sql.hasSuffix(#"DEFAULT 'x;y', "odd;name" int)"#))
        #expect(statements[1].sql.hasSuffix(#"VALUES (E'it\'s; fine')"#))
        #expect(statements[2].sql.hasSuffix("END;\n$body$"))
        #expect(statements[3].sql == "SELECT $$;$$, a$b, $1")
        #expect(MigrationScript.statements(in: "-- only a comment\n;\n  ;").isEmpty)
    }

    @Test func theChecksumIsTheSHA256OfTheFileBytes() throws {
        let migration = try Migration(fileName: "0001_x.sql", contents: Data("abc".utf8))
        #expect(migration.checksum == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    /// The files of Sources/FerryStore/Embedded/migrations, read from disk.
    static func sourceFolder() throws -> MigrationDirectory {
        let root = try #require(BuiltExecutable.packageRoot(from: #filePath))
        return MigrationDirectory(path: root.appendingPathComponent("Sources/FerryStore/Embedded/migrations").path)
    }

    @Test func theBuiltInSetIsTheSourceFolderByteForByte() throws {
        // Same names, SQL and SHA-256: a database migrated from the folder is recognised by the binary.
        let builtIn = try EmbeddedMigrations.load()
        #expect(builtIn.first?.identifier == "0001_initial")
        #expect(builtIn == (try Self.sourceFolder().load()))
        #expect(try MigrationSource(directory: nil).load() == builtIn, "without --migrations ferryd uses the built-in set")
    }

    @Test func theBuiltInSetTakesOnlySQLFilesDirectlyInItsFolder() throws {
        let files: [String: [UInt8]] = [
            "migrations/0002_second.sql": Array("SELECT 2;".utf8), "migrations/0001_first.sql": Array("SELECT 1;".utf8),
            "migrations/README.md": Array("notes".utf8), "migrations/old/0003_draft.sql": Array("SELECT 3;".utf8),
            "console/0004_elsewhere.sql": Array("SELECT 4;".utf8), "openapi.json": Array("{}".utf8),
        ]
        #expect(try EmbeddedMigrations.load(from: files).map(\.identifier) == ["0001_first", "0002_second"])
        #expect(throws: MigrationError.noMigrations(directory: EmbeddedMigrations.origin)) {
            try EmbeddedMigrations.load(from: ["openapi.json": []])
        }
    }

    @Test func anExplicitFolderIsUsedInsteadAndAMissingOneIsAnError() async throws {
        #expect(MigrationSource(directory: nil) == .embedded)
        #expect(throws: MigrationError.directoryNotFound(path: "/nonexistent")) {
            try MigrationSource(directory: "/nonexistent").load()
        }
        try await TemporaryDirectory.withFiles(["0001_only.sql": "SELECT 1;"]) { directory in
            let source = MigrationSource(directory: directory)
            let loaded = try source.load()
            #expect(loaded.map(\.identifier) == ["0001_only"])
            #expect(source.description == directory)
        }
    }
}
