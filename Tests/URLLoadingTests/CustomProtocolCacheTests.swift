import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// A custom protocol's cache key and cached response (PR-04, PR-06, CA-05, CA-11): `ledger:` keys its
/// pages by book and page, is handed what the session's cache holds under that key, and answers with
/// it while its version holds.
@Suite("Custom protocols: the cache", .timeLimit(.minutes(2)))
struct CustomProtocolCacheTests {
    private func session(
        cache: (any ResponseCache)? = try? LocalResponseCache(memoryCapacity: 4 << 20), delegate: (any SessionDelegate)? = nil,
        _ configure: (inout SessionConfiguration) -> Void = { _ in }
    ) throws -> Session {
        try Fixture.session({ configuration in
            configuration.protocolClasses = [LedgerProtocol.self]
            configuration.urlCache = cache
            configure(&configuration)
        }, delegate: delegate)
    }

    private func book() -> String { "book-" + UUID().uuidString.prefix(8).lowercased() }

    @Test("a response the protocol allows is stored under its key; a request with the same key is handed it, and the protocol's word serves it as a hit, to a data task and to a download (PR-04, PR-06, CA-05)")
    func storesAndAnswers() async throws {
        let book = book()
        LedgerProtocol.write("first edition", version: 1, book: book, page: "index")
        let session = try session()

        let (fetched, response) = try await session.data(for: TransferRequest(url: LedgerProtocol.url(book: book, page: "index", query: "a")))
        #expect(String(decoding: fetched, as: UTF8.self) == "first edition")
        #expect(response.cacheStatus == nil)
        #expect(LedgerProtocol.events(of: book) == ["start", "loaded", "stop"])

        // Another query, the same key: the stored entry answers, with the protocol's consent.
        let (again, hit) = try await session.data(for: TransferRequest(url: LedgerProtocol.url(book: book, page: "index", query: "b")))
        #expect(String(decoding: again, as: UTF8.self) == "first edition")
        #expect(hit.cacheStatus == .hit)
        #expect(hit.headers["X-Version"] == "1")
        #expect(LedgerProtocol.events(of: book).suffix(3) == ["start", "cached valid", "stop"])

        // A new version: the protocol finds the entry stale, loads, and the new response replaces it.
        LedgerProtocol.write("second edition", version: 2, book: book, page: "index")
        let (second, _) = try await session.data(for: TransferRequest(url: LedgerProtocol.url(book: book, page: "index")))
        #expect(String(decoding: second, as: UTF8.self) == "second edition")
        #expect(LedgerProtocol.events(of: book).suffix(4) == ["start", "cached stale", "loaded", "stop"])

        let directory = try TemporaryDirectory()
        let destination = directory.url.appendingPathComponent("index.txt")
        let downloaded = try await session.download(for: TransferRequest(url: LedgerProtocol.url(book: book, page: "index")), to: destination)
        #expect(downloaded.cacheStatus == .hit)
        #expect(try String(contentsOf: destination, encoding: .utf8) == "second edition")
        #expect(LedgerProtocol.events(of: book).suffix(3) == ["start", "cached valid", "stop"])
    }

    @Test("the request's cache policy: reload hands the protocol nothing; return-cache-data answers from the entry without starting the protocol, or fails without one (CA-05, CA-08)")
    func cachePolicies() async throws {
        let book = book()
        LedgerProtocol.write("kept", version: 1, book: book, page: "kept")
        let session = try session()
        _ = try await session.data(for: TransferRequest(url: LedgerProtocol.url(book: book, page: "kept")))

        var reload = TransferRequest(url: LedgerProtocol.url(book: book, page: "kept"))
        reload.cachePolicy = .reloadIgnoringLocalCacheData
        _ = try await session.data(for: reload)
        #expect(LedgerProtocol.events(of: book) == ["start", "loaded", "stop", "start", "loaded", "stop"])

        for policy in [RequestCachePolicy.returnCacheDataDontLoad, .returnCacheDataElseLoad] {
            var offline = TransferRequest(url: LedgerProtocol.url(book: book, page: "kept"))
            offline.cachePolicy = policy
            let (data, response) = try await session.data(for: offline)
            #expect(String(decoding: data, as: UTF8.self) == "kept")
            #expect(response.cacheStatus == .hit)
        }
        #expect(LedgerProtocol.events(of: book).count == 6, "the protocol was not started for a stored entry")

        LedgerProtocol.write("never stored", version: 1, book: book, page: "other")
        var missing = TransferRequest(url: LedgerProtocol.url(book: book, page: "other"))
        missing.cachePolicy = .returnCacheDataDontLoad
        let error = await #expect(throws: TransferError.self) { try await session.data(for: missing) }
        #expect(error?.code == .resourceUnavailable)
        #expect(LedgerProtocol.events(of: book).count == 6, "nothing stored, and the request may not be sent")
    }

    @Test("nothing is stored for a response reported as not allowed, for a protocol without a cache key, when the delegate's will-cache answer is nil, or without a cache (CA-11)")
    func notStored() async throws {
        let book = book()
        LedgerProtocol.write("volatile", version: 1, book: book, page: "p")
        let session = try session()
        for _ in 0..<2 { _ = try await session.data(for: TransferRequest(url: LedgerProtocol.url(book: book, page: "p", query: "store=no"))) }
        #expect(LedgerProtocol.events(of: book) == ["start", "loaded", "stop", "start", "loaded", "stop"])

        let keyless = "nokey-" + book
        LedgerProtocol.write("unkeyed", version: 1, book: keyless, page: "p")
        for _ in 0..<2 { _ = try await session.data(for: TransferRequest(url: LedgerProtocol.url(book: keyless, page: "p"))) }
        #expect(LedgerProtocol.events(of: keyless) == ["start", "loaded", "stop", "start", "loaded", "stop"])

        let refusing = book + "-refused"
        LedgerProtocol.write("refused", version: 1, book: refusing, page: "p")
        let delegate = RefusingCacheDelegate()
        let asking = try self.session(delegate: delegate)
        for _ in 0..<2 { _ = try await asking.data(for: TransferRequest(url: LedgerProtocol.url(book: refusing, page: "p"))) }
        #expect(delegate.asked.withLock { $0 } == 2)
        #expect(LedgerProtocol.events(of: refusing) == ["start", "loaded", "stop", "start", "loaded", "stop"])

        let uncached = book + "-uncached"
        LedgerProtocol.write("no cache", version: 1, book: uncached, page: "p")
        let plain = try self.session(cache: nil)
        for _ in 0..<2 { _ = try await plain.data(for: TransferRequest(url: LedgerProtocol.url(book: uncached, page: "p"))) }
        #expect(LedgerProtocol.events(of: uncached) == ["start", "loaded", "stop", "start", "loaded", "stop"])
    }
}

/// Answers every will-cache question with nil, counting them.
private final class RefusingCacheDelegate: SessionDelegate {
    let asked = Locked(0)

    func session(_ session: Session, dataTask: DataTask, willCacheResponse proposed: CachedResponse) async -> CachedResponse? {
        asked.withLock { $0 += 1 }
        return nil
    }
}
