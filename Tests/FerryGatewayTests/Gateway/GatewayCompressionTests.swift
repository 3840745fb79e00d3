import Foundation
import Testing
import URLLoadingTestSupport

/// A job stores the origin's own bytes: it asks for no content coding unless it says
/// `"compressed": true` (DL-05, DL-10).
@Suite("Gateway compression", .timeLimit(.minutes(3)))
struct GatewayCompressionTests {
    @Test("a job sends no Accept-Encoding by default; one with compressed: true asks for every coding the engine decodes")
    func identityUnlessAsked() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            func acceptEncoding(_ extra: [String: Any]) async throws -> String? {
                let job = ["kind": "download", "request": ["url": fixture.origin.url("/echo")]].merging(extra) { $1 }
                let id = try await client.submit(job)
                let ended = try await client.waitForState(id, ["succeeded", "failed"])
                #expect(ended["state"] as? String == "succeeded", "\(ended)")
                let content = try await client.get("/v1/jobs/\(id)/content")
                return try EchoReport(content.body).header("Accept-Encoding")
            }
            #expect(try await acceptEncoding([:]) == nil)
            #expect(try await acceptEncoding(["compressed": false]) == nil)
            #expect(try await acceptEncoding(["compressed": true])?.contains("gzip") == true)
        }
    }
}
