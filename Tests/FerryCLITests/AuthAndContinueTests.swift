import Foundation
import Testing
import URLLoadingTestSupport

@Suite("ferry get: -u and -C -", .timeLimit(.minutes(2)))
struct AuthAndContinueTests {
    private static let userArgument = "\(AuthRoutes.user):\(AuthRoutes.password)"

    // AU-14, AU-22, AU-10: -u answers a Basic challenge, and a Digest one (SHA-256 and MD5), whichever
    // the server sent, like curl --anyauth; nothing is sent before the challenge.
    @Test(arguments: ["schemes=basic", "schemes=digest", "schemes=digest&algorithm=MD5"])
    func userAnswersTheServersChallenge(query: String) async throws {
        try await CLIFixture.withOrigin { origin in
            let result = try await FerryProcess.run(["get", origin.url("/protected/cli?\(query)"), "-u", Self.userArgument])
            CLIFixture.expectStatus(result, 0)
            let report = try EchoReport(result.standardOutput)
            let scheme = query.contains("digest") ? "Digest " : "Basic "
            #expect(report.header("Authorization")?.hasPrefix(scheme) == true)
            #expect(origin.requests.count == 2)
            #expect(origin.requests.first?.headers.contains { $0.name.lowercased() == "authorization" } == false)
        }
    }

    // AU-19, AU-20, ER-10: a wrong password is not tried again; the 401 fails the transfer (exit 22) and
    // the password appears nowhere in the output.
    @Test func wrongPasswordFails() async throws {
        try await CLIFixture.withOrigin { origin in
            let result = try await FerryProcess.run(["get", origin.url("/protected/cli"), "-u", "ferry:wrong-secret"])
            CLIFixture.expectStatus(result, 22)
            #expect(result.standardError.contains("HTTP 401"))
            #expect(!result.standardError.contains("wrong-secret"))
            #expect(origin.requests.count == 2)
        }
    }

    // AU-22, ER-11: without -u the 401 fails the transfer; -u without a colon is a usage error that does not
    // repeat its argument.
    @Test func withoutUserOrMalformed() async throws {
        try await CLIFixture.withOrigin { origin in
            let without = try await FerryProcess.run(["get", origin.url("/protected/cli")])
            CLIFixture.expectStatus(without, 22)
            let malformed = try await FerryProcess.run(["get", origin.url("/protected/cli"), "-u", "just-a-secret"])
            CLIFixture.expectStatus(malformed, 2)
            #expect(!malformed.standardError.contains("just-a-secret"))
        }
    }

    // DL-12: -C - continues a partial file with a Range request from its size; the rest is appended.
    @Test func continueAppendsTheRest() async throws {
        try await CLIFixture.withOrigin { origin in
            try await CLIFixture.withTemporaryDirectory { directory in
                let file = directory.appendingPathComponent("part.bin")
                try CLIFixture.pattern(100_000).prefix(40_000).write(to: file)
                let result = try await FerryProcess.run(["get", origin.url("/bytes/100000"), "-C", "-", "-o", file.path])
                CLIFixture.expectStatus(result, 0)
                #expect(CLIFixture.contents(file) == CLIFixture.pattern(100_000))
                let range = origin.requests.last?.headers.first { $0.name.lowercased() == "range" }?.value
                #expect(range == "bytes=40000-")

                // Already complete: the server's 416 is not an error, and the file stays as it is.
                let again = try await FerryProcess.run(["get", origin.url("/bytes/100000"), "--continue", "-o", file.path])
                CLIFixture.expectStatus(again, 0)
                #expect(CLIFixture.contents(file) == CLIFixture.pattern(100_000))

                // No file yet: an ordinary download.
                let fresh = directory.appendingPathComponent("fresh.bin")
                CLIFixture.expectStatus(try await FerryProcess.run(["get", origin.url("/bytes/5000"), "-C", "-", "-o", fresh.path]), 0)
                #expect(CLIFixture.contents(fresh) == CLIFixture.pattern(5000))
            }
        }
    }

    // DL-10: a server that ignores the range (200 with the whole body) fails the transfer as curl does,
    // leaving the partial file untouched.
    @Test func continueWithoutRangeSupportFails() async throws {
        try await CLIFixture.withOrigin { origin in
            try await CLIFixture.withTemporaryDirectory { directory in
                let file = directory.appendingPathComponent("part.bin")
                let partial = CLIFixture.pattern(100_000).prefix(30_000)
                try partial.write(to: file)
                let result = try await FerryProcess.run(
                    ["get", origin.url("/resumable/100000?ranges=ignore"), "-C", "-", "-o", file.path])
                CLIFixture.expectStatus(result, 1)
                #expect(result.standardError.contains("HTTP server doesn't seem to support byte ranges. Cannot resume."))
                #expect(CLIFixture.contents(file) == partial)
            }
        }
    }

    // -C - needs a file, and only '-' is understood.
    @Test func continueUsageErrors() async throws {
        let toStandardOutput = try await FerryProcess.run(["get", "http://127.0.0.1:9/x", "-C", "-"])
        CLIFixture.expectStatus(toStandardOutput, 2)
        let offset = try await FerryProcess.run(["get", "http://127.0.0.1:9/x", "-C", "100", "-o", "/tmp/x"])
        CLIFixture.expectStatus(offset, 2)
    }
}
