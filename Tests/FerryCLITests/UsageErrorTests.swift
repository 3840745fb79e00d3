import Foundation
import Testing

@Suite("ferry get: usage errors", .timeLimit(.minutes(2)))
struct UsageErrorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        /// A piece of the message that must appear on standard error.
        let message: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    // ER-08 (a transfer that cannot be created is refused up front): every bad command line exits 2
    // with a message saying what is wrong, never a crash, and nothing is fetched.
    @Test(arguments: [
        Case(arguments: ["get"], message: "give a URL"),
        Case(arguments: ["get", "http://127.0.0.1:9/x", "-H", "NoColonHere"], message: "no colon"),
        Case(arguments: ["get", "http://127.0.0.1:9/x", "-H", "Bad Name: v"], message: "not a valid header name"),
        Case(arguments: ["get", "gopher://127.0.0.1/x"], message: "unsupported URL scheme 'gopher'"),
        Case(arguments: ["get", "not a url"], message: "is not a URL"),
        Case(arguments: ["get", "http:///path"], message: "no host"),
        Case(arguments: ["get", "http://127.0.0.1:99999/x"], message: "the port 99999 is not a TCP port"),
        Case(arguments: ["get", "ftp://127.0.0.1:99999999999999999999/x"], message: "not a TCP port"),
        Case(arguments: ["get", "-i", "/nonexistent/ferry-urls.txt", "-d", "/tmp"], message: "no such file"),
        Case(arguments: ["get", "-i", "/tmp/whatever.txt"], message: "-i needs -d"),
        Case(arguments: ["get", "-i", "/tmp/whatever.txt", "-d", "/tmp", "--parallel", "0"], message: "--parallel must be at least 1"),
        Case(arguments: ["get", "http://127.0.0.1:9/x", "--connect-timeout", "-1"], message: "--connect-timeout must be a positive"),
        Case(arguments: ["get", "http://127.0.0.1:9/x", "--max-time", "-5"], message: "--max-time must be a positive"),
        Case(arguments: ["get", "http://127.0.0.1:9/x", "--max-time", "soon"], message: "--max-time"),
        Case(arguments: ["get", "http://127.0.0.1:9/x", "--max-redirs", "-1"], message: "--max-redirs must be 0 or more"),
        Case(arguments: ["get", "http://127.0.0.1:9/x", "--proxy", "ftp://127.0.0.1:21"], message: "--proxy"),
        Case(arguments: ["get", "http://127.0.0.1:9/x", "--data", "a", "--upload-file", "/etc/hostname"], message: "use one"),
        Case(arguments: ["get", "http://127.0.0.1:9/x", "--upload-file", "/nonexistent/file"], message: "no such file"),
        Case(arguments: ["get", "http://127.0.0.1:9/x", "--data", "@/nonexistent/file"], message: "no such file"),
        Case(arguments: ["get", "http://127.0.0.1:9/x", "-X", "GET NOW"], message: "-X"),
        Case(arguments: ["get", "http://127.0.0.1:9/x", "-o", "/nonexistent/dir/out"], message: "does not exist"),
        Case(arguments: ["get", "http://127.0.0.1:9/x", "-d", "/tmp"], message: "-d is for -i"),
        Case(arguments: ["get", "http://127.0.0.1:9/x", "--no-such-option"], message: "--no-such-option"),
    ])
    func badCommandLine(_ usage: Case) async throws {
        let result = try await FerryProcess.run(usage.arguments)
        CLIFixture.expectStatus(result, 2)
        #expect(result.standardError.contains(usage.message), "\(result.summary)")
        #expect(result.standardOutput.isEmpty)
    }

    // DL-04: list problems are found before anything is fetched, naming the file and line.
    @Test func badListLinesAreUsageErrors() async throws {
        try await CLIFixture.withTemporaryDirectory { directory in
            let listFile = directory.appendingPathComponent("urls.txt")
            try Data("# ok\nhttp://127.0.0.1:9/a.bin\ngopher://127.0.0.1/b\n".utf8).write(to: listFile)
            let unsupported = try await FerryProcess.run(["get", "-i", listFile.path, "-d", directory.path])
            CLIFixture.expectStatus(unsupported, 2)
            #expect(unsupported.standardError.contains("urls.txt:3: "), "\(unsupported.summary)")

            try Data("http://127.0.0.1:9/\n".utf8).write(to: listFile)
            let nameless = try await FerryProcess.run(["get", "-i", listFile.path, "-d", directory.path])
            CLIFixture.expectStatus(nameless, 2)
            #expect(nameless.standardError.contains("no file name"), "\(nameless.summary)")

            try Data("# nothing here\n\n".utf8).write(to: listFile)
            let empty = try await FerryProcess.run(["get", "-i", listFile.path, "-d", directory.path])
            CLIFixture.expectStatus(empty, 2)
            #expect(empty.standardError.contains("no URLs"), "\(empty.summary)")
        }
    }

    // DL-04: the help documents the interface, including what happens to clashing names.
    @Test func helpDescribesTheCommand() async throws {
        let result = try await FerryProcess.run(["get", "--help"])
        CLIFixture.expectStatus(result, 0)
        let help = String(decoding: result.standardOutput, as: UTF8.self)
        for option in ["--output", "--input-file", "--output-dir", "--parallel", "--header", "--request", "--data",
                       "--upload-file", "--max-redirs", "--connect-timeout", "--max-time", "--http1.1", "--proxy",
                       "--silent", "--verbose", "a.bin.1"] {
            #expect(help.contains(option), "help mentions \(option)")
        }
    }
}
