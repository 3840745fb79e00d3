import Foundation
import Testing
import URLLoadingTestSupport

@Suite("ferry get -i: a list into a directory", .timeLimit(.minutes(2)))
struct BatchDownloadTests {
    // SES-06, DL-04, DL-05: every URL of the list (blank lines and # comments skipped, whitespace
    // around a URL ignored) lands in the directory under its last path component, several
    // transfers at a time.
    @Test func listIntoDirectoryInParallel() async throws {
        try await CLIFixture.withOrigin { origin in
            try await CLIFixture.withTemporaryDirectory { directory in
                let sizes = (1...12).map { $0 * 7919 }
                var list = "# test list\n\n"
                // Lines as other tools write them: CRLF, tabs, a Unicode space after the URL.
                for (index, size) in sizes.enumerated() {
                    let url = origin.url("/bytes/\(size)")
                    list += [" \t\(url) \r\n", "\(url)\u{00A0}\n", "\(url)\n"][index % 3]
                }
                list += "   \n# the end\n"
                let listFile = directory.appendingPathComponent("urls.txt")
                try Data(list.utf8).write(to: listFile)
                let output = directory.appendingPathComponent("out")

                let result = try await FerryProcess.run(["get", "-i", listFile.path, "-d", output.path, "--parallel", "3"])
                CLIFixture.expectStatus(result, 0)
                #expect(result.standardError.isEmpty)
                #expect(try CLIFixture.listing(output) == sizes.map(String.init).sorted())
                for size in sizes {
                    #expect(CLIFixture.contents(output.appendingPathComponent(String(size))) == CLIFixture.pattern(size), "file \(size)")
                }
                #expect(origin.requests.count == sizes.count)
            }
        }
    }

    // SES-18: --parallel N runs at most N transfers at once. Six answers of 500 ms each with N = 3
    // need two rounds. (Timed on the client: the server's in-flight count can overlap by one at each
    // hand-over, since the client is done before the server's bookkeeping is.)
    @Test func parallelBoundsTheTransfersInFlight() async throws {
        try await CLIFixture.withOrigin { origin in
            try await CLIFixture.withTemporaryDirectory { directory in
                let list = (0..<6).map { origin.url("/delay/\(500 + $0)") }.joined(separator: "\n")
                let listFile = directory.appendingPathComponent("urls.txt")
                try Data(list.utf8).write(to: listFile)
                let started = ContinuousClock.now
                // --http1.1, or the engine's CURLOPT_PIPEWAIT would stagger the starts by itself (see below).
                let result = try await FerryProcess.run([
                    "get", "-i", listFile.path, "-d", directory.appendingPathComponent("out").path, "--parallel", "3", "--http1.1",
                ])
                CLIFixture.expectStatus(result, 0)
                #expect(ContinuousClock.now - started >= .milliseconds(1000), "two rounds of three")
                #expect(try CLIFixture.listing(directory.appendingPathComponent("out")).count == 6)
            }
        }
    }

    // SES-18: --parallel N also raises the engine's per-host limit (default 6), so N transfers do run at once.
    @Test func parallelAboveTheEngineDefaultRunsAtOnce() async throws {
        try await CLIFixture.withOrigin { origin in
            try await CLIFixture.withTemporaryDirectory { directory in
                // Each answer waits 600 ms, so ten at once overlap whatever the scheduling.
                let list = (0..<10).map { origin.url("/delay/\(600 + $0)") }.joined(separator: "\n")
                let listFile = directory.appendingPathComponent("urls.txt")
                try Data(list.utf8).write(to: listFile)
                // --http1.1: with HTTP/2 allowed the engine sets CURLOPT_PIPEWAIT even on plain http, and
                // curl then holds new connections until the first response shows it cannot multiplex;
                // that engine behaviour is not what this test is about.
                let result = try await FerryProcess.run([
                    "get", "-i", listFile.path, "-d", directory.appendingPathComponent("out").path, "--parallel", "10", "--http1.1",
                ])
                CLIFixture.expectStatus(result, 0)
                #expect(origin.maxConcurrentRequests == 10, "all ten in flight together")
            }
        }
    }

    // DL-04: two URLs with the same last component never overwrite each other: the first keeps the
    // name, the next gets ".1" (and a listed "x.1" keeps its own name).
    @Test func sameNameGetsANumberedSuffix() async throws {
        try await CLIFixture.withOrigin { origin in
            try await CLIFixture.withTemporaryDirectory { directory in
                let list = [
                    origin.url("/bytes/3000"),
                    origin.url("/bytes/3000?copy=2"),
                    origin.url("/redirect-to?url=/bytes/10"),
                    origin.url("/bytes/3000?copy=3"),
                ].joined(separator: "\n")
                let listFile = directory.appendingPathComponent("urls.txt")
                try Data(list.utf8).write(to: listFile)
                let output = directory.appendingPathComponent("out")
                let result = try await FerryProcess.run(["get", "-i", listFile.path, "-d", output.path])
                CLIFixture.expectStatus(result, 0)
                #expect(try CLIFixture.listing(output) == ["3000", "3000.1", "3000.2", "redirect-to"])
                for name in ["3000", "3000.1", "3000.2"] {
                    #expect(CLIFixture.contents(output.appendingPathComponent(name)) == CLIFixture.pattern(3000), "\(name)")
                }
                #expect(CLIFixture.contents(output.appendingPathComponent("redirect-to")) == CLIFixture.pattern(10))
            }
        }
    }

    // ER-01, ER-10, DL-03: in a batch, a failure is one line and no file; the others still arrive;
    // a transport failure (1) outranks an HTTP one (22) in the exit status.
    @Test func failuresInABatch() async throws {
        try await CLIFixture.withOrigin { origin in
            try await CLIFixture.withTemporaryDirectory { directory in
                let missing = origin.url("/status/404")
                let refused = "http://127.0.0.1:\(try CLIFixture.closedPort())/gone.bin"
                let list = [origin.url("/bytes/100"), missing, origin.url("/bytes/200")].joined(separator: "\n")
                let listFile = directory.appendingPathComponent("urls.txt")
                try Data(list.utf8).write(to: listFile)
                let output = directory.appendingPathComponent("out")

                let httpOnly = try await FerryProcess.run(["get", "-i", listFile.path, "-d", output.path])
                CLIFixture.expectStatus(httpOnly, 22)
                #expect(httpOnly.standardErrorLines == ["ferry: \(missing): HTTP 404"])
                #expect(try CLIFixture.listing(output) == ["100", "200"])

                try Data((list + "\n" + refused).utf8).write(to: listFile)
                let both = try await FerryProcess.run(["get", "-i", listFile.path, "-d", output.path])
                CLIFixture.expectStatus(both, 1)
                #expect(both.standardErrorLines.count == 2, "\(both.summary)")
                #expect(both.standardErrorLines.contains("ferry: \(missing): HTTP 404"))
                #expect(both.standardErrorLines.contains { $0.hasPrefix("ferry: \(refused): cannot_connect_to_host: ") })
                #expect(try CLIFixture.listing(output) == ["100", "200"])
            }
        }
    }
}
