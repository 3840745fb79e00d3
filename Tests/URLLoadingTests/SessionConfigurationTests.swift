import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// Every configuration value a session accepts is applied (SES-11, SES-12, SES-18..SES-23, LC-22).
@Suite("Session configuration", .timeLimit(.minutes(2)))
struct SessionConfigurationTests {
    @Test("a session copies its configuration; later changes affect only new sessions (SES-11, SES-12, SES-14)")
    func configurationIsCopied() async throws {
        try await Fixture.withOrigin { origin in
            var configuration = SessionConfiguration.default
            configuration.additionalHeaders["X-Generation"] = "first"
            let first = try Session(configuration: configuration)
            configuration.additionalHeaders["X-Generation"] = "second"
            let second = try Session(configuration: configuration)

            let (firstData, _) = try await first.data(for: Fixture.request(origin.url("/echo")))
            let (secondData, _) = try await second.data(for: Fixture.request(origin.url("/echo")))
            #expect(try Fixture.echo(firstData).header("X-Generation") == "first")
            #expect(try Fixture.echo(secondData).header("X-Generation") == "second")
            #expect(first.configuration.additionalHeaders["X-Generation"] == "first")
        }
    }

    @Test("unusable values are refused when the session is made")
    func invalidConfigurationIsRefused() {
        var configuration = SessionConfiguration.default
        configuration.maximumConnectionsPerHost = 0
        #expect(throws: ConfigurationError.self) { try Session(configuration: configuration) }
        configuration = .default
        configuration.tlsMinimumVersion = .tls13
        configuration.tlsMaximumVersion = .tls12
        #expect(throws: ConfigurationError.self) { try Session(configuration: configuration) }
        configuration = .default
        configuration.requestTimeout = 0
        #expect(throws: ConfigurationError.self) { try Session(configuration: configuration) }
    }

    @Test("additional headers are sent, and a request's own field wins")
    func additionalHeaders() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session {
                $0.additionalHeaders = ["X-Team": "ferry", "Accept-Language": "fr"]
            }
            var request = Fixture.request(origin.url("/echo"))
            request.headers["Accept-Language"] = "de"
            let (data, _) = try await session.data(for: request)
            let echo = try Fixture.echo(data)
            #expect(echo.header("X-Team") == "ferry")
            #expect(echo.headers(named: "Accept-Language") == ["de"])
        }
    }

    @Test("the idle request timeout ends a stalled transfer with timed_out (LC-22)")
    func requestTimeout() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session { $0.requestTimeout = 1 }
            let start = ContinuousClock.now
            let error = await #expect(throws: TransferError.self) {
                _ = try await session.data(for: Fixture.request(origin.url("/stall?bytes=1000")))
            }
            #expect(error?.code == .timedOut)
            #expect(ContinuousClock.now - start < .seconds(10))
        }
    }

    @Test("a per-request timeout overrides the session's (LC-22)")
    func perRequestTimeout() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session { $0.requestTimeout = 60 }
            var request = Fixture.request(origin.url("/delay/5000"))
            request.timeoutInterval = 1
            let error = await #expect(throws: TransferError.self) { _ = try await session.data(for: request) }
            #expect(error?.code == .timedOut)
        }
    }

    @Test("the resource timeout bounds the whole transfer even while bytes keep flowing (SES-19)")
    func resourceTimeout() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session {
                $0.requestTimeout = 30
                $0.resourceTimeout = 1
            }
            let start = ContinuousClock.now
            let error = await #expect(throws: TransferError.self) {
                _ = try await session.data(for: Fixture.request(origin.url("/drip?bytes=200&chunks=200&delay_ms=100")))
            }
            #expect(error?.code == .timedOut)
            // The body takes 20 s; ending well before shows the 1 s bound, with room for a loaded
            // machine (a Thread Sanitizer run next to a build took 8 s).
            #expect(ContinuousClock.now - start < .seconds(15))
        }
    }

    @Test("the connect timeout covers a TLS handshake that never answers")
    func connectTimeout() async throws {
        let silent = try SilentServer()
        defer { silent.close() }
        let session = try Fixture.session {
            $0.connectTimeout = 1
            $0.requestTimeout = 600
        }
        let start = ContinuousClock.now
        let error = await #expect(throws: TransferError.self) {
            _ = try await session.data(for: Fixture.request("https://127.0.0.1:\(silent.port)/"))
        }
        #expect(error?.code == .timedOut)
        // Which timeout fired, not how fast: the idle timeout (600 s) would take ten minutes; a
        // loaded CI machine may stretch the 1 s connect timeout by several seconds, never by minutes.
        #expect(ContinuousClock.now - start < .seconds(120))
    }

    @Test("at most maximumConnectionsPerHost transfers run at once per host (SES-18)")
    func maximumConnectionsPerHost() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session { $0.maximumConnectionsPerHost = 2 }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<6 {
                    group.addTask { _ = try await session.data(for: Fixture.request(origin.url("/delay/200"))) }
                }
                try await group.waitForAll()
            }
            #expect(origin.maxConcurrentRequests == 2)
            #expect(origin.requests.count == 6)
        }
    }

    @Test("parallel transfers to one plain-http host run together, not one after another (SES-18, SES-23)")
    func parallelOverPlainHTTP() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session { $0.maximumConnectionsPerHost = 4 }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        _ = try await session.data(for: Fixture.request(origin.url("/drip?bytes=30&chunks=3&delay_ms=300")))
                    }
                }
                try await group.waitForAll()
            }
            #expect(origin.maxConcurrentRequests == 4)
        }
    }

    @Test("when connections are scarce, higher priority tasks start first (LC-02)")
    func priorityOrdersWaitingTasks() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session { $0.maximumConnectionsPerHost = 1 }
            let blocker = try session.dataTask(with: Fixture.request(origin.url("/delay/300")))
            blocker.resume()
            try await Fixture.eventually("the blocker to reach the server") { origin.requests.count == 1 }
            var waiting: [DataTask] = []
            for (name, priority) in [("low-1", TransferRequest.lowPriority), ("low-2", TransferRequest.lowPriority),
                                     ("high", TransferRequest.highPriority)] {
                var request = Fixture.request(origin.url("/echo?name=\(name)"))
                request.priority = priority
                let task = try session.dataTask(with: request)
                task.resume()
                waiting.append(task)
            }
            for task in [blocker] + waiting { await task.waitUntilCompleted() }
            let order = origin.requests.dropFirst().map(\.uri)
            #expect(order == ["/echo?name=high", "/echo?name=low-1", "/echo?name=low-2"])
        }
    }

    @Test("the maximum redirect count ends a long chain with too_many_redirects (RD-04)")
    func maximumRedirects() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session { $0.maximumRedirects = 3 }
            let error = await #expect(throws: TransferError.self) {
                _ = try await session.data(for: Fixture.request(origin.url("/redirect/5")))
            }
            #expect(error?.code == .tooManyRedirects)
            let (_, response) = try await session.data(for: Fixture.request(origin.url("/redirect/3")))
            #expect(response.statusCode == 200)
        }
    }

    @Test("compressed content is asked for only when enabled")
    func acceptsCompressedContent() async throws {
        try await Fixture.withOrigin { origin in
            let on = try Fixture.session()
            let off = try Fixture.session { $0.acceptsCompressedContent = false }
            let (onData, _) = try await on.data(for: Fixture.request(origin.url("/echo")))
            let (offData, _) = try await off.data(for: Fixture.request(origin.url("/echo")))
            #expect(try Fixture.echo(onData).header("Accept-Encoding")?.contains("gzip") == true)
            #expect(try Fixture.echo(offData).header("Accept-Encoding") == nil)
        }
    }
}

/// The connection policy sees every resolved address before connecting (the gateway's SSRF guard).
@Suite("Connection policy", .timeLimit(.minutes(1)))
struct ConnectionPolicyTests {
    @Test("a refused address fails the task with destination_forbidden, naming the address")
    func refusedAddress() async throws {
        try await Fixture.withOrigin { origin in
            let seen = Locked<[ConnectionAddress]>([])
            let policy = ConnectionPolicy(name: "no loopback") { address in
                seen.withLock { $0.append(address) }
                return address.bytes.first != 127
            }
            let session = try Fixture.session { $0.connectionPolicy = policy }
            let error = await #expect(throws: TransferError.self) {
                _ = try await session.data(for: Fixture.request(origin.url("/bytes/10")))
            }
            #expect(error?.code == .destinationForbidden)
            #expect(error?.message.contains("127.0.0.1:\(origin.port)") == true)
            #expect(origin.requests.isEmpty)
            #expect(seen.withLock { $0 } == [ConnectionAddress(family: .ipv4, bytes: [127, 0, 0, 1], port: origin.port)])
        }
    }

    @Test("a redirect to a refused address is refused at connect time, after an allowed first hop")
    func redirectHopChecked() async throws {
        try await Fixture.withOrigin { allowed in
            try await Fixture.withOrigin { forbidden in
                let forbiddenPort = forbidden.port
                let policy = ConnectionPolicy(name: "not port \(forbiddenPort)") { $0.port != forbiddenPort }
                let session = try Fixture.session { $0.connectionPolicy = policy }
                let target = forbidden.url("/bytes/10")
                let error = await #expect(throws: TransferError.self) {
                    _ = try await session.data(for: Fixture.request(allowed.url("/redirect-to?url=\(target)")))
                }
                #expect(error?.code == .destinationForbidden)
                #expect(allowed.requests.count == 1)
                #expect(forbidden.requests.isEmpty)
            }
        }
    }

    @Test("allowed addresses connect normally, through the policy's socket")
    func allowedAddress() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session { $0.connectionPolicy = ConnectionPolicy(name: "all") { _ in true } }
            let (data, _) = try await session.data(for: Fixture.request(origin.url("/bytes/1000")))
            #expect(data == Fixture.pattern(1000))
        }
    }
}
