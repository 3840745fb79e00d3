import Foundation
import Testing
import URLLoadingTestSupport

@Suite("ferry get: failures", .timeLimit(.minutes(2)))
struct FailureTests {
    // ER-01, ER-02, ER-10, DL-03: a 404 is a response, but the download failed: exit 22, one line on
    // stderr, and no output file (neither the error body nor a temporary file).
    @Test func notFoundLeavesNoFile() async throws {
        try await CLIFixture.withOrigin { origin in
            try await CLIFixture.withTemporaryDirectory { directory in
                let url = origin.url("/status/404")
                let result = try await FerryProcess.run(["get", url, "-o", directory.appendingPathComponent("out.html").path])
                CLIFixture.expectStatus(result, 22)
                #expect(result.standardErrorLines == ["ferry: \(url): HTTP 404"])
                #expect(try CLIFixture.listing(directory).isEmpty)
            }
        }
    }

    // ER-01, ER-02: to standard output, an error status writes nothing of the error body.
    @Test func serverErrorWritesNothingToStandardOutput() async throws {
        try await CLIFixture.withOrigin { origin in
            let url = origin.url("/status/503")
            let result = try await FerryProcess.run(["get", url])
            CLIFixture.expectStatus(result, 22)
            #expect(result.standardOutput.isEmpty)
            #expect(result.standardErrorLines == ["ferry: \(url): HTTP 503"])
        }
    }

    // RD-04, ER-02: one redirect more than --max-redirs is a clear transport error; so is a loop.
    @Test func tooManyRedirects() async throws {
        try await CLIFixture.withOrigin { origin in
            let url = origin.url("/redirect/3")
            let result = try await FerryProcess.run(["get", url, "--max-redirs", "2"])
            CLIFixture.expectStatus(result, 1)
            #expect(result.standardOutput.isEmpty)
            #expect(result.standardErrorLines.count == 1)
            #expect(result.standardError.hasPrefix("ferry: \(url): too_many_redirects: "), "\(result.summary)")

            let none = try await FerryProcess.run(["get", origin.url("/redirect/1"), "--max-redirs", "0"])
            CLIFixture.expectStatus(none, 1)
            #expect(none.standardError.contains(": too_many_redirects: "))

            let loop = origin.url("/loop/a")
            let looping = try await FerryProcess.run(["get", loop])
            CLIFixture.expectStatus(looping, 1)
            #expect(looping.standardError.hasPrefix("ferry: \(loop): too_many_redirects: "), "\(looping.summary)")
        }
    }

    // ER-01, ER-06: a refused connection is one line naming the URL, the stable code and the message.
    @Test func connectionRefused() async throws {
        let url = "http://127.0.0.1:\(try CLIFixture.closedPort())/file.bin"
        let result = try await FerryProcess.run(["get", url])
        CLIFixture.expectStatus(result, 1)
        #expect(result.standardErrorLines == ["ferry: \(url): cannot_connect_to_host: could not connect to the server"])
    }

    // DL-05, DL-02: a connection lost mid-body leaves neither a partial file nor the temporary one.
    @Test func droppedConnectionLeavesNoPartialFile() async throws {
        try await CLIFixture.withOrigin { origin in
            try await CLIFixture.withTemporaryDirectory { directory in
                let url = origin.url("/drop?bytes=100000")
                let result = try await FerryProcess.run(["get", url, "-o", directory.appendingPathComponent("out.bin").path])
                CLIFixture.expectStatus(result, 1)
                #expect(result.standardErrorLines.count == 1)
                #expect(result.standardError.hasPrefix("ferry: \(url): network_connection_lost: "), "\(result.summary)")
                #expect(try CLIFixture.listing(directory).isEmpty)
            }
        }
    }

    // SES-19: --max-time bounds the whole transfer; the stalled download leaves no file.
    @Test func maxTimeEndsAStalledTransfer() async throws {
        try await CLIFixture.withOrigin { origin in
            try await CLIFixture.withTemporaryDirectory { directory in
                let url = origin.url("/stall?bytes=1000")
                let started = ContinuousClock.now
                let result = try await FerryProcess.run(["get", url, "--max-time", "1", "-o", directory.appendingPathComponent("out.bin").path])
                CLIFixture.expectStatus(result, 1)
                #expect(result.standardError.hasPrefix("ferry: \(url): timed_out: "), "\(result.summary)")
                #expect(ContinuousClock.now - started < .seconds(15))
                #expect(try CLIFixture.listing(directory).isEmpty)
            }
        }
    }

    // LC-15, ER-04, DL-02: Ctrl-C cancels the transfers; the engine removes their temporary files and
    // ferry exits 130 with one line, leaving the output directory empty.
    @Test func interruptLeavesNothingBehind() async throws {
        try await CLIFixture.withOrigin { origin in
            try await CLIFixture.withTemporaryDirectory { directory in
                let list = (1...3).map { origin.url("/drip?bytes=100000&chunks=100&delay_ms=100&n=\($0)") }
                    .joined(separator: "\n")
                let listFile = directory.appendingPathComponent("urls.txt")
                try Data(list.utf8).write(to: listFile)
                let output = directory.appendingPathComponent("out")
                // --http1.1: with HTTP/2 allowed, the engine's CURLOPT_PIPEWAIT holds the second and third
                // transfers until the first has finished, and this test needs all three under way.
                let child = FerryProcess(["get", "-i", listFile.path, "-d", output.path, "--http1.1"])
                try child.start()
                // Wait until the bodies are flowing (temporary files exist), then interrupt. Generous:
                // on a loaded two-core machine (the whole suite at once) ferry took over 5 s to start.
                let deadline = ContinuousClock.now + .seconds(30)
                while origin.requests.count < 3, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
                let requestsSeen = origin.requests.count
                try await Task.sleep(for: .milliseconds(500))
                child.send(SIGINT)
                let result = try await child.waitForExit(timeout: .seconds(20))
                #expect(requestsSeen == 3, "all three transfers were running when interrupted")
                CLIFixture.expectStatus(result, 130)
                #expect(result.standardErrorLines == ["ferry: interrupted"])
                let left = try CLIFixture.listing(output)
                #expect(left.isEmpty, "left behind: \(left)")
            }
        }
    }
}
