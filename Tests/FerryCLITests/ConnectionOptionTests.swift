import Foundation
import Testing
import URLLoadingTestSupport

@Suite("ferry get: connection options", .timeLimit(.minutes(2)))
struct ConnectionOptionTests {
    // PR-01, SES-23: https uses HTTP/2 over ALPN by default; --http1.1 turns HTTP/2 (and so its
    // multiplexing) off. --cacert trusts the test CA in addition to the system store; without it the
    // certificate is refused (ER-01: a clear transport error).
    @Test func http11TurnsOffHTTP2() async throws {
        let certificates = try await TestCertificates.generate()
        defer { certificates.remove() }
        try await CLIFixture.withOrigin(tls: .init(certificates: certificates)) { origin in
            let url = "https://127.0.0.1:\(origin.port)/http-version"
            let http2 = try await FerryProcess.run(["get", url, "--cacert", certificates.caCertificatePath])
            CLIFixture.expectStatus(http2, 0)
            #expect(String(decoding: http2.standardOutput, as: UTF8.self) == "HTTP/2")

            let http1 = try await FerryProcess.run(["get", url, "--cacert", certificates.caCertificatePath, "--http1.1"])
            CLIFixture.expectStatus(http1, 0)
            #expect(String(decoding: http1.standardOutput, as: UTF8.self) == "HTTP/1.1")

            let untrusted = try await FerryProcess.run(["get", url])
            CLIFixture.expectStatus(untrusted, 1)
            #expect(untrusted.standardError.hasPrefix("ferry: \(url): server_certificate_untrusted: "), "\(untrusted.summary)")
        }
    }

    // SES-21, PR-02, PR-03: --proxy http://user:pass@... sends the request through an HTTP proxy,
    // with the credentials as Proxy-Authorization.
    @Test func httpProxyWithCredentials() async throws {
        try await CLIFixture.withOrigin { origin in
            let proxy = try await ForwardProxyServer.start(requiredCredentials: (user: "user", password: "s3cret"))
            do {
                let url = origin.url("/bytes/5000")
                let result = try await FerryProcess.run(["get", url, "--proxy", "http://user:s3cret@127.0.0.1:\(proxy.port)"])
                CLIFixture.expectStatus(result, 0)
                #expect(result.standardOutput == CLIFixture.pattern(5000))
                let request = try #require(proxy.requests.last)
                #expect(request.target == url)
                #expect(request.proxyAuthorization == "Basic " + Data("user:s3cret".utf8).base64EncodedString())
                try await proxy.shutdown()
            } catch {
                try? await proxy.shutdown()
                throw error
            }
        }
    }

    // SES-21, PR-02: --proxy socks5h://... tunnels through SOCKS5, the host name resolved by the proxy.
    @Test func socksProxy() async throws {
        try await CLIFixture.withOrigin { origin in
            let proxy = try await Socks5Server.start()
            do {
                let result = try await FerryProcess.run(["get", origin.url("/bytes/3000"), "--proxy", "socks5h://127.0.0.1:\(proxy.port)"])
                CLIFixture.expectStatus(result, 0)
                #expect(result.standardOutput == CLIFixture.pattern(3000))
                #expect(proxy.connections == ["127.0.0.1:\(origin.port)"])
                try await proxy.shutdown()
            } catch {
                try? await proxy.shutdown()
                throw error
            }
        }
    }

    // SES-21: a proxy that cannot be reached fails the transfer (the origin itself is never tried).
    @Test func unreachableProxyFails() async throws {
        try await CLIFixture.withOrigin { origin in
            let url = origin.url("/bytes/10")
            let result = try await FerryProcess.run(["get", url, "--proxy", "socks5h://127.0.0.1:\(try CLIFixture.closedPort())"])
            CLIFixture.expectStatus(result, 1)
            #expect(result.standardErrorLines.count == 1)
            #expect(result.standardError.hasPrefix("ferry: \(url): "))
            #expect(origin.requests.isEmpty)
        }
    }

    // SES-19, LC-22: the timeouts are accepted and a fast transfer within them succeeds.
    @Test func timeoutsWithinLimits() async throws {
        try await CLIFixture.withOrigin { origin in
            let result = try await FerryProcess.run(["get", origin.url("/bytes/1000"), "--connect-timeout", "5", "--max-time", "30"])
            CLIFixture.expectStatus(result, 0)
            #expect(result.standardOutput == CLIFixture.pattern(1000))
        }
    }
}
