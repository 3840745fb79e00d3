import Foundation
import Testing
import URLLoadingTestSupport

/// `ferry get` and multipart/x-mixed-replace responses (LC-10, LG-05): -o keeps the last part,
/// `--parts DIR` every part in its own file.
@Suite("ferry get: multipart responses", .timeLimit(.minutes(2)))
struct MultipartPartsTests {
    static let url = "/multipart-replace?parts=3&bytes=20000&pause_ms=30&split=1"

    @Test("--parts DIR writes each part to DIR/part-0001 ... in order (LC-10)")
    func eachPartToItsFile() async throws {
        try await CLIFixture.withOrigin { origin in
            try await CLIFixture.withTemporaryDirectory { directory in
                let parts = directory.appendingPathComponent("frames")
                // Left from an earlier run: replaced, and names the response does not reach are kept.
                try FileManager.default.createDirectory(at: parts, withIntermediateDirectories: true)
                try Data("old".utf8).write(to: parts.appendingPathComponent("part-0001"))
                let result = try await FerryProcess.run(["get", origin.url(Self.url), "--parts", parts.path, "-v"])
                CLIFixture.expectStatus(result, 0)
                #expect(result.standardOutput.isEmpty)
                #expect(try CLIFixture.listing(parts) == ["part-0001", "part-0002", "part-0003"])
                for index in 1...3 {
                    let file = parts.appendingPathComponent(String(format: "part-%04d", index))
                    #expect(CLIFixture.contents(file) == MultipartReplaceRoute.partBody(index, length: 20000), "part \(index)")
                }
                // -v shows each part's response head.
                let log = result.standardError
                for index in 1...3 { #expect(log.contains("X-Part: \(index)"), "part \(index)'s headers") }
            }
        }
    }

    @Test("-o keeps the last part only; a plain response with --parts is one part (LC-10, LG-05)")
    func lastPartWithDashO() async throws {
        try await CLIFixture.withOrigin { origin in
            try await CLIFixture.withTemporaryDirectory { directory in
                let file = directory.appendingPathComponent("latest")
                let result = try await FerryProcess.run(["get", origin.url(Self.url), "-o", file.path])
                CLIFixture.expectStatus(result, 0)
                #expect(CLIFixture.contents(file) == MultipartReplaceRoute.partBody(3, length: 20000))

                let plain = directory.appendingPathComponent("plain")
                let single = try await FerryProcess.run(["get", origin.url("/bytes/5000"), "--parts", plain.path])
                CLIFixture.expectStatus(single, 0)
                #expect(try CLIFixture.listing(plain) == ["part-0001"])
                #expect(CLIFixture.contents(plain.appendingPathComponent("part-0001")) == CLIFixture.pattern(5000))
            }
        }
    }

    @Test("--parts is refused with -o, -i and -C (usage error, exit 2)")
    func refusedCombinations() async throws {
        let withO = try await FerryProcess.run(["get", "http://127.0.0.1:1/x", "--parts", "/tmp/p", "-o", "/tmp/x"])
        CLIFixture.expectStatus(withO, 2)
        #expect(withO.standardError.contains("either -o <file> (the last part) or --parts <dir>"))
        let withC = try await FerryProcess.run(["get", "http://127.0.0.1:1/x", "--parts", "/tmp/p", "-C", "-"])
        CLIFixture.expectStatus(withC, 2)
    }
}
