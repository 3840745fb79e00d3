import Foundation
import Testing
import URLLoadingTestSupport

@Suite("ferry get: one URL", .timeLimit(.minutes(2)))
struct SingleDownloadTests {
    // DL-05, TT-04, DL-02, DL-04: -o downloads straight to disk; the temporary file is renamed into
    // place, so nothing else is left in the directory; quiet when stderr is not a terminal.
    @Test func downloadToFileWithDashO() async throws {
        try await CLIFixture.withOrigin { origin in
            try await CLIFixture.withTemporaryDirectory { directory in
                let file = directory.appendingPathComponent("out.bin")
                let result = try await FerryProcess.run(["get", origin.url("/bytes/300000"), "-o", file.path])
                CLIFixture.expectStatus(result, 0)
                #expect(result.standardError.isEmpty, "no progress bar or noise when stderr is not a terminal")
                #expect(result.standardOutput.isEmpty)
                #expect(CLIFixture.contents(file) == CLIFixture.pattern(300_000))
                #expect(try CLIFixture.listing(directory) == ["out.bin"])
                let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
                #expect(mode.map { $0 & 0o044 } == 0o044, "an ordinary readable file, not the private temporary one")
            }
        }
    }

    // DL-05, LC-20: -o replaces an existing file.
    @Test func downloadReplacesAnExistingFile() async throws {
        try await CLIFixture.withOrigin { origin in
            try await CLIFixture.withTemporaryDirectory { directory in
                let file = directory.appendingPathComponent("out.bin")
                try Data("old contents".utf8).write(to: file)
                let result = try await FerryProcess.run(["get", origin.url("/bytes/1000"), "-o", file.path])
                CLIFixture.expectStatus(result, 0)
                #expect(CLIFixture.contents(file) == CLIFixture.pattern(1000))
            }
        }
    }

    // TT-02, LC-13: without -o the body goes to standard output, byte for byte.
    @Test func bodyToStandardOutput() async throws {
        try await CLIFixture.withOrigin { origin in
            let result = try await FerryProcess.run(["get", origin.url("/bytes/200000")])
            CLIFixture.expectStatus(result, 0)
            #expect(result.standardOutput == CLIFixture.pattern(200_000))
            #expect(result.standardError.isEmpty)

            let dashO = try await FerryProcess.run(["get", origin.url("/bytes/5000"), "-o", "-"])
            CLIFixture.expectStatus(dashO, 0)
            #expect(dashO.standardOutput == CLIFixture.pattern(5000), "-o - means standard output")
        }
    }

    // LC-19: a body without Content-Length (chunked) arrives whole.
    @Test func bodyOfUnknownLength() async throws {
        try await CLIFixture.withOrigin { origin in
            let result = try await FerryProcess.run(["get", origin.url("/drip?bytes=50000&chunks=5&length=0")])
            CLIFixture.expectStatus(result, 0)
            #expect(result.standardOutput == CLIFixture.pattern(50_000))
        }
    }

    // RD-04, TT-06: redirects are followed up to the limit.
    @Test func followsRedirects() async throws {
        try await CLIFixture.withOrigin { origin in
            let result = try await FerryProcess.run(["get", origin.url("/redirect/3"), "--max-redirs", "3"])
            CLIFixture.expectStatus(result, 0)
            #expect(String(decoding: result.standardOutput, as: UTF8.self) == "redirected")
        }
    }

    // PR-01: data: URLs are decoded by Ferry, file: URLs read by the engine.
    @Test func dataAndFileURLs() async throws {
        let data = try await FerryProcess.run(["get", "data:text/plain;base64,aGVsbG8gZmVycnk="])
        CLIFixture.expectStatus(data, 0)
        #expect(String(decoding: data.standardOutput, as: UTF8.self) == "hello ferry")

        try await CLIFixture.withTemporaryDirectory { directory in
            let source = directory.appendingPathComponent("source.bin")
            try CLIFixture.pattern(70_000).write(to: source)
            let copy = directory.appendingPathComponent("copy.bin")
            let file = try await FerryProcess.run(["get", source.absoluteString, "-o", copy.path])
            CLIFixture.expectStatus(file, 0)
            #expect(CLIFixture.contents(copy) == CLIFixture.pattern(70_000))

            let missing = try await FerryProcess.run(["get", directory.appendingPathComponent("nope").absoluteString])
            CLIFixture.expectStatus(missing, 1)
            #expect(missing.standardErrorLines.count == 1)
            #expect(missing.standardError.contains(": file_does_not_exist: "), "\(missing.summary)")
        }
    }
}
