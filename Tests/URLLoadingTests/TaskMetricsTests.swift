import Foundation
import MetricsTestKit
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// Each request of a task measured by curl (`task.metrics`), and the same requests counted and
/// timed through swift-metrics (`EngineMetricName`), read back from swift-metrics' test backend.
@Suite("Task metrics", .timeLimit(.minutes(2)))
struct TaskMetricsTests {
    private static func run(_ task: SessionTask) async -> TaskMetrics {
        task.resume()
        await task.waitUntilCompleted()
        return task.metrics
    }

    private static func requests(_ metrics: TestMetrics, _ scheme: String, _ outcome: String) -> Int64 {
        (try? metrics.expectCounter(EngineMetricName.requests, [("scheme", scheme), ("outcome", outcome)]).totalValue) ?? 0
    }

    private static func connections(_ metrics: TestMetrics, _ kind: String) -> Int64 {
        (try? metrics.expectCounter(EngineMetricName.connections, [("connection", kind)]).totalValue) ?? 0
    }

    private static func phase(_ metrics: TestMetrics, _ name: String) -> [Int64] {
        (try? metrics.expectTimer(EngineMetricName.phaseDuration, [("phase", name)]).values) ?? []
    }

    @Test("a request's phases in order, its peer, protocol and sizes; the next one reuses the connection (TT-06)")
    func phasesAndReuse() async throws {
        try await Fixture.withOrigin { origin in
            let recorded = TestMetrics()
            let session = try Fixture.session { $0.metricsFactory = recorded }
            let first = await Self.run(try session.dataTask(with: Fixture.request(origin.url("/bytes/5000"))))
            let transaction = try #require(first.transactions.first)
            #expect(first.transactions.count == 1)
            #expect(first.redirectCount == 0)
            #expect(transaction.outcome == .completed)
            #expect(transaction.statusCode == 200)
            #expect(transaction.request.path == "/bytes/5000")
            #expect(!transaction.isReusedConnection)
            #expect(transaction.remoteAddress == "127.0.0.1")
            #expect(transaction.remotePort == Fixture.url(origin.url("/")).port)
            #expect(transaction.networkProtocolName == "http/1.1")
            #expect(transaction.responseBodyBytes == 5000)
            #expect(transaction.responseHeaderBytes > 0)
            #expect(transaction.requestHeaderBytes > 0)
            #expect(transaction.requestBodyBytes == 0)
            #expect(transaction.secureConnectionEnd == nil, "no TLS")
            let connected = try #require(transaction.connectEnd)
            let requested = try #require(transaction.requestStart)
            let answered = try #require(transaction.responseStart)
            #expect(connected <= requested && requested <= answered && answered <= transaction.responseEnd)
            let interval = try #require(first.taskInterval)
            #expect(interval.start <= transaction.fetchStart && transaction.fetchStart <= interval.end)

            let second = await Self.run(try session.dataTask(with: Fixture.request(origin.url("/bytes/10"))))
            let reused = try #require(second.transactions.first)
            #expect(reused.isReusedConnection)
            #expect(reused.connectEnd == nil && reused.nameLookupEnd == nil, "the connect belongs to the first request")
            #expect(reused.responseBodyBytes == 10)

            #expect(Self.requests(recorded, "http", "completed") == 2)
            #expect(Self.connections(recorded, "new") == 1)
            #expect(Self.connections(recorded, "reused") == 1)
            #expect(Self.phase(recorded, "total").count == 2)
            #expect(Self.phase(recorded, "wait").count == 2)
            #expect(Self.phase(recorded, "connect").count == 1)
            #expect(Self.phase(recorded, "tls").isEmpty)
        }
    }

    @Test("https over HTTP/2: the handshake is a phase of its own, after the connect (TLS-12, SES-23)")
    func handshakeOverHTTP2() async throws {
        let certificates = try await TestCertificates.generate()
        defer { certificates.remove() }
        try await Fixture.withOrigin(tls: OriginServer.TLSOptions(certificates: certificates, http2: true)) { origin in
            let recorded = TestMetrics()
            let session = try Fixture.session {
                $0.additionalTrustedCAsPEM = certificates.caCertificatePEM
                $0.metricsFactory = recorded
            }
            let metrics = await Self.run(try session.dataTask(with: Fixture.request(origin.url("/bytes/100"))))
            let transaction = try #require(metrics.transactions.first)
            #expect(transaction.networkProtocolName == "h2")
            let connected = try #require(transaction.connectEnd)
            let secured = try #require(transaction.secureConnectionEnd)
            #expect(connected < secured)
            #expect(transaction.secureConnectionDuration == secured - connected)
            #expect(Self.requests(recorded, "https", "completed") == 1)
            #expect(Self.phase(recorded, "tls").count == 1)
        }
    }

    @Test("a redirect chain has one transaction per hop and counts its redirects (TT-06, RD-04)")
    func redirectHops() async throws {
        try await Fixture.withOrigin { origin in
            let recorded = TestMetrics()
            let session = try Fixture.session { $0.metricsFactory = recorded }
            let metrics = await Self.run(try session.dataTask(with: Fixture.request(origin.url("/redirect/2"))))
            #expect(metrics.transactions.map(\.request.path) == ["/redirect/2", "/redirect/1", "/redirect/0"])
            #expect(metrics.transactions.map(\.statusCode) == [302, 302, 200])
            #expect(metrics.transactions.map(\.isReusedConnection) == [false, true, true])
            #expect(metrics.redirectCount == 2)
            #expect(Self.requests(recorded, "http", "completed") == 3)
        }
    }

    @Test("a refused connection is a failed request, a cancelled transfer a stopped one, a file: URL has no peer")
    func failedStoppedAndLocal() async throws {
        try await Fixture.withOrigin { origin in
            let recorded = TestMetrics()
            let session = try Fixture.session { $0.metricsFactory = recorded }

            // Port 1 on loopback: nothing listens there.
            let refused = await Self.run(try session.dataTask(with: Fixture.request("http://127.0.0.1:1/")))
            #expect(refused.transactions.map(\.outcome) == [.failed])
            #expect(refused.transactions.first?.connectEnd == nil)
            #expect(refused.transactions.first?.statusCode == nil)

            let slow = try session.dataTask(with: Fixture.request(origin.url("/bytes/4000000?pace_ms=50")))
            slow.resume()
            while slow.progress.bytesReceived == 0 { try await Task.sleep(for: .milliseconds(10)) }
            slow.cancel()
            await slow.waitUntilCompleted()
            let stopped = try #require(slow.metrics.transactions.first)
            #expect(slow.metrics.transactions.count == 1)
            #expect(stopped.outcome == .stopped)
            #expect(stopped.statusCode == 200)
            #expect(stopped.responseBodyBytes > 0 && stopped.responseBodyBytes < 4_000_000)

            let file = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-\(UUID().uuidString)")
            try Fixture.pattern(300).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let local = await Self.run(try session.dataTask(with: TransferRequest(url: file)))
            let read = try #require(local.transactions.first)
            #expect(read.outcome == .completed)
            #expect(read.networkProtocolName == "file")
            #expect(read.remoteAddress == nil && !read.isReusedConnection)
            #expect(read.responseBodyBytes == 300)

            #expect(Self.requests(recorded, "http", "failed") == 1)
            #expect(Self.requests(recorded, "http", "stopped") == 1)
            #expect(Self.requests(recorded, "file", "completed") == 1)
            #expect(Self.connections(recorded, "new") == 1, "the refused connect never connected; the file read needs none")
        }
    }

    @Test("a response the cache serves makes no transaction: no request left the process (CA-05)")
    func cacheHitHasNoTransaction() async throws {
        try await Fixture.withOrigin { origin in
            let cache = try LocalResponseCache(memoryCapacity: 1 << 20)
            let session = try Fixture.session { $0.urlCache = cache }
            let url = origin.url("/cache/max-age/60")
            let stored = await Self.run(try session.dataTask(with: Fixture.request(url)))
            #expect(stored.transactions.count == 1)
            let served = await Self.run(try session.dataTask(with: Fixture.request(url)))
            #expect(served.transactions.isEmpty)
            #expect(origin.requests.count == 1)
        }
    }
}
