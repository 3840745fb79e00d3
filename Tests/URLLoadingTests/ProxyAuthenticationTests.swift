import Crypto
import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// Challenges through proxies and tunnels, across redirects, and bodies sent again after a 401.
@Suite("Authentication through proxies, redirects and bodies", .timeLimit(.minutes(2)))
struct ProxyAuthenticationTests {
    // MARK: proxies, redirects, bodies

    @Test("a proxy's 407 is a proxy challenge answered with Proxy-Authorization (AU-04, AU-12)")
    func proxyChallenge() async throws {
        try await Fixture.withOrigin { origin in
            let proxy = try await ForwardProxyServer.start(requiredCredentials: (user: "fer", password: "ry pass"))
            defer { Task { try? await proxy.shutdown() } }
            let port = proxy.port
            let delegate = ChallengeDelegate(always: Credential(user: "fer", password: "ry pass", persistence: .none))
            let session = try Credentials.session(delegate: delegate) {
                $0.proxy = .init(kind: .http, host: "127.0.0.1", port: port)
            }
            let (data, response) = try await session.data(for: Fixture.request(origin.url("/bytes/1000")))
            #expect(response.statusCode == 200)
            #expect(data == Fixture.pattern(1000))
            let space = try #require(delegate.challenges.first?.protectionSpace)
            #expect(space == ProtectionSpace(host: "127.0.0.1", port: port, scheme: "http", realm: "ferry-proxy",
                                             authenticationMethod: .httpBasic, isProxy: true))
            #expect(delegate.challenges.first?.failureResponse?.statusCode == 407)
            #expect(proxy.requests.last?.proxyAuthorization == "Basic " + Data("fer:ry pass".utf8).base64EncodedString())
        }
    }

    @Test("an https request's CONNECT refused with 407 is a proxy challenge; the answer goes on the CONNECT only (AU-04, AU-12, AU-19)")
    func proxyChallengeOnTunnel() async throws {
        let certificates = try await TestCertificates.generate()
        defer { certificates.remove() }
        try await Fixture.withOrigin(tls: OriginServer.TLSOptions(certificates: certificates)) { origin in
            let proxy = try await ForwardProxyServer.start(requiredCredentials: (user: "fer", password: "ry pass"))
            defer { Task { try? await proxy.shutdown() } }
            let port = proxy.port
            // A wrong password first: asked again with the failure counted and the rejected credential proposed.
            let wrong = Credential(user: "fer", password: "wrong", persistence: .none)
            let right = Credential(user: "fer", password: "ry pass", persistence: .none)
            let delegate = ChallengeDelegate { challenge in
                // The server-trust challenge of the TLS handshake inside the tunnel takes default evaluation.
                guard challenge.protectionSpace.isProxy else { return .performDefaultHandling }
                return .useCredential(challenge.previousFailureCount == 0 ? wrong : right)
            }
            let session = try Credentials.session(delegate: delegate) {
                $0.proxy = .init(kind: .http, host: "127.0.0.1", port: port)
                $0.additionalTrustedCAsPEM = certificates.caCertificatePEM
            }
            let (data, response) = try await session.data(for: Fixture.request(origin.url("/echo")))
            #expect(response.statusCode == 200)
            let challenges = delegate.challenges.filter(\.protectionSpace.isProxy)
            #expect(challenges.count == 2)
            #expect(challenges.first?.protectionSpace == ProtectionSpace(
                host: "127.0.0.1", port: port, scheme: "http", realm: "ferry-proxy", authenticationMethod: .httpBasic, isProxy: true))
            #expect(challenges.first?.failureResponse?.statusCode == 407)
            #expect(challenges.map(\.previousFailureCount) == [0, 1])
            #expect(challenges.last?.proposedCredential == wrong)
            // Without a credential, with the wrong one, then the right one (and again for the handshake's
            // server-trust question, which runs the hop once more).
            let connects = proxy.requests.filter { $0.method == "CONNECT" }
            #expect(connects.first?.proxyAuthorization == nil)
            #expect(connects.count >= 3)
            #expect(connects.last?.proxyAuthorization == "Basic " + Data("fer:ry pass".utf8).base64EncodedString())
            // Inside the tunnel, the origin server never sees the proxy's credential.
            #expect(try Fixture.echo(data).header("Proxy-Authorization") == nil)
        }
    }

    @Test("Digest proxy authentication, for plain http and on a tunnel's CONNECT (AU-04, AU-09, AU-12)",
          arguments: [false, true])
    func digestProxyChallenge(tunnel: Bool) async throws {
        let certificates = try await TestCertificates.generate()
        defer { certificates.remove() }
        let tls = tunnel ? OriginServer.TLSOptions(certificates: certificates) : nil
        try await Fixture.withOrigin(tls: tls) { origin in
            let proxy = try await ForwardProxyServer.start(requiredCredentials: (user: "fer", password: "ry pass"), digest: true)
            defer { Task { try? await proxy.shutdown() } }
            let port = proxy.port
            let delegate = ChallengeDelegate { challenge in
                guard challenge.protectionSpace.isProxy else { return .performDefaultHandling }
                return .useCredential(Credential(user: "fer", password: "ry pass", persistence: .none))
            }
            let session = try Credentials.session(delegate: delegate) {
                $0.proxy = .init(kind: .http, host: "127.0.0.1", port: port)
                $0.additionalTrustedCAsPEM = certificates.caCertificatePEM
            }
            let (data, response) = try await session.data(for: Fixture.request(origin.url("/bytes/1000")))
            #expect(response.statusCode == 200)
            #expect(data == Fixture.pattern(1000))
            let space = try #require(delegate.challenges.first(where: \.protectionSpace.isProxy)?.protectionSpace)
            #expect(space.authenticationMethod == .httpDigest)
            #expect(space.realm == "ferry-proxy")
            let last = try #require(proxy.requests.last)
            #expect(last.method == (tunnel ? "CONNECT" : "GET"))
            #expect(last.proxyAuthorization?.hasPrefix("Digest ") == true)
        }
    }

    /// Runs `body` against an https origin (trusted through the test CA) and a proxy that wants
    /// fer / "ry pass", with what a session needs to reach the one through the other.
    private func withProxiedTLSOrigin(
        _ body: (OriginServer, @escaping @Sendable (inout SessionConfiguration) -> Void) async throws -> Void
    ) async throws {
        let certificates = try await TestCertificates.generate()
        defer { certificates.remove() }
        try await Fixture.withOrigin(tls: OriginServer.TLSOptions(certificates: certificates)) { origin in
            let proxy = try await ForwardProxyServer.start(requiredCredentials: (user: "fer", password: "ry pass"))
            defer { Task { try? await proxy.shutdown() } }
            let (port, ca) = (proxy.port, certificates.caCertificatePEM)
            try await body(origin) {
                $0.proxy = .init(kind: .http, host: "127.0.0.1", port: port)
                $0.additionalTrustedCAsPEM = ca
            }
        }
    }

    @Test("an unanswered 407 on a tunnel's CONNECT is the task's response; a wrong credential ends at the cap (AU-13, AU-20)")
    func proxyChallengeOnTunnelUnanswered() async throws {
        try await withProxiedTLSOrigin { origin, proxied in
            let configure: (inout SessionConfiguration) -> Void = {
                proxied(&$0)
                $0.maximumAuthenticationFailures = 3
            }
            let declining = try Credentials.session(delegate: ChallengeDelegate { _ in .continueWithoutCredential }, configure)
            let (data, response) = try await declining.data(for: Fixture.request(origin.url("/echo")))
            #expect(response.statusCode == 407)
            #expect(response.headers["Proxy-Authenticate"] == "Basic realm=\"ferry-proxy\"")
            #expect(data.isEmpty)

            let stubborn = try Credentials.session(
                delegate: ChallengeDelegate(always: Credential(user: "fer", password: "wrong", persistence: .none)), configure)
            let error = await #expect(throws: TransferError.self) {
                _ = try await stubborn.data(for: Fixture.request(origin.url("/echo")))
            }
            #expect(error?.code == .userAuthenticationRequired)
            #expect(error?.message.contains("3") == true)
        }
    }

    @Test("a tunnel opened with one session's proxy credential never carries another session's request (AU-04, AU-12)")
    func authenticatedTunnelIsNotReused() async throws {
        try await withProxiedTLSOrigin { origin, configure in
            // curl pools connections per loop, whatever session made them, and the proxy's credential
            // travels in a header of ours that curl does not compare: without care, the idle tunnel
            // the first session authenticated would serve the second, credential-less one.
            let owner = try Credentials.session(
                delegate: ChallengeDelegate(always: Credential(user: "fer", password: "ry pass", persistence: .none)), configure)
            let (_, allowed) = try await owner.data(for: Fixture.request(origin.url("/echo")))
            #expect(allowed.statusCode == 200)

            let stranger = try Credentials.session(delegate: ChallengeDelegate { _ in .continueWithoutCredential }, configure)
            let (_, refused) = try await stranger.data(for: Fixture.request(origin.url("/echo")))
            #expect(refused.statusCode == 407, "the second session rode the first one's authenticated tunnel")
        }
    }

    @Test("the credential never follows a redirect to another host (AU-12, RD)")
    func noAuthorizationAcrossHosts() async throws {
        try await Fixture.withOrigin { origin in
            let delegate = ChallengeDelegate(always: Credentials.good)
            let session = try Credentials.session(delegate: delegate)
            let elsewhere = "http://localhost:\(origin.port)/echo"
            let target = origin.url("/protected/r?redirect=\(elsewhere.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
            let (data, response) = try await session.data(for: Fixture.request(target))
            #expect(response.statusCode == 200)
            #expect(response.url.host == "localhost")
            #expect(try Fixture.echo(data).header("Authorization") == nil)
        }
    }

    @Test("a Data body and a file body are sent again after a 401, without asking for a stream (AU-25, UP-05, UP-06)")
    func dataAndFileBodiesResent() async throws {
        try await Fixture.withOrigin { origin in
            let delegate = ChallengeDelegate(always: Credentials.good)
            let session = try Credentials.session(delegate: delegate)
            let body = Fixture.pattern(200_000)
            let (data, response) = try await session.upload(
                for: Fixture.request(origin.url("/protected/u"), method: "PUT"), from: .data(body))
            #expect(response.statusCode == 200)
            #expect(try Fixture.echo(data).body_fnv1a64 == OriginServer.fnv1a64Hex(body))

            let directory = try TemporaryDirectory()
            let file = directory.url.appendingPathComponent("body.bin")
            try body.write(to: file)
            let (fileData, _) = try await session.upload(
                for: Fixture.request(origin.url("/protected/f"), method: "POST"), from: .file(file))
            #expect(try Fixture.echo(fileData).body_fnv1a64 == OriginServer.fnv1a64Hex(body))
            #expect(delegate.newStreamRequests.withLock { $0 } == 0)
        }
    }

    @Test("a stream body is asked for again after a 401 and sent whole (AU-25, UP-05)")
    func streamBodyResent() async throws {
        try await Fixture.withOrigin { origin in
            let body = Fixture.pattern(150_000)
            let makeStream: @Sendable () -> UploadBody.Stream = {
                UploadBody.Stream(AsyncStream<Data> { continuation in
                    continuation.yield(body.prefix(70_000))
                    continuation.yield(body.suffix(from: 70_000))
                    continuation.finish()
                })
            }
            let delegate = ChallengeDelegate(newStream: makeStream) { _ in .useCredential(Credentials.good) }
            let session = try Credentials.session(delegate: delegate)
            let (data, response) = try await session.upload(
                for: Fixture.request(origin.url("/protected/s"), method: "POST"), from: .stream(makeStream()))
            #expect(response.statusCode == 200)
            #expect(delegate.newStreamRequests.withLock { $0 } == 1)
            let echo = try Fixture.echo(data)
            #expect(echo.body_length == body.count)
            #expect(echo.body_fnv1a64 == OriginServer.fnv1a64Hex(body))

            // Without a new stream the task fails rather than send a partial body.
            let noStream = try Credentials.session(delegate: ChallengeDelegate { _ in .useCredential(Credentials.good) })
            let error = await #expect(throws: TransferError.self) {
                _ = try await noStream.upload(for: Fixture.request(origin.url("/protected/s"), method: "POST"), from: .stream(makeStream()))
            }
            #expect(error?.code == .cannotReadUploadBody)
        }
    }
}
