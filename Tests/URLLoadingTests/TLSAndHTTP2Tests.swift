import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// https with HTTP/2 over ALPN, TLS version bounds (SES-20, TLS-12) and multiplexing (SES-23).
@Suite("TLS and HTTP/2", .timeLimit(.minutes(2)))
struct TLSAndHTTP2Tests {
    private func withTLSOrigin(
        http2: Bool = true, minimum: TLSProtocolVersion? = nil, maximum: TLSProtocolVersion? = nil,
        _ body: (OriginServer, TestCertificates) async throws -> Void
    ) async throws {
        let certificates = try await TestCertificates.generate()
        defer { certificates.remove() }
        let options = OriginServer.TLSOptions(
            certificates: certificates, http2: http2, minimumTLSVersion: minimum, maximumTLSVersion: maximum)
        try await Fixture.withOrigin(tls: options) { origin in try await body(origin, certificates) }
    }

    @Test("https negotiates HTTP/2 by ALPN, and HTTP/1.1 when HTTP/2 is off")
    func http2ByALPN() async throws {
        try await withTLSOrigin { origin, certificates in
            let on = try Fixture.session { $0.additionalTrustedCAsPEM = certificates.caCertificatePEM }
            let (data, response) = try await on.data(for: Fixture.request(origin.url("/http-version")))
            #expect(String(decoding: data, as: UTF8.self) == "HTTP/2")
            #expect(response.httpVersion == "HTTP/2")

            let off = try Fixture.session {
                $0.additionalTrustedCAsPEM = certificates.caCertificatePEM
                $0.httpVersion2Enabled = false
            }
            let (offData, offResponse) = try await off.data(for: Fixture.request(origin.url("/http-version")))
            #expect(String(decoding: offData, as: UTF8.self) == "HTTP/1.1")
            #expect(offResponse.httpVersion == "HTTP/1.1")
        }
    }

    @Test("HTTP/2 multiplexes concurrent requests over one connection, on one loop of however many (SES-23)", arguments: [1, 2])
    func multiplexing(loopCount: Int) async throws {
        try await withTLSOrigin { origin, certificates in
            let loops = try CurlLoopGroup(loopCount: loopCount)
            defer { loops.shutdown() }
            let session = try Fixture.session {
                $0.additionalTrustedCAsPEM = certificates.caCertificatePEM
                $0.maximumConnectionsPerHost = 8
                $0.loopGroup = loops
            }
            try await withThrowingTaskGroup(of: Data.self) { group in
                for _ in 0..<8 { group.addTask { try await session.data(for: Fixture.request(origin.url("/delay/200"))).0 } }
                for try await data in group { #expect(String(decoding: data, as: UTF8.self) == "delayed") }
            }
            #expect(origin.connectionCount == 1)
            #expect(origin.maxConcurrentRequests > 1)
            #expect(loops.loops.map { $0.hopsStarted.load(ordering: .relaxed) }.filter { $0 > 0 } == [8], "all on the host's loop")
        }
    }

    @Test("with multiplexing off, concurrent requests do not wait to share one connection (SES-23)")
    func multiplexingOff() async throws {
        try await withTLSOrigin { origin, certificates in
            let loops = try CurlLoopGroup(loopCount: 1)
            defer { loops.shutdown() }
            let session = try Fixture.session {
                $0.additionalTrustedCAsPEM = certificates.caCertificatePEM
                $0.maximumConnectionsPerHost = 4
                $0.httpShouldUsePipelining = false
                $0.loopGroup = loops
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 { group.addTask { _ = try await session.data(for: Fixture.request(origin.url("/delay/300"))) } }
                try await group.waitForAll()
            }
            #expect(origin.connectionCount > 1)
        }
    }

    @Test("an untrusted server certificate fails with server_certificate_untrusted")
    func untrustedCertificate() async throws {
        try await withTLSOrigin { origin, _ in
            let session = try Fixture.session()
            let error = await #expect(throws: TransferError.self) {
                _ = try await session.data(for: Fixture.request(origin.url("/http-version")))
            }
            #expect(error?.code == .serverCertificateUntrusted)
        }
    }

    @Test("a minimum of TLS 1.3 against a TLS 1.2-only server fails clearly (SES-20, TLS-12)")
    func minimumVersionEnforced() async throws {
        try await withTLSOrigin(maximum: .tls12) { origin, certificates in
            let session = try Fixture.session {
                $0.additionalTrustedCAsPEM = certificates.caCertificatePEM
                $0.tlsMinimumVersion = .tls13
            }
            let error = await #expect(throws: TransferError.self) {
                _ = try await session.data(for: Fixture.request(origin.url("/tls-info")))
            }
            #expect(error?.code == .secureConnectionFailed)
        }
    }

    @Test("a maximum of TLS 1.2 is what the server sees (SES-20, TLS-12)")
    func maximumVersionEnforced() async throws {
        try await withTLSOrigin { origin, certificates in
            let capped = try Fixture.session {
                $0.additionalTrustedCAsPEM = certificates.caCertificatePEM
                $0.tlsMaximumVersion = .tls12
            }
            let (data, _) = try await capped.data(for: Fixture.request(origin.url("/tls-info")))
            #expect(String(decoding: data, as: UTF8.self).contains("TLSv1.2"))

            let open = try Fixture.session { $0.additionalTrustedCAsPEM = certificates.caCertificatePEM }
            let (openData, _) = try await open.data(for: Fixture.request(origin.url("/tls-info")))
            #expect(String(decoding: openData, as: UTF8.self).contains("TLSv1.3"))
        }
    }
}

/// HTTP and SOCKS5 proxies, with credentials (SES-21, PR-02, PR-03).
@Suite("Proxies", .timeLimit(.minutes(2)))
struct ProxyTests {
    @Test("an HTTP proxy carries plain requests, with Basic proxy credentials")
    func httpProxy() async throws {
        try await Fixture.withOrigin { origin in
            let proxy = try await ForwardProxyServer.start(requiredCredentials: (user: "fer", password: "ry pass"))
            defer { Task { try? await proxy.shutdown() } }
            let port = proxy.port
            let session = try Fixture.session {
                $0.proxy = .init(kind: .http, host: "127.0.0.1", port: port, username: "fer", password: "ry pass")
            }
            let (data, response) = try await session.data(for: Fixture.request(origin.url("/bytes/1000")))
            #expect(response.statusCode == 200)
            #expect(data == Fixture.pattern(1000))
            let seen = try #require(proxy.requests.last)
            #expect(seen.target == origin.url("/bytes/1000"))
            #expect(seen.proxyAuthorization == "Basic " + Data("fer:ry pass".utf8).base64EncodedString())

            let anonymous = try Fixture.session { $0.proxy = .init(kind: .http, host: "127.0.0.1", port: port) }
            let (_, refused) = try await anonymous.data(for: Fixture.request(origin.url("/bytes/10")))
            #expect(refused.statusCode == 407)
        }
    }

    @Test("a proxy URL parses into a configuration")
    func proxyURL() throws {
        let proxy = SessionConfiguration.Proxy(url: "socks5h://user:p%40ss@127.0.0.1:1081")
        #expect(proxy == .init(kind: .socks5, host: "127.0.0.1", port: 1081, username: "user", password: "p@ss"))
        #expect(SessionConfiguration.Proxy(url: "127.0.0.1:3128")?.kind == .http)
        #expect(SessionConfiguration.Proxy(url: "ftp://127.0.0.1:21") == nil)
        // An IPv6 literal: the bare address, bracketed once in the URL curl gets (SES-21).
        let v6 = try #require(SessionConfiguration.Proxy(url: "http://[::1]:3128"))
        #expect(v6.host == "::1")
        #expect(CurlRequestOptions.proxyURL(v6) == "http://[::1]:3128")
        #expect(SessionConfiguration.Proxy(url: "socks5://[fd00::2]").map(CurlRequestOptions.proxyURL) == "socks5h://[fd00::2]:1080")
        // A port that is not a TCP port is no proxy, not the default port: URLComponents reads one
        // too large for an Int as none.
        for bad in ["http://127.0.0.1:99999", "127.0.0.1:0", "http://[::1]:65536", "socks5h://h:99999999999999999999"] {
            #expect(SessionConfiguration.Proxy(url: bad) == nil, "\(bad)")
        }
        #expect(SessionConfiguration.Proxy(url: "http://127.0.0.1:65535")?.port == 65535)
    }

    @Test("a SOCKS5 proxy with username and password carries the connection")
    func socks5Proxy() async throws {
        try await Fixture.withOrigin { origin in
            let socks = try await Socks5Server.start(requiredCredentials: (user: "sock", password: "secret"))
            defer { Task { try? await socks.shutdown() } }
            let port = socks.port
            let session = try Fixture.session {
                $0.proxy = .init(kind: .socks5, host: "127.0.0.1", port: port, username: "sock", password: "secret")
            }
            let (data, _) = try await session.data(for: Fixture.request(origin.url("/bytes/2048")))
            #expect(data == Fixture.pattern(2048))
            #expect(socks.connections.contains("127.0.0.1:\(origin.port)"))

            let wrong = try Fixture.session {
                $0.proxy = .init(kind: .socks5, host: "127.0.0.1", port: port, username: "sock", password: "wrong")
            }
            let error = await #expect(throws: TransferError.self) {
                _ = try await wrong.data(for: Fixture.request(origin.url("/bytes/1")))
            }
            #expect(error != nil)
        }
    }
}
