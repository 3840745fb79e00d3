import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// A cache that stores and serves through a `LocalResponseCache` and remembers the bodies it was
/// given: whether the engine handed over a file or bytes held in memory.
private final class BodyRecordingCache: ResponseCache {
    let inner: LocalResponseCache
    let stored = Locked<[CachedResponse.Body]>([])

    init(_ inner: LocalResponseCache) {
        self.inner = inner
    }

    func cachedResponse(for request: TransferRequest) -> CachedResponse? { inner.cachedResponse(for: request) }
    func storeCachedResponse(_ cachedResponse: CachedResponse, for request: TransferRequest) {
        stored.withLock { $0.append(cachedResponse.body) }
        inner.storeCachedResponse(cachedResponse, for: request)
    }
    func removeCachedResponse(for request: TransferRequest) { inner.removeCachedResponse(for: request) }
    func removeCachedResponses(since date: Date) { inner.removeCachedResponses(since: date) }
    func removeAllCachedResponses() { inner.removeAllCachedResponses() }
    var memoryCapacity: Int { inner.memoryCapacity }
    var diskCapacity: Int { inner.diskCapacity }
    var currentMemoryUsage: Int { inner.currentMemoryUsage }
    var currentDiskUsage: Int { inner.currentDiskUsage }
}

/// Bodies between transfers and the cache never held whole in memory: a download's body is stored
/// from its file, a hit too big for the memory tier is copied from the cache's file, and a streamed
/// data task keeps at most a small copy for the cache.
@Suite("HTTP cache: bodies from and to files", .timeLimit(.minutes(2)))
struct HTTPCacheBodyTests {
    private static func directory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("ferry-cache-\(UUID().uuidString)")
    }

    @Test("a download's body goes to the cache as its file, and a hit is copied from the cache's file (CA-03, CA-05, DL-01)")
    func downloadBodyFromFile() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // No memory tier: nothing of a body may be kept in memory.
        let cache = BodyRecordingCache(try LocalResponseCache(memoryCapacity: 0, diskCapacity: 256 << 20, directory: directory))
        let session = try Fixture.session { $0.urlCache = cache }
        defer { session.invalidateAndCancel() }
        let length = 5_000_000
        try await Fixture.withOrigin { origin in
            let url = origin.url("/bytes/\(length)")
            let first = directory.appendingPathComponent("first.bin")
            let firstResponse = try await session.download(for: Fixture.request(url), to: first)
            #expect(firstResponse.cacheStatus == .miss)
            guard case .file(_, let storedLength)? = cache.stored.withLock({ $0.first }) else {
                Issue.record("the cache was given \(String(describing: cache.stored.withLock { $0.first })), not the download's file")
                return
            }
            #expect(storedLength == Int64(length))
            #expect(cache.currentMemoryUsage == 0)

            // The first download's file is the caller's now: changing it changes nothing cached.
            try Data("changed".utf8).write(to: first)
            let second = directory.appendingPathComponent("second.bin")
            let secondResponse = try await session.download(for: Fixture.request(url), to: second)
            #expect(secondResponse.cacheStatus == .hit)
            #expect(origin.requests.filter { $0.path == "/bytes/\(length)" }.count == 1)
            #expect(try Data(contentsOf: second) == Fixture.pattern(length))
        }
    }

    @Test("a cache reopened with a small memory tier serves a big entry from its file, a small one from memory (CA-18)")
    func reopenedCacheServesFromFile() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = URL(string: "https://example.com/big")!
        let big = Data(repeating: 7, count: 300_000)
        let entry = CachedResponse(response: TransferResponse(url: url, statusCode: 200, headers: [:]), data: big)
        try LocalResponseCache(memoryCapacity: 0, diskCapacity: 16 << 20, directory: directory)
            .storeCachedResponse(entry, for: TransferRequest(url: url))

        let small = try LocalResponseCache(memoryCapacity: 1 << 20, diskCapacity: 16 << 20, directory: directory)
        guard case .file(let file, let length)? = small.cachedResponse(for: TransferRequest(url: url))?.body else {
            Issue.record("a body over a tenth of the memory tier was read into memory")
            return
        }
        #expect(length == Int64(big.count))
        #expect(try Data(contentsOf: file) == big)
        #expect(small.currentMemoryUsage == 0)

        let roomy = try LocalResponseCache(memoryCapacity: 64 << 20, diskCapacity: 16 << 20, directory: directory)
        #expect(roomy.cachedResponse(for: TransferRequest(url: url))?.data == big)
        #expect(roomy.currentMemoryUsage > 0)
    }

    @Test("a streamed data task copies at most 1 MiB of its body for the cache (CA-05, TT-02)")
    func streamedCaptureIsBounded() async throws {
        let cache = BodyRecordingCache(try LocalResponseCache(memoryCapacity: 64 << 20))
        let session = try Fixture.session { $0.urlCache = cache }
        defer { session.invalidateAndCancel() }
        try await Fixture.withOrigin { origin in
            for length in [TransferCaching.streamedCaptureLimit + 1, 500_000] {
                let (body, _) = try await session.bytes(for: Fixture.request(origin.url("/bytes/\(length)")))
                #expect(try await body.collect() == Fixture.pattern(length))
            }
            let stored = cache.stored.withLock { $0 }
            #expect(stored.map(\.length) == [500_000])
            let (again, response) = try await session.data(for: Fixture.request(origin.url("/bytes/500000")))
            #expect(response.cacheStatus == .hit && again == Fixture.pattern(500_000))
        }
    }
}
