import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

@Suite("Smoke", .timeLimit(.minutes(1)))
struct SmokeTests {
    @Test("a data task fetches bytes into memory (TT-02, ER-01)")
    func fetchesBytes() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let (data, response) = try await session.data(for: Fixture.request(origin.url("/bytes/100000")))
            #expect(response.statusCode == 200)
            #expect(data == Fixture.pattern(100_000))
            let (_, missing) = try await session.data(for: Fixture.request(origin.url("/status/404")))
            #expect(missing.statusCode == 404)
        }
    }
}
