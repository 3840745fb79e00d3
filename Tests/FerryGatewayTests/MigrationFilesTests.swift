@testable import FerryStore
import Foundation
import Testing

/// Reading `migrations/`: file names, order, statements, and finding the folder from anywhere.
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

    @Test func theFolderIsFoundFromTheExecutableFromAnyWorkingDirectory() async throws {
        try await TemporaryDirectory.withFiles(["README": ""]) { root in
            let fileManager = FileManager.default
            try fileManager.createDirectory(atPath: "\(root)/migrations", withIntermediateDirectories: true)
            try Data("SELECT 1;".utf8).write(to: URL(fileURLWithPath: "\(root)/migrations/0001_initial.sql"))
            try fileManager.createDirectory(atPath: "\(root)/.build/x86_64-unknown-linux-gnu/debug", withIntermediateDirectories: true)
            let executable = URL(fileURLWithPath: "\(root)/.build/x86_64-unknown-linux-gnu/debug/ferryd")

            let found = try MigrationDirectoryLocator.locate(explicit: nil, executable: executable, currentDirectory: "/")
            #expect(found.path == "\(root)/migrations")

            // Installed layout: /app/ferryd beside /app/migrations.
            let installed = try MigrationDirectoryLocator.locate(
                explicit: nil, executable: URL(fileURLWithPath: "\(root)/ferryd"), currentDirectory: "/")
            #expect(installed.path == "\(root)/migrations")

            // No executable to go by: the current directory.
            let fromWorkingDirectory = try MigrationDirectoryLocator.locate(explicit: nil, executable: nil, currentDirectory: root)
            #expect(fromWorkingDirectory.path == "\(root)/migrations")
        }
    }

    @Test func anExplicitFolderIsUsedAsGivenAndAMissingOneIsAnError() throws {
        #expect(throws: MigrationError.directoryNotFound(path: "/nonexistent")) {
            try MigrationDirectoryLocator.locate(explicit: "/nonexistent", executable: nil, currentDirectory: "/")
        }
        let error = #expect(throws: MigrationError.self) {
            try MigrationDirectoryLocator.locate(explicit: nil, executable: URL(fileURLWithPath: "/usr/bin/ferryd"), currentDirectory: "/tmp")
        }
        #expect(error?.description.contains("/usr/bin/migrations") == true)
        #expect(error?.description.contains("--migrations") == true)
    }
}
