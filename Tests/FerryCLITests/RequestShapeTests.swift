import Foundation
import Testing
import URLLoadingTestSupport

@Suite("ferry get: headers, method and body", .timeLimit(.minutes(2)))
struct RequestShapeTests {
    // LC-21, UP-02: -H (repeatable), -X and --data all reach the server as given; --data sets the
    // form Content-Type unless -H gives one, and Content-Length is computed (UP-08).
    @Test func headersMethodAndDataReachTheServer() async throws {
        try await CLIFixture.withOrigin { origin in
            let result = try await FerryProcess.run([
                "get", origin.url("/echo"), "-H", "X-One: 1", "-H", "X-Two:   two words  ", "-X", "PATCH",
                "--data", "a=b&c=d",
            ])
            CLIFixture.expectStatus(result, 0)
            let echo = try EchoReport(result.standardOutput)
            #expect(echo.method == "PATCH")
            #expect(echo.header("X-One") == "1")
            #expect(echo.header("X-Two") == "two words")
            #expect(echo.header("Content-Type") == "application/x-www-form-urlencoded")
            #expect(echo.header("Content-Length") == "7")
            #expect(echo.body == Data("a=b&c=d".utf8))
        }
    }

    // UP-02: --data alone means POST; @file sends the file's bytes unchanged; -H Content-Type wins.
    @Test func dataFromAFileIsAPost() async throws {
        try await CLIFixture.withOrigin { origin in
            try await CLIFixture.withTemporaryDirectory { directory in
                let body = Data("{\"line\":1}\r\n{\"line\":2}\n".utf8)
                let file = directory.appendingPathComponent("body.json")
                try body.write(to: file)
                let result = try await FerryProcess.run([
                    "get", origin.url("/echo"), "--data", "@\(file.path)", "-H", "Content-Type: application/json",
                ])
                CLIFixture.expectStatus(result, 0)
                let echo = try EchoReport(result.standardOutput)
                #expect(echo.method == "POST")
                #expect(echo.body == body)
                #expect(echo.header("Content-Type") == "application/json")
            }
        }
    }

    // UP-02: --data @- reads standard input.
    @Test func dataFromStandardInput() async throws {
        try await CLIFixture.withOrigin { origin in
            let result = try await FerryProcess.run(["get", origin.url("/echo"), "--data", "@-"], standardInput: Data("from stdin".utf8))
            CLIFixture.expectStatus(result, 0)
            #expect(try EchoReport(result.standardOutput).body == Data("from stdin".utf8))
        }
    }

    // UP-01, UP-03, TT-05: --upload-file streams the file with PUT; Content-Length comes from the file
    // and Content-Type from its extension; the response can go to -o.
    @Test func uploadFile() async throws {
        try await CLIFixture.withOrigin { origin in
            try await CLIFixture.withTemporaryDirectory { directory in
                let payload = CLIFixture.pattern(2_000_000)
                let file = directory.appendingPathComponent("payload.json")
                try payload.write(to: file)
                let reply = directory.appendingPathComponent("reply.json")
                let result = try await FerryProcess.run(["get", origin.url("/echo"), "--upload-file", file.path, "-o", reply.path])
                CLIFixture.expectStatus(result, 0)
                let echo = try EchoReport(try #require(CLIFixture.contents(reply)))
                #expect(echo.method == "PUT")
                #expect(echo.body_length == payload.count)
                #expect(echo.body_fnv1a64 == OriginServer.fnv1a64Hex(payload))
                #expect(echo.header("Content-Length") == String(payload.count))
                #expect(echo.header("Content-Type") == "application/json")

                let post = try await FerryProcess.run(["get", origin.url("/echo"), "-T", file.path, "-X", "POST"])
                CLIFixture.expectStatus(post, 0)
                #expect(try EchoReport(post.standardOutput).method == "POST", "-X overrides the implied PUT")
            }
        }
    }

    // ER-01, UP-09: an upload answered with an error status fails, and -o gets no file.
    @Test func uploadAnsweredWithAnError() async throws {
        try await CLIFixture.withOrigin { origin in
            try await CLIFixture.withTemporaryDirectory { directory in
                let file = directory.appendingPathComponent("payload.txt")
                try Data("payload".utf8).write(to: file)
                let reply = directory.appendingPathComponent("reply.txt")
                let url = origin.url("/status/500")
                let result = try await FerryProcess.run(["get", url, "-T", file.path, "-o", reply.path])
                CLIFixture.expectStatus(result, 22)
                #expect(result.standardErrorLines == ["ferry: \(url): HTTP 500"])
                #expect(try CLIFixture.listing(directory) == ["payload.txt"])
            }
        }
    }
}
