import Foundation
import Testing
import URLLoadingTestSupport

@Suite("ferry get: progress and verbose output", .timeLimit(.minutes(2)))
struct TerminalOutputTests {
    // LC-12, LC-19, LC-02: on a terminal, standard error shows a progress bar with bytes done/total and
    // the rate, redrawn in place; it ends at 100%.
    @Test func progressBarOnATerminal() async throws {
        try await CLIFixture.withOrigin { origin in
            try await CLIFixture.withTemporaryDirectory { directory in
                let terminal = try PseudoTerminal()
                let file = directory.appendingPathComponent("out.bin")
                let started = ContinuousClock.now
                let result = try await FerryProcess.run(
                    ["get", origin.url("/drip?bytes=400000&chunks=20&delay_ms=60"), "-o", file.path], terminal: terminal)
                let elapsed = ContinuousClock.now - started
                CLIFixture.expectStatus(result, 0)
                #expect(CLIFixture.contents(file) == CLIFixture.pattern(400_000))
                let screen = result.standardError
                #expect(screen.contains("\r"), "redrawn in place: \(screen.debugDescription)")
                #expect(screen.contains("390.6 KiB / 390.6 KiB"), "\(screen.debugDescription)")
                #expect(screen.contains("100%"))
                #expect(screen.contains("/s"), "shows a rate")
                // At most ~10 redraws a second, plus the final one; bounded by how long this run really
                // took (a loaded machine stretches the transfer), never by a fixed time.
                let redraws = screen.components(separatedBy: "\r\u{1B}[K").count - 1
                let allowed = Int((Double(elapsed.components.seconds) + 1) * 12) + 2
                #expect(redraws >= 2 && redraws <= allowed, "\(redraws) redraws in \(elapsed)")

                // -s: nothing at all.
                let silentTerminal = try PseudoTerminal()
                let silent = try await FerryProcess.run(
                    ["get", origin.url("/bytes/1000"), "-o", file.path, "-s"], terminal: silentTerminal)
                CLIFixture.expectStatus(silent, 0)
                #expect(silent.standardError.isEmpty, "\(silent.standardError.debugDescription)")
            }
        }
    }

    // LC-12: with -i on a terminal, one bar for the batch: files done/total and bytes.
    @Test func batchBarOnATerminal() async throws {
        try await CLIFixture.withOrigin { origin in
            try await CLIFixture.withTemporaryDirectory { directory in
                let list = (1...4).map { origin.url("/bytes/\($0 * 1024)") }.joined(separator: "\n")
                let listFile = directory.appendingPathComponent("urls.txt")
                try Data(list.utf8).write(to: listFile)
                let terminal = try PseudoTerminal()
                let output = directory.appendingPathComponent("out")
                let result = try await FerryProcess.run(["get", "-i", listFile.path, "-d", output.path], terminal: terminal)
                CLIFixture.expectStatus(result, 0)
                #expect(result.standardError.contains("4/4 files  10.0 KiB"), "\(result.standardError.debugDescription)")
            }
        }
    }

    // LC-18, RD-01: -v prints the request line, each hop's status and headers on standard error.
    @Test func verboseShowsRequestAndResponse() async throws {
        try await CLIFixture.withOrigin { origin in
            try await CLIFixture.withTemporaryDirectory { directory in
                let url = origin.url("/redirect/1")
                let result = try await FerryProcess.run(
                    ["get", url, "-v", "-H", "X-Trace: 7", "-o", directory.appendingPathComponent("out").path])
                CLIFixture.expectStatus(result, 0)
                let lines = result.standardErrorLines
                #expect(lines.first == "> GET \(url)")
                #expect(lines.contains("> X-Trace: 7"))
                #expect(lines.contains("< HTTP/1.1 302"))
                #expect(lines.contains { $0.lowercased() == "< location: /redirect/0" })
                #expect(lines.contains("* following the redirect: GET \(origin.url("/redirect/0"))"))
                #expect(lines.contains("< HTTP/1.1 200"))
            }
        }
    }
}
