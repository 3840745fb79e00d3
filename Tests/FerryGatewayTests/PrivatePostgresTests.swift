import FerryPrivatePostgres
import Foundation
import Logging
import PostgresNIO
import Testing

/// ferryd's private PostgreSQL cluster ("Running it"): created on first start, reachable
/// only through its socket, reused when it is already running, stopped by the last user.
@Suite(.timeLimit(.minutes(3)))
struct PrivatePostgresTests {
    let logger = Logger(label: "ferry.tests.private-postgres")

    @Test func firstStartCreatesTheClusterAndTheFerryDatabaseReachableOnlyThroughTheSocket() async throws {
        try await TemporaryDirectory.withNew { dataDirectory in
            let cluster = PrivatePostgres(dataDirectory: dataDirectory, durability: .throwaway, logger: logger)
            let endpoint = try await cluster.start()
            #expect(endpoint.socketDirectory == "\(dataDirectory)/socket")
            #expect(endpoint.database == "ferry")
            #expect(FileManager.default.fileExists(atPath: "\(dataDirectory)/postgres/PG_VERSION"))

            let configuration = endpoint.connectionConfiguration(database: endpoint.database)
            let database = try await PostgresProbe.value("SELECT current_database()", as: String.self, on: configuration)
            #expect(database == "ferry")
            let listenAddresses = try await PostgresProbe.value("SHOW listen_addresses", as: String.self, on: configuration)
            #expect(listenAddresses == "", "the private cluster must not listen on TCP")

            let pid = try #require(PrivatePostgres.runningServerPID(dataDirectory: dataDirectory))
            if geteuid() == 0 {
                let uid = try #require(PostgresProbe.userID(of: pid))
                #expect(uid != 0, "PostgreSQL refuses root: the server must run as an unprivileged user")
            }

            try await cluster.stop()
            #expect(PrivatePostgres.runningServerPID(dataDirectory: dataDirectory) == nil)
        }
    }

    @Test func startingTwiceUsesTheSameServerAndTheLastUserStopsIt() async throws {
        try await TemporaryDirectory.withNew { dataDirectory in
            let first = PrivatePostgres(dataDirectory: dataDirectory, durability: .throwaway, logger: logger)
            let endpoint = try await first.start()
            let pid = try #require(PrivatePostgres.runningServerPID(dataDirectory: dataDirectory))
            #expect(try await first.start() == endpoint, "a second start of a started instance changes nothing")

            let second = PrivatePostgres(dataDirectory: dataDirectory, durability: .throwaway, logger: logger)
            #expect(try await second.start() == endpoint)
            #expect(PrivatePostgres.runningServerPID(dataDirectory: dataDirectory) == pid, "the running server is reused, not restarted")

            try await second.stop()
            #expect(PrivatePostgres.runningServerPID(dataDirectory: dataDirectory) == pid, "still in use by the first")
            try await first.stop()
            #expect(PrivatePostgres.runningServerPID(dataDirectory: dataDirectory) == nil)
        }
    }

    @Test func aServerLeftRunningByAnOwnerThatWentAwayIsReused() async throws {
        try await TemporaryDirectory.withNew { dataDirectory in
            do {
                // An owner that never calls stop(), like a ferryd killed with SIGKILL.
                let forgotten = PrivatePostgres(dataDirectory: dataDirectory, durability: .throwaway, logger: logger)
                try await forgotten.start()
            }
            let pid = try #require(PrivatePostgres.runningServerPID(dataDirectory: dataDirectory))

            let next = PrivatePostgres(dataDirectory: dataDirectory, durability: .throwaway, logger: logger)
            let endpoint = try await next.start()
            #expect(PrivatePostgres.runningServerPID(dataDirectory: dataDirectory) == pid)
            let answer = try await PostgresProbe.value(
                "SELECT 1", as: Int.self, on: endpoint.connectionConfiguration(database: endpoint.database))
            #expect(answer == 1)
            try await next.stop()
            #expect(PrivatePostgres.runningServerPID(dataDirectory: dataDirectory) == nil)
        }
    }

    @Test func aServerThatDiedIsStartedAgainDespiteItsStalePidFile() async throws {
        try await TemporaryDirectory.withNew { dataDirectory in
            let first = PrivatePostgres(dataDirectory: dataDirectory, durability: .throwaway, logger: logger)
            try await first.start()
            let pid = try #require(PrivatePostgres.runningServerPID(dataDirectory: dataDirectory))
            let cluster = "\(dataDirectory)/postgres"
            let serverProcesses = PostgresProbe.processes(workingIn: cluster)
            kill(pid, SIGKILL)
            #expect(try await PostgresProbe.wait { PostgresProbe.processes(workingIn: cluster).isEmpty })
            // The server's orphaned children came to this process (ferryd adopts orphans, see
            // PrivatePostgresReaper); collect them so no zombie outlives the test.
            PostgresProbe.collect(serverProcesses.filter { $0 != pid })
            #expect(FileManager.default.fileExists(atPath: "\(cluster)/postmaster.pid"), "a killed server leaves its pid file")

            let second = PrivatePostgres(dataDirectory: dataDirectory, durability: .throwaway, logger: logger)
            let endpoint = try await second.start()
            let newPID = try #require(PrivatePostgres.runningServerPID(dataDirectory: dataDirectory))
            #expect(newPID != pid)
            let answer = try await PostgresProbe.value(
                "SELECT 1", as: Int.self, on: endpoint.connectionConfiguration(database: endpoint.database))
            #expect(answer == 1)
            try await second.stop()
        }
    }

    @Test func aPidFileNamingAnUnrelatedLiveProcessDoesNotBlockTheStart() async throws {
        try await TemporaryDirectory.withNew { dataDirectory in
            let cluster = PrivatePostgres(dataDirectory: dataDirectory, durability: .throwaway, logger: logger)
            try await cluster.start()
            try await cluster.stop()
            // After a reboot the recorded pid can belong to anything; here it is this test process.
            let pidFile = "\(dataDirectory)/postgres/postmaster.pid"
            try Data("\(getpid())\n\(dataDirectory)/postgres\n".utf8).write(to: URL(fileURLWithPath: pidFile))

            let again = PrivatePostgres(dataDirectory: dataDirectory, durability: .throwaway, logger: logger)
            try await again.start()
            #expect(PrivatePostgres.runningServerPID(dataDirectory: dataDirectory) != nil)
            try await again.stop()
        }
    }

    @Test func aDataDirectoryTooLongForASocketPathPutsTheSocketUnderTmp() async throws {
        try await TemporaryDirectory.withNew(suffix: "/" + String(repeating: "long-folder-name-", count: 6)) { dataDirectory in
            let cluster = PrivatePostgres(dataDirectory: dataDirectory, durability: .throwaway, logger: logger)
            let endpoint = try await cluster.start()
            #expect(endpoint.socketDirectory.hasPrefix("/tmp/ferry-pg-"))
            #expect(endpoint.socketPath.utf8.count <= 107)
            let answer = try await PostgresProbe.value(
                "SELECT 1", as: Int.self, on: endpoint.connectionConfiguration(database: endpoint.database))
            #expect(answer == 1)
            try await cluster.stop()
            #expect(!FileManager.default.fileExists(atPath: endpoint.socketDirectory), "our /tmp folder goes with the server")
        }
    }

    @Test func missingPostgresProgramsAreNamedWithWhatToInstall() async throws {
        try await TemporaryDirectory.withFiles([:]) { emptyDirectory in
            let error = try #require(throws: PrivatePostgresError.self) {
                try PrivatePostgresBinaries.locate(in: [emptyDirectory])
            }
            #expect(error.description.hasPrefix("initdb not found"))
            #expect(error.description.contains("install the postgresql package"))
            #expect(error.description.contains(emptyDirectory))
        }
    }

    @Test func aFailingInitdbIsReportedWithWhatItPrinted() async throws {
        let fakeProgram = "#!/bin/sh\necho 'initdb: error: the disk is on fire' >&2\nexit 1\n"
        try await TemporaryDirectory.withFiles(["initdb": fakeProgram, "pg_ctl": fakeProgram, "postgres": fakeProgram]) { binaries in
            for program in ["initdb", "pg_ctl", "postgres"] {
                try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: "\(binaries)/\(program)")
            }
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: binaries)
            try await TemporaryDirectory.withNew { dataDirectory in
                let cluster = PrivatePostgres(
                    dataDirectory: dataDirectory, binaries: PrivatePostgresBinaries(directory: binaries), logger: logger)
                let error = await #expect(throws: PrivatePostgresError.self) { try await cluster.start() }
                let description = error?.description ?? ""
                #expect(description.hasPrefix("initdb failed (exit status 1)"))
                #expect(description.contains("the disk is on fire"))
                #expect(!FileManager.default.fileExists(atPath: "\(dataDirectory)/postgres"), "no half-made cluster is left to be mistaken for one")
            }
        }
    }
}
