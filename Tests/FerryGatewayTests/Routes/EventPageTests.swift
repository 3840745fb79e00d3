@testable import FerryStore
import Foundation
import Logging
import PostgresNIO
import Testing

/// A stream replays stored events a page at a time, and a page is bounded in bytes of job rows, not
/// only in rows: 500 events of jobs with long URLs would otherwise be hundreds of megabytes in
/// memory per stream.
@Suite("Event pages", .timeLimit(.minutes(2)))
struct EventPageTests {
    @Test("pages hold at most maxBytes of jobs beyond their first event, and paging yields every event once, in order")
    func pagesAreBoundedInBytes() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            // 30 cancelled jobs with 8 KB URLs: 60 state events of about 9 KB each.
            let long = "http://127.0.0.1:9/" + String(repeating: "u", count: 8000)
            for index in 0..<30 {
                let id = try await app.submit(tenant.key, RouteFixture.download(long + "\(index)"))
                #expect(try await app.send(.post, "/v1/jobs/\(id)/cancel", key: tenant.key).status == 200)
            }
            let logger = Logger(label: "ferry.tests.event-pages")
            let client = DatabasePool(
                clientConfiguration: app.database.clientConfiguration, probeConfiguration: app.database.connectionConfiguration, logger: logger)
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { try await client.run() }
                defer { group.cancelAll() }
                let store = JobEventStore(client: client, logger: logger)
                let tenantID = try #require(UUID(uuidString: tenant.id))
                let maxBytes = 64 << 10
                var after: Int64 = 0
                var seen: [Int64] = []
                var pages = 0
                while true {
                    let page = try await store.events(tenant: tenantID, job: nil, after: after, limit: 500, maxBytes: maxBytes)
                    pages += 1
                    // Each event's job holds its 8,000-byte URL: a page stops once it holds maxBytes.
                    #expect(page.events.count <= maxBytes / 8000 + 1, "\(page.events.count) events in one page")
                    #expect(!page.events.isEmpty)
                    seen += page.events.map(\.id)
                    guard page.hasMore, let last = page.events.last else { break }
                    after = last.id
                }
                #expect(seen.count == 60)
                #expect(seen == seen.sorted() && Set(seen).count == seen.count)
                #expect(pages >= 8, "60 events of ~9 KB in pages of 64 KB: \(pages) pages")

                // A page that is not cut says so: nothing more follows.
                let whole = try await store.events(tenant: tenantID, job: nil, after: 0, limit: 500, maxBytes: 1 << 30)
                #expect(whole.events.count == 60 && !whole.hasMore)
            }
        }
    }
}
