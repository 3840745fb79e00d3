import Foundation
import Testing
import URLLoadingTestSupport

/// `ferry get -C -` on ftp: the partial file's size goes to the server as REST, as `curl -C -` does
/// (DL-12, PR-01). Against a real FTP server (pyftpdlib).
@Suite("ferry get: -C - on ftp", .timeLimit(.minutes(2)))
struct FTPContinueTests {
    static let length = 100_000

    /// Skips (outside CI) on a machine without pyftpdlib.
    static func withServer(_ body: (FTPServer, URL) async throws -> Void) async throws {
        try #require(FTPServer.isAvailable || ProcessInfo.processInfo.environment["CI"] == nil,
                     "python3-pyftpdlib must be installed in CI (scripts/install-deps)")
        guard FTPServer.isAvailable else { return }
        let server = try FTPServer.start(files: ["file.bin": CLIFixture.pattern(Self.length)])
        defer { server.stop() }
        try await CLIFixture.withTemporaryDirectory { directory in
            try await body(server, directory)
        }
    }

    @Test func continueAppendsTheRestOfAnFTPFile() async throws {
        try await Self.withServer { server, directory in
            let file = directory.appendingPathComponent("part.bin")
            try CLIFixture.pattern(Self.length).prefix(30_000).write(to: file)
            let result = try await FerryProcess.run(["get", server.url("file.bin"), "-C", "-", "-o", file.path])
            CLIFixture.expectStatus(result, 0)
            #expect(CLIFixture.contents(file) == CLIFixture.pattern(Self.length))

            // Already whole: nothing is fetched and the file stays as it is.
            let again = try await FerryProcess.run(["get", server.url("file.bin"), "--continue", "-o", file.path])
            CLIFixture.expectStatus(again, 0)
            #expect(CLIFixture.contents(file) == CLIFixture.pattern(Self.length))
        }
    }

    @Test func continuePastTheEndOfAnFTPFileFails() async throws {
        try await Self.withServer { server, directory in
            let file = directory.appendingPathComponent("long.bin")
            let longer = CLIFixture.pattern(Self.length + 5_000)
            try longer.write(to: file)
            let result = try await FerryProcess.run(["get", server.url("file.bin"), "-C", "-", "-o", file.path])
            CLIFixture.expectStatus(result, 1)
            #expect(result.standardError.contains("the file is shorter than the offset to continue at"), "server log:\n\(server.log)")
            #expect(CLIFixture.contents(file) == longer)
        }
    }
}
