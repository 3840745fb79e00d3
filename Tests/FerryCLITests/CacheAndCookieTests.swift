import Foundation
import Testing
import URLLoadingTestSupport

@Suite("ferry get: --cache-dir, -b and -c", .timeLimit(.minutes(2)))
struct CacheAndCookieTests {
    /// Runs the real curl (installed by scripts/install-deps) off the cooperative threads; returns
    /// its standard output.
    private func curl(_ arguments: [String]) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
                    process.arguments = ["--silent", "--show-error"] + arguments
                    let output = Pipe()
                    process.standardOutput = output
                    process.standardInput = FileHandle.nullDevice
                    try process.run()
                    let data = output.fileHandleForReading.readDataToEndOfFile()
                    process.waitUntilExit()
                    guard process.terminationStatus == 0 else { throw CurlFailed(status: process.terminationStatus) }
                    return String(decoding: data, as: UTF8.self)
                })
            }
        }
    }

    struct CurlFailed: Error {
        let status: Int32
    }

    private func body(_ result: FerryResult) -> String {
        String(decoding: result.standardOutput, as: UTF8.self)
    }

    // CA-02, CA-09, CA-21: a second run with the same --cache-dir is served from the cache, or
    // revalidated with the origin; -v says which.
    @Test func cacheDirectoryServesAndRevalidates() async throws {
        try await CLIFixture.withOrigin { origin in
            try await CLIFixture.withTemporaryDirectory { directory in
                let cache = directory.appendingPathComponent("cache").path
                let fresh = origin.url("/cache/max-age/3600")
                let first = try await FerryProcess.run(["get", fresh, "--cache-dir", cache, "-v"])
                CLIFixture.expectStatus(first, 0)
                #expect(body(first) == "response 1")
                #expect(first.standardErrorLines.contains("* cache miss: fetched from the origin"), "\(first.summary)")
                let second = try await FerryProcess.run(["get", fresh, "--cache-dir", cache, "-v"])
                CLIFixture.expectStatus(second, 0)
                #expect(body(second) == "response 1")
                #expect(second.standardErrorLines.contains("* cache hit: served from the cache"), "\(second.summary)")
                #expect(origin.requests.filter { $0.path == "/cache/max-age/3600" }.count == 1)

                let validated = origin.url("/cache/no-cache")
                let file = directory.appendingPathComponent("out.txt")
                CLIFixture.expectStatus(try await FerryProcess.run(["get", validated, "--cache-dir", cache, "-o", file.path]), 0)
                let again = try await FerryProcess.run(["get", validated, "--cache-dir", cache, "-o", file.path, "-v"])
                CLIFixture.expectStatus(again, 0)
                #expect(again.standardErrorLines.contains("* cache revalidated: the origin answered 304, served from the cache"),
                        "\(again.summary)")
                #expect(CLIFixture.contents(file) == Data("response 1".utf8))
                #expect(origin.requests.last?.header("If-None-Match") == "\"e1\"")
            }
        }
    }

    // CK-08, CK-02: a jar curl wrote with -c is read by ferry -b and its cookies are sent.
    @Test func readsCurlsJar() async throws {
        try await CLIFixture.withOrigin { origin in
            try await CLIFixture.withTemporaryDirectory { directory in
                let jar = directory.appendingPathComponent("jar.txt").path
                _ = try await curl(["-c", jar, origin.url("/cookies/raw?a=a%3D1%3B%20Path%3D%2F&b=h%3D2%3B%20HttpOnly%3B%20Path%3D%2F")])
                let jarText = try String(contentsOfFile: jar, encoding: .utf8)
                #expect(jarText.contains("#HttpOnly_127.0.0.1"), "curl's own jar, with its HttpOnly prefix")
                let result = try await FerryProcess.run(["get", "-b", jar, origin.url("/cookies/show")])
                CLIFixture.expectStatus(result, 0)
                #expect(Set(body(result).components(separatedBy: "; ")) == ["a=1", "h=2"])
            }
        }
    }

    // CK-08, CK-02, CK-03: ferry -c writes a jar curl -b reads; -b and -c on one file carry cookies
    // from run to run, and a cookie a redirect sets is sent on the next hop.
    @Test func writesAJarCurlReads() async throws {
        try await CLIFixture.withOrigin { origin in
            try await CLIFixture.withTemporaryDirectory { directory in
                let jar = directory.appendingPathComponent("jar.txt").path
                let set = origin.url("/cookies/raw?a=x%3D1%3B%20HttpOnly%3B%20Path%3D%2F&b=y%3D2%3B%20Max-Age%3D3600%3B%20Path%3D%2F")
                CLIFixture.expectStatus(try await FerryProcess.run(["get", "-c", jar, set]), 0)
                let jarText = try String(contentsOfFile: jar, encoding: .utf8)
                #expect(jarText.hasPrefix("# Netscape HTTP Cookie File"))
                #expect(jarText.contains("#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\tx\t1"))
                let sent = try await curl(["-b", jar, origin.url("/cookies/show")])
                #expect(Set(sent.components(separatedBy: "; ")) == ["x=1", "y=2"])

                let redirect = origin.url("/cookies/redirect?to=%2Fcookies%2Fshow&z=3")
                let hop = try await FerryProcess.run(["get", "-b", jar, "-c", jar, redirect])
                CLIFixture.expectStatus(hop, 0)
                #expect(Set(body(hop).components(separatedBy: "; ")) == ["x=1", "y=2", "z=3"])
                let after = try await curl(["-b", jar, origin.url("/cookies/show")])
                #expect(Set(after.components(separatedBy: "; ")) == ["x=1", "y=2", "z=3"])
            }
        }
    }
}
