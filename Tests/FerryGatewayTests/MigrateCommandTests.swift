import FerryPrivatePostgres
import Foundation
import Testing

/// `ferryd migrate` as a user runs it: a real process, from an unrelated working directory, with
/// its own private cluster ("The binary works from any working directory").
@Suite(.timeLimit(.minutes(3)))
struct MigrateCommandTests {
    /// Runs ferryd with no FERRY_* variables from the test's environment, in `workingDirectory`.
    func ferryd(_ arguments: [String], in workingDirectory: String) async throws -> FerrydCommand.Run {
        try await FerrydCommand.run(arguments, in: workingDirectory)
    }

    /// What migrating a new database prints: one line per file of the source tree's migrations (which
    /// ferryd carries built in, so none of this needs the folder at run time), in order.
    static var allApplied: String {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/FerryStore/Embedded/migrations").standardized
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasSuffix(".sql") }.sorted().map { String($0.dropLast(4)) }
        #expect(names.count >= 4, "migrations found at \(directory.path)")
        return names.map { "applied \($0)\n" }.joined()
    }

    @Test func migrateOnAFreshDataDirectoryAppliesTheSchemaThenFindsItUpToDate() async throws {
        try await TemporaryDirectory.withFiles([:]) { workingDirectory in
            try await TemporaryDirectory.withNew { dataDirectory in
                let first = try await ferryd(["migrate", "--data-dir", dataDirectory], in: workingDirectory)
                #expect(first.status == 0, "\(first.standardError)")
                #expect(first.standardOutput == Self.allApplied)
                #expect(PrivatePostgres.runningServerPID(dataDirectory: dataDirectory) == nil, "migrate stops the cluster it started")

                let second = try await ferryd(["migrate", "--data-dir", dataDirectory], in: workingDirectory)
                #expect(second.status == 0, "\(second.standardError)")
                #expect(second.standardOutput == "database is up to date\n")
                #expect(PrivatePostgres.runningServerPID(dataDirectory: dataDirectory) == nil)
            }
        }
    }

    @Test func twoFerrydProcessesMigratingAtOnceShareTheClusterAndApplyOnce() async throws {
        try await TemporaryDirectory.withFiles([:]) { workingDirectory in
            try await TemporaryDirectory.withNew { dataDirectory in
                try FileManager.default.createDirectory(atPath: "\(workingDirectory)/a", withIntermediateDirectories: true)
                try FileManager.default.createDirectory(atPath: "\(workingDirectory)/b", withIntermediateDirectories: true)
                async let first = ferryd(["migrate", "--data-dir", dataDirectory], in: "\(workingDirectory)/a")
                async let second = ferryd(["migrate", "--data-dir", dataDirectory], in: "\(workingDirectory)/b")
                let runs = try await [first, second]
                #expect(runs.map(\.status) == [0, 0], "\(runs.map(\.standardError))")
                #expect(runs.map(\.standardOutput).sorted() == [Self.allApplied, "database is up to date\n"])
                #expect(PrivatePostgres.runningServerPID(dataDirectory: dataDirectory) == nil, "the last one out stops the cluster")
            }
        }
    }

    @Test func anUnreachableDatabaseFailsAtOnceWithoutShowingThePassword() async throws {
        try await TemporaryDirectory.withFiles([:]) { workingDirectory in
            let run = try await ferryd(
                ["migrate", "--database-url", "postgres://ferry:TOP-SECRET@127.0.0.1:1/ferry?sslmode=disable"], in: workingDirectory)
            #expect(run.status == 1)
            #expect(run.standardError.contains("ferryd migrate: could not connect to postgres://ferry:<redacted>@127.0.0.1:1/ferry"))
            #expect(!run.standardError.contains("TOP-SECRET"))
            #expect(run.standardOutput.isEmpty)
        }
    }

    @Test func aMissingMigrationsFolderOrABadValueIsAClearError() async throws {
        try await TemporaryDirectory.withFiles([:]) { workingDirectory in
            let missing = try await ferryd(["migrate", "--migrations", "nowhere"], in: workingDirectory)
            #expect(missing.status == 1)
            #expect(missing.standardError.contains("ferryd migrate: the migrations directory \(workingDirectory)/nowhere does not exist"))

            let badURL = try await ferryd(["migrate", "--database-url", "mysql://x@y/z"], in: workingDirectory)
            #expect(badURL.status == 1)
            #expect(badURL.standardError.contains("ferryd migrate: --database-url must start with postgres:// or postgresql://"))
        }
    }
}
