@testable import FerryAPI
import Foundation
import HTTPTypes
import Testing

/// `GET /console` and its files: compiled into ferryd by the EmbedFiles plugin from the real files in
/// `Sources/FerryAPI/Embedded/console/`, served with a strict Content-Security-Policy, their own content
/// types and an ETag (issue 23).
@Suite("Routes: console", .timeLimit(.minutes(2)))
struct ConsoleRouteTests {
    /// The files in the source tree, by name.
    static func sourceFiles() throws -> [String: Data] {
        let folder = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "Sources/FerryAPI/Embedded/console")
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where !name.hasPrefix(".") {
            files[name] = try Data(contentsOf: folder.appending(path: name))
        }
        return files
    }

    @Test("every file of Embedded/console is in the binary, byte for byte, and nothing else is")
    func embeddedFilesAreTheSourceFiles() throws {
        let files = try Self.sourceFiles()
        #expect(files["index.html"] != nil && files["app.js"] != nil && files["console.css"] != nil)
        let embedded = ConsoleAssets.embedded.assets
        #expect(Set(embedded.keys) == Set(files.keys))
        for (name, bytes) in files {
            #expect(embedded[name].map { Data($0.bytes.readableBytesView) } == bytes, "\(name)")
        }
    }

    @Test("the page needs no key and comes with a policy that allows no inline script or style, no other origin, no framing")
    func pageAndPolicy() async throws {
        try await RouteFixture.with { app in
            let page = try await app.send(.get, "/console", key: nil)
            #expect(page.status == 200)
            #expect(page.headers["Content-Type"] == "text/html; charset=utf-8")
            #expect(page.body == (try Self.sourceFiles())["index.html"])
            let policy = try #require(page.headers["Content-Security-Policy"])
            #expect(policy.hasPrefix("default-src 'self';"))
            #expect(policy.contains("script-src 'self';") && policy.contains("style-src 'self';"))
            #expect(policy.contains("frame-ancestors 'none'") && policy.contains("object-src 'none'"))
            #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"))
            #expect(page.headers["X-Content-Type-Options"] == "nosniff")
            #expect(page.headers["Referrer-Policy"] == "no-referrer")
            #expect(page.headers["Cache-Control"] == "no-cache")
            // The page loads its script as a file: there is no inline script for the policy to refuse.
            #expect(page.text.contains(#"<script type="module" src="/console/app.js"></script>"#))
            #expect(!page.text.contains("style=\""))
        }
    }

    @Test("each file has its content type; an unchanged file revalidates to a 304; an unknown one is a 404 problem")
    func filesTypesAndRevalidation() async throws {
        try await RouteFixture.with { app in
            let script = try await app.send(.get, "/console/app.js", key: nil)
            #expect(script.status == 200)
            #expect(script.headers["Content-Type"] == "text/javascript; charset=utf-8")
            #expect(script.headers["Content-Security-Policy"] == ConsoleRoutes.contentSecurityPolicy)
            let style = try await app.send(.get, "/console/console.css", key: nil)
            #expect(style.headers["Content-Type"] == "text/css; charset=utf-8")
            let icon = try await app.send(.get, "/console/ferry.svg", key: nil)
            #expect(icon.headers["Content-Type"] == "image/svg+xml")

            let tag = try #require(script.headers["ETag"])
            #expect(tag != style.headers["ETag"])
            let again = try await app.send(.get, "/console/app.js", key: nil, headers: [.ifNoneMatch: tag])
            #expect(again.status == 304)
            #expect(again.body.isEmpty)
            #expect(again.headers["ETag"] == tag)
            let stale = try await app.send(.get, "/console/app.js", key: nil, headers: [.ifNoneMatch: "\"an-older-one\""])
            #expect(stale.status == 200)

            let missing = try await app.send(.get, "/console/nothing.js", key: nil)
            #expect(missing.status == 404)
            #expect(missing.headers["Content-Type"] == "application/problem+json")
            #expect(missing.code == "not_found")
        }
    }
}
