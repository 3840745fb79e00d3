import Foundation
import Testing
import URLLoadingTestSupport

/// `ferry get --background <name>`: downloads kept in a background session survive the command
/// (BG-08, BG-12, BG-13, BG-24, BG-06).
@Suite("ferry get --background", .timeLimit(.minutes(4)))
struct BackgroundGetTests {
    private static let length = 500_000
    private static let stallOffset = 200_000

    /// The offset of task 1's resume data in the store, read from its record's JSON; nil without one.
    private static func savedOffset(in state: URL) -> Int? {
        guard let data = FileManager.default.contents(atPath: state.appendingPathComponent("tasks/1.json").path),
            let record = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let resumeData = record["resume_data"] as? [String: Any]
        else { return nil }
        return resumeData["offset"] as? Int
    }

    @Test("killed mid-download (-9), `ferry get --background NAME` finishes the file from where it stopped, with Range (BG-13, BG-24)")
    func continuesAfterKill() async throws {
        try await CLIFixture.withOrigin { origin in
            try await CLIFixture.withTemporaryDirectory { directory in
                let state = directory.appendingPathComponent("state")
                let output = directory.appendingPathComponent("big.bin")
                let name = "cli-\(UUID().uuidString)"
                let url = origin.url("/resumable/\(Self.length)?stall_at=\(Self.stallOffset)")
                let first = FerryProcess(["get", "--background", name, "--background-dir", state.path, url, "-o", output.path])
                try first.start()
                let deadline = ContinuousClock.now + .seconds(120)
                while Self.savedOffset(in: state) != Self.stallOffset, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(Self.savedOffset(in: state) == Self.stallOffset)
                first.send(SIGKILL)
                let killed = try await first.waitForExit(timeout: .seconds(30))
                #expect(killed.diedOfSignal)
                #expect(!FileManager.default.fileExists(atPath: output.path))
                // The continuation is the URI's second request (past the stall); see `ResumableRoute`.
                let before = origin.requests.count

                let second = try await FerryProcess.run(
                    ["get", "--background", name, "--background-dir", state.path], timeout: .seconds(120))
                CLIFixture.expectStatus(second, 0)
                #expect(second.standardError.contains("continuing \(url) -> \(output.path)"))
                #expect(CLIFixture.contents(output) == CLIFixture.pattern(Self.length))
                let requests = Array(origin.requests.dropFirst(before))
                #expect(requests.count == 1)
                let range = requests.first?.headers.first { $0.name.lowercased() == "range" }?.value
                #expect(range == "bytes=\(Self.stallOffset)-")
                // Nothing left: no record, no partial file beside the output.
                #expect(try CLIFixture.listing(state.appendingPathComponent("tasks")) == [])
                #expect(try CLIFixture.listing(directory) == ["big.bin", "state"])

                let again = try await FerryProcess.run(["get", "--background", name, "--background-dir", state.path])
                CLIFixture.expectStatus(again, 0)
                #expect(again.standardError.contains("no outstanding downloads"))
            }
        }
    }

    @Test("a download through a server that refuses its first connections completes by itself (BG-06)")
    func retriesNetworkFailures() async throws {
        try await CLIFixture.withOrigin { origin in
            let frontDoor = try await FlakyFrontDoor.start(upstreamPort: origin.port, failures: 1)
            defer { Task { await frontDoor.shutdown() } }
            try await CLIFixture.withTemporaryDirectory { directory in
                let output = directory.appendingPathComponent("file.bin")
                let state = directory.appendingPathComponent("state")
                let result = try await FerryProcess.run(
                    ["get", "--background", "flaky", "--background-dir", state.path, frontDoor.url("/bytes/40000"), "-o", output.path],
                    timeout: .seconds(120))
                CLIFixture.expectStatus(result, 0)
                #expect(CLIFixture.contents(output) == CLIFixture.pattern(40000))
                #expect(frontDoor.connectionCount >= 2)
            }
        }
    }

    @Test("--background needs -o for a URL, takes no -i, --parts, -C or uploads, and an ftp URL is refused (BG-04)")
    func usage() async throws {
        let cases: [[String]] = [
            ["get", "--background", "x", "http://127.0.0.1:9/a"],
            ["get", "--background", "x", "http://127.0.0.1:9/a", "-o", "-"],
            ["get", "--background", "x", "-i", "list.txt", "-d", "out"],
            ["get", "--background", "x", "http://127.0.0.1:9/a", "-o", "a", "-C", "-"],
            ["get", "--background", "x", "http://127.0.0.1:9/a", "-o", "a", "--data", "x"],
            ["get", "--background", "x", "ftp://127.0.0.1:9/a", "-o", "a"],
            ["get", "--background", "a/b"],
            ["get", "--background-dir", "/tmp", "http://127.0.0.1:9/a"],
        ]
        for arguments in cases {
            let result = try await FerryProcess.run(arguments)
            CLIFixture.expectStatus(result, 2)
        }
    }
}
