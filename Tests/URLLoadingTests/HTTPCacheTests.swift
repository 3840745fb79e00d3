import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

@Suite("HTTP cache: RFC 9111 rules and the cache store")
struct HTTPCacheRuleTests {
    private let url = URL(string: "https://example.com/a")!
    private let start = Date(timeIntervalSince1970: 1_700_000_000)

    private func entry(_ headers: HTTPHeaders, receivedAt date: Date? = nil, body: String = "body") -> CachedResponse {
        let received = date ?? start
        return CachedResponse(
            response: TransferResponse(url: url, statusCode: 200, headers: headers), data: Data(body.utf8),
            requestDate: received, responseDate: received)
    }

    private func date(_ offset: TimeInterval) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: start.addingTimeInterval(offset))
    }

    @Test("freshness: max-age, s-maxage ignored, Expires − Date, 10% of Date − Last-Modified, else none (CA-09)")
    func freshnessLifetime() {
        func lifetime(_ headers: HTTPHeaders) -> TimeInterval {
            HTTPCacheRules.freshnessLifetime(of: TransferResponse(url: url, statusCode: 200, headers: headers), receivedAt: start)
        }
        #expect(lifetime(["Cache-Control": "public, max-age=600", "Expires": date(60)]) == 600)
        #expect(lifetime(["Cache-Control": "s-maxage=900", "Date": date(0), "Expires": date(60)]) == 60)
        #expect(lifetime(["Date": date(0), "Expires": date(-60)]) == 0)
        #expect(lifetime(["Expires": "0"]) == 0)
        #expect(lifetime(["Date": date(0), "Last-Modified": date(-10_000)]) == 1_000)
        #expect(lifetime(["Date": date(0)]) == 0)
    }

    @Test("age: Age plus the round trip, or Date's apparent age, plus time in the cache (CA-09)")
    func age() {
        let fromAge = CachedResponse(
            response: TransferResponse(url: url, statusCode: 200, headers: ["Age": "100", "Date": date(0)]), data: Data(),
            requestDate: start.addingTimeInterval(-2), responseDate: start)
        #expect(HTTPCacheRules.currentAge(of: fromAge, now: start.addingTimeInterval(10)) == 112)
        let fromDate = entry(["Date": date(-50)])
        #expect(HTTPCacheRules.currentAge(of: fromDate, now: start.addingTimeInterval(10)) == 60)
    }

    @Test("use: fresh entries are served; stale, no-cache and must-revalidate ones revalidated (CA-09)")
    func use() {
        let request = TransferRequest(url: url)
        let fresh = entry(["Cache-Control": "max-age=60", "Date": date(0)])
        #expect(HTTPCacheRules.use(of: fresh, for: request, now: start.addingTimeInterval(30)) == .serve)
        #expect(HTTPCacheRules.use(of: fresh, for: request, now: start.addingTimeInterval(61)) == .revalidate)
        let stale = entry(["Cache-Control": "max-age=60, must-revalidate", "Date": date(0)])
        #expect(HTTPCacheRules.use(of: stale, for: request, now: start.addingTimeInterval(61)) == .revalidate)
        let noCache = entry(["Cache-Control": "no-cache, max-age=600", "Date": date(0)])
        #expect(HTTPCacheRules.use(of: noCache, for: request, now: start) == .revalidate)
        var asksFresh = request
        asksFresh.headers["Cache-Control"] = "max-age=0"
        #expect(HTTPCacheRules.use(of: fresh, for: asksFresh, now: start.addingTimeInterval(1)) == .revalidate)
        var pragma = request
        pragma.headers["Pragma"] = "no-cache"
        #expect(HTTPCacheRules.use(of: fresh, for: pragma, now: start) == .revalidate)
    }

    @Test("RFC 9111 §3: final statuses with freshness or a heuristically cacheable status, no no-store; private is fine (CA-01, CA-09)")
    func storable() {
        let get = TransferRequest(url: url)
        func storable(_ status: Int, _ headers: HTTPHeaders, request: TransferRequest? = nil, shared: Bool = false) -> Bool {
            HTTPCacheRules.isStorable(
                request: request ?? get, response: TransferResponse(url: url, statusCode: status, headers: headers),
                sharedAmongCredentials: shared)
        }
        #expect(storable(200, ["Cache-Control": "private, max-age=60"]))
        #expect(storable(200, ["ETag": "\"x\""]))
        #expect(!storable(200, ["Cache-Control": "no-store"]))
        #expect(!storable(206, ["Cache-Control": "max-age=60"]))
        #expect(!storable(304, ["Cache-Control": "max-age=60"]))
        #expect(storable(404, [:]) && storable(410, [:]) && storable(301, ["Location": "/b"]) && storable(308, [:]))
        #expect(!storable(201, ["ETag": "\"x\""]) && !storable(302, ["Location": "/b"]) && !storable(500, [:]))
        #expect(storable(302, ["Location": "/b", "Cache-Control": "max-age=60"]) && storable(500, ["Expires": "0"]))
        #expect(!storable(200, ["Cache-Control": "max-age=60", "Vary": "*"]))
        #expect(!storable(200, ["Cache-Control": "max-age=60"], request: TransferRequest(url: url, method: "POST")))
        #expect(!storable(200, ["Cache-Control": "max-age=60"], request: TransferRequest(url: URL(string: "ftp://example.com/a")!)))
    }

    @Test("RFC 9111 §3.5: a cache shared among credentials stores Authorization responses only with public, must-revalidate or s-maxage")
    func storableWithAuthorization() {
        let authorized = TransferRequest(url: url, headers: ["Authorization": "Bearer t"])
        func storable(_ headers: HTTPHeaders, shared: Bool) -> Bool {
            HTTPCacheRules.isStorable(
                request: authorized, response: TransferResponse(url: url, statusCode: 200, headers: headers), sharedAmongCredentials: shared)
        }
        #expect(storable(["Cache-Control": "max-age=60"], shared: false))
        #expect(!storable(["Cache-Control": "max-age=60"], shared: true))
        #expect(!storable(["Cache-Control": "private, max-age=60"], shared: true))
        for allowing in ["public, max-age=60", "max-age=60, must-revalidate", "s-maxage=60"] {
            #expect(storable(["Cache-Control": allowing], shared: true), "\(allowing)")
        }
    }

    @Test("a 304 replaces the stored headers it names, keeps the body and its length (CA-09)")
    func refresh() {
        let stored = entry(["Content-Length": "4", "ETag": "\"1\"", "Cache-Control": "max-age=1", "X-Old": "kept"])
        let notModified = TransferResponse(
            url: url, statusCode: 304, headers: ["Cache-Control": "max-age=99", "Content-Length": "0", "ETag": "\"1\""])
        let later = start.addingTimeInterval(100)
        let refreshed = HTTPCacheRules.refreshed(stored, with: notModified, requestDate: later, responseDate: later)
        #expect(refreshed.response.headers["Cache-Control"] == "max-age=99")
        #expect(refreshed.response.headers["Content-Length"] == "4")
        #expect(refreshed.response.headers["X-Old"] == "kept")
        #expect(refreshed.data == stored.data && refreshed.responseDate == later)
        let conditional = HTTPCacheRules.conditionalRequest(TransferRequest(url: url), for: stored)
        #expect(conditional?.headers["If-None-Match"] == "\"1\"")
        #expect(HTTPCacheRules.conditionalRequest(TransferRequest(url: url), for: entry([:])) == nil)
    }

    @Test("the store: lookup, manual store, Vary, removal by request, by date and all, usage (CA-17..CA-20)")
    func storeOperations() throws {
        let cache = try LocalResponseCache(memoryCapacity: 1 << 20)
        let request = TransferRequest(url: url, headers: ["Accept-Language": "en"])
        var varying = entry(["Vary": "Accept-Language"])
        varying.varyingRequestHeaders = ["accept-language": "en"]
        cache.storeCachedResponse(varying, for: request)
        #expect(cache.cachedResponse(for: request)?.data == Data("body".utf8))
        #expect(cache.cachedResponse(for: TransferRequest(url: URL(string: "https://EXAMPLE.com/a#frag")!, headers: ["Accept-Language": "en"])) != nil)
        #expect(cache.cachedResponse(for: TransferRequest(url: url, headers: ["Accept-Language": "fr"])) == nil)
        #expect(cache.currentMemoryUsage > 4)
        cache.removeCachedResponse(for: request)
        #expect(cache.cachedResponse(for: request) == nil)
        #expect(cache.currentMemoryUsage == 0)

        let other = TransferRequest(url: URL(string: "https://example.com/b")!)
        cache.storeCachedResponse(entry([:]), for: other)
        let cutoff = Date()
        cache.storeCachedResponse(entry([:]), for: TransferRequest(url: url))
        cache.removeCachedResponses(since: cutoff)
        #expect(cache.cachedResponse(for: TransferRequest(url: url)) == nil)
        #expect(cache.cachedResponse(for: other) != nil)
        cache.removeAllCachedResponses()
        #expect(cache.cachedResponse(for: other) == nil)
    }

    @Test("each tier evicts its least recently used entries; memory-only entries never reach the disk (CA-18)")
    func eviction() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let body = String(repeating: "x", count: 1_000)
        let cost = entry([:], body: body).cost
        // Room for ten entries in each tier, so twelve make both evict.
        let cache = try LocalResponseCache(memoryCapacity: cost * 10, diskCapacity: cost * 10, directory: directory)
        func request(_ index: Int) -> TransferRequest { TransferRequest(url: URL(string: "https://example.com/\(index)")!) }
        for index in 0..<12 {
            cache.storeCachedResponse(entry([:], body: body), for: request(index))
            // Touch the first one each time: it stays the most recently used.
            _ = cache.cachedResponse(for: request(0))
        }
        #expect(cache.currentMemoryUsage <= cache.memoryCapacity)
        #expect(cache.currentDiskUsage <= cache.diskCapacity)
        #expect(cache.cachedResponse(for: request(0)) != nil)
        #expect(cache.cachedResponse(for: request(1)) == nil)
        #expect(cache.cachedResponse(for: request(11)) != nil)

        var memoryOnly = entry([:], body: "secret")
        memoryOnly.storagePolicy = .allowedInMemoryOnly
        let before = cache.currentDiskUsage
        cache.storeCachedResponse(memoryOnly, for: request(99))
        #expect(cache.currentDiskUsage <= before)
        let reopened = try LocalResponseCache(memoryCapacity: cost * 10, diskCapacity: cost * 10, directory: directory)
        #expect(reopened.cachedResponse(for: request(99)) == nil)
        #expect(reopened.cachedResponse(for: request(0))?.data == Data(body.utf8))
    }
}

/// Answers the will-cache question with a closure and records that it was asked.
private final class CacheDecisionDelegate: SessionDelegate {
    let asked = Locked<[String]>([])
    let answer: @Sendable (CachedResponse) -> CachedResponse?

    init(answer: @escaping @Sendable (CachedResponse) -> CachedResponse?) {
        self.answer = answer
    }

    func session(_ session: Session, dataTask: DataTask, willCacheResponse proposed: CachedResponse) async -> CachedResponse? {
        asked.withLock { $0.append(dataTask.originalRequest.url.path) }
        return answer(proposed)
    }
}

@Suite("HTTP cache: transfers", .timeLimit(.minutes(2)))
struct HTTPCacheTransferTests {
    private func memoryCache() throws -> LocalResponseCache {
        try LocalResponseCache(memoryCapacity: 4 << 20)
    }

    private func session(cache: any ResponseCache, delegate: (any SessionDelegate)? = nil,
                         _ configure: (inout SessionConfiguration) -> Void = { _ in }) throws -> Session {
        try Fixture.session({ configuration in
            configuration.urlCache = cache
            configure(&configuration)
        }, delegate: delegate)
    }

    /// The body as text and the cache status.
    private func fetch(_ session: Session, _ url: String, configure: (inout TransferRequest) -> Void = { _ in })
        async throws -> (String, CacheStatus?)
    {
        var request = Fixture.request(url)
        configure(&request)
        let (data, response) = try await session.data(for: request)
        return (String(decoding: data, as: UTF8.self), response.cacheStatus)
    }

    private func requests(_ origin: OriginServer, _ path: String) -> [RecordedRequest] {
        origin.requests.filter { $0.path == path }
    }

    @Test("max-age: the second request is served from the cache, the origin sees one (CA-05, CA-09, CA-17)")
    func maxAgeHit() async throws {
        try await Fixture.withOrigin { origin in
            let session = try self.session(cache: try memoryCache())
            let first = try await fetch(session, origin.url("/cache/max-age/3600"))
            let second = try await fetch(session, origin.url("/cache/max-age/3600"))
            #expect(first.0 == "response 1" && first.1 == .miss)
            #expect(second.0 == "response 1" && second.1 == .hit)
            #expect(requests(origin, "/cache/max-age/3600").count == 1)
        }
    }

    @Test("no-store: nothing is stored, every request goes to the origin (CA-09)")
    func noStore() async throws {
        try await Fixture.withOrigin { origin in
            let cache = try memoryCache()
            let session = try self.session(cache: cache)
            #expect(try await fetch(session, origin.url("/cache/no-store")) == ("response 1", .miss))
            #expect(try await fetch(session, origin.url("/cache/no-store")) == ("response 2", .miss))
            #expect(cache.currentMemoryUsage == 0)
        }
    }

    @Test("no-cache with an ETag: revalidated with If-None-Match every time, a 304 serves the stored body as 200 (CA-09)")
    func noCacheRevalidates() async throws {
        try await Fixture.withOrigin { origin in
            let session = try self.session(cache: try memoryCache())
            #expect(try await fetch(session, origin.url("/cache/no-cache")) == ("response 1", .miss))
            let (data, response) = try await session.data(for: Fixture.request(origin.url("/cache/no-cache")))
            #expect(String(decoding: data, as: UTF8.self) == "response 1")
            #expect(response.statusCode == 200 && response.cacheStatus == .revalidated)
            let seen = requests(origin, "/cache/no-cache")
            #expect(seen.count == 2)
            #expect(seen.map { $0.header("If-None-Match") } == [nil, "\"e1\""])
        }
    }

    @Test("Last-Modified only: fresh by the 10% heuristic; when stale, revalidated with If-Modified-Since (CA-09)")
    func lastModified() async throws {
        try await Fixture.withOrigin { origin in
            let session = try self.session(cache: try memoryCache())
            #expect(try await fetch(session, origin.url("/cache/last-modified")) == ("response 1", .miss))
            #expect(try await fetch(session, origin.url("/cache/last-modified")) == ("response 1", .hit))
            #expect(try await fetch(session, origin.url("/cache/last-modified?stale=1")) == ("response 1", .miss))
            #expect(try await fetch(session, origin.url("/cache/last-modified?stale=1")) == ("response 1", .revalidated))
            let conditional = requests(origin, "/cache/last-modified").last?.header("If-Modified-Since")
            #expect(conditional == "Tue, 14 Nov 2023 22:13:20 GMT")
        }
    }

    @Test("Age and must-revalidate: an entry already older than max-age is revalidated, never served stale (CA-09)")
    func ageAndMustRevalidate() async throws {
        try await Fixture.withOrigin { origin in
            let session = try self.session(cache: try memoryCache())
            let url = origin.url("/cache/max-age/60?age=120&etag=1&must_revalidate=1")
            #expect(try await fetch(session, url) == ("response 1", .miss))
            #expect(try await fetch(session, url) == ("response 1", .revalidated))
            #expect(origin.requests.last?.header("If-None-Match") == "\"e1\"")
        }
    }

    @Test("Vary: an entry is served only to requests with the same varying headers (CA-09)")
    func vary() async throws {
        try await Fixture.withOrigin { origin in
            let session = try self.session(cache: try memoryCache())
            let english: (inout TransferRequest) -> Void = { $0.headers["Accept-Language"] = "en" }
            #expect(try await fetch(session, origin.url("/cache/vary"), configure: english) == ("response 1 for en", .miss))
            #expect(try await fetch(session, origin.url("/cache/vary"), configure: english) == ("response 1 for en", .hit))
            let french = try await fetch(session, origin.url("/cache/vary")) { $0.headers["Accept-Language"] = "fr" }
            #expect(french == ("response 2 for fr", .miss))
        }
    }

    @Test("the four policies: reload ignores the cache, else-load and don't-load take any age, an offline miss fails (CA-05..CA-08, SES-26)")
    func policies() async throws {
        try await Fixture.withOrigin { origin in
            let cache = try memoryCache()
            let session = try self.session(cache: cache)
            let stale = origin.url("/cache/max-age/0")
            #expect(try await fetch(session, stale) == ("response 1", .miss))
            #expect(try await fetch(session, stale) { $0.cachePolicy = .returnCacheDataElseLoad } == ("response 1", .hit))
            #expect(try await fetch(session, stale) { $0.cachePolicy = .returnCacheDataDontLoad } == ("response 1", .hit))
            #expect(try await fetch(session, stale) { $0.cachePolicy = .reloadIgnoringLocalCacheData } == ("response 2", .miss))
            // The reload stored its response.
            #expect(try await fetch(session, stale) { $0.cachePolicy = .returnCacheDataDontLoad } == ("response 2", .hit))
            #expect(requests(origin, "/cache/max-age/0").count == 2)

            let offline = try self.session(cache: cache) { $0.requestCachePolicy = .returnCacheDataDontLoad }
            let error = await #expect(throws: TransferError.self) {
                _ = try await offline.data(for: Fixture.request(origin.url("/cache/max-age/60")))
            }
            #expect(error?.code == .resourceUnavailable)
            #expect(requests(origin, "/cache/max-age/60").isEmpty)
            let elseLoad = try self.session(cache: cache) { $0.requestCachePolicy = .returnCacheDataElseLoad }
            #expect(try await fetch(elseLoad, origin.url("/cache/max-age/60")) == ("response 1", .miss))
        }
    }

    @Test("only http and https are cached; for file URLs the policy only gates loading (CA-01)")
    func onlyHTTP() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-cache-\(UUID().uuidString).txt")
        try Data("one".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let cache = try memoryCache()
        let session = try self.session(cache: cache)
        let (first, response) = try await session.data(for: TransferRequest(url: file))
        #expect(first == Data("one".utf8) && response.cacheStatus == nil)
        try Data("two".utf8).write(to: file)
        let (second, _) = try await session.data(for: TransferRequest(url: file))
        #expect(second == Data("two".utf8))
        #expect(cache.currentMemoryUsage == 0)
        let error = await #expect(throws: TransferError.self) {
            _ = try await session.data(for: TransferRequest(url: file, cachePolicy: .returnCacheDataDontLoad))
        }
        #expect(error?.code == .resourceUnavailable)
    }

    @Test("will-cache: data tasks ask; nil stores nothing, a changed entry is stored as changed (CA-11, CA-12, CA-14, CA-15)")
    func willCacheDecisions() async throws {
        try await Fixture.withOrigin { origin in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-cache-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let cache = try LocalResponseCache(memoryCapacity: 1 << 20, diskCapacity: 1 << 20, directory: directory)
            let delegate = CacheDecisionDelegate { proposed in
                if proposed.response.url.path.hasSuffix("/60") { return nil }
                var changed = proposed
                changed.storagePolicy = .allowedInMemoryOnly
                changed.userInfo["cached-date"] = "today"
                return changed
            }
            let session = try self.session(cache: cache, delegate: delegate)
            _ = try await fetch(session, origin.url("/cache/max-age/60"))
            #expect(try await fetch(session, origin.url("/cache/max-age/60")) == ("response 2", .miss))
            _ = try await fetch(session, origin.url("/cache/max-age/61"))
            #expect(try await fetch(session, origin.url("/cache/max-age/61")) == ("response 1", .hit))
            #expect(cache.cachedResponse(for: Fixture.request(origin.url("/cache/max-age/61")))?.userInfo == ["cached-date": "today"])
            #expect(cache.currentDiskUsage == 0)
            #expect(delegate.asked.withLock { $0 } == ["/cache/max-age/60", "/cache/max-age/60", "/cache/max-age/61"])

            // Download tasks follow the policy without asking (CA-11); the entry goes to disk (CA-10).
            let destination = directory.appendingPathComponent("download")
            _ = try await session.download(for: Fixture.request(origin.url("/cache/max-age/62")), to: destination)
            #expect(delegate.asked.withLock { $0 }.count == 3)
            #expect(cache.currentDiskUsage > 0)
            let hit = try await session.download(for: Fixture.request(origin.url("/cache/max-age/62")), to: destination)
            #expect(hit.cacheStatus == .hit)
            #expect(try Data(contentsOf: destination) == Data("response 1".utf8))
        }
    }

    @Test("ephemeral sessions keep entries in memory only and are not asked (CA-11, CA-24, SES-03)")
    func ephemeral() async throws {
        try await Fixture.withOrigin { origin in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-cache-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let cache = try LocalResponseCache(memoryCapacity: 1 << 20, diskCapacity: 1 << 20, directory: directory)
            let delegate = CacheDecisionDelegate { $0 }
            var configuration = SessionConfiguration.ephemeral
            configuration.urlCache = cache
            let session = try Session(configuration: configuration, delegate: delegate)
            _ = try await fetch(session, origin.url("/cache/max-age/3600"))
            #expect(try await fetch(session, origin.url("/cache/max-age/3600")) == ("response 1", .hit))
            #expect(cache.currentDiskUsage == 0)
            #expect(delegate.asked.withLock { $0 }.isEmpty)
        }
    }

    @Test("the disk cache survives a new session and cache on the same directory (CA-02, CA-03, CA-21)")
    func diskSurvivesNewSession() async throws {
        try await Fixture.withOrigin { origin in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-cache-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            do {
                let cache = try LocalResponseCache(memoryCapacity: 1 << 20, diskCapacity: 1 << 20, directory: directory)
                let session = try self.session(cache: cache)
                #expect(try await fetch(session, origin.url("/cache/max-age/3600")) == ("response 1", .miss))
                #expect(try await fetch(session, origin.url("/cache/no-cache")) == ("response 1", .miss))
                session.finishTasksAndInvalidate()
            }
            let reopened = try LocalResponseCache(memoryCapacity: 1 << 20, diskCapacity: 1 << 20, directory: directory)
            #expect(reopened.currentDiskUsage > 0)
            let session = try self.session(cache: reopened)
            #expect(try await fetch(session, origin.url("/cache/max-age/3600")) == ("response 1", .hit))
            #expect(try await fetch(session, origin.url("/cache/no-cache")) == ("response 1", .revalidated))
            #expect(requests(origin, "/cache/max-age/3600").count == 1)
        }
    }
}
