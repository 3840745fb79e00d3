import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// Server trust: challenges through the delegate, built-in policies (extra CAs, public-key pins,
/// per-host certificates, CAs and pins), and default evaluation exactly as curl does it (TLS-01 ...
/// TLS-09, AU-05, AU-07).
@Suite("Server trust", .timeLimit(.minutes(3)))
struct ServerTrustTests {
    /// Runs `body` against an https origin presenting a self-signed certificate (or the test CA's, when
    /// `selfSigned` is false).
    private func withOrigin(
        selfSigned: Bool = true, _ body: (OriginServer, TestCertificates) async throws -> Void
    ) async throws {
        let certificates = try await TestCertificates.generate()
        defer { certificates.remove() }
        let options = OriginServer.TLSOptions(certificates: certificates, selfSigned: selfSigned)
        try await Fixture.withOrigin(tls: options) { origin in try await body(origin, certificates) }
    }

    private func pem(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    private func der(_ path: String) throws -> Data { try #require(PEMCertificates.decode(try pem(path)).first) }

    private func failure(_ session: Session, _ url: String) async -> TransferError? {
        await #expect(throws: TransferError.self) { _ = try await session.data(for: Fixture.request(url)) }
    }

    @Test("TLS-02: a self-signed server is refused by default, with and without a delegate")
    func selfSignedRefusedByDefault() async throws {
        try await withOrigin { origin, _ in
            let plain = try Fixture.session()
            #expect(await failure(plain, origin.url("/bytes/10"))?.code == .serverCertificateUntrusted)

            let delegate = ChallengeAnsweringDelegate()
            let withDelegate = try Fixture.session(delegate: delegate)
            let error = await failure(withDelegate, origin.url("/bytes/10"))
            #expect(error?.code == .serverCertificateUntrusted)
            // Asked once (session level, then task level, which answered default handling); the retry
            // with default evaluation failed and was not asked again.
            #expect(delegate.sessionLevel.count == 1)
            #expect(delegate.taskLevel.count == 1)
            #expect(origin.requests.isEmpty)
        }
    }

    @Test("TLS-01, TLS-06: the challenge names the host and carries the server's chain and why default evaluation refused it")
    func challengeContents() async throws {
        try await withOrigin { origin, certificates in
            let delegate = ChallengeAnsweringDelegate(session: ChallengeAnsweringDelegate.trustServer)
            let session = try Fixture.session(delegate: delegate)
            _ = try await session.data(for: Fixture.request(origin.url("/bytes/10")))
            let challenge = try #require(delegate.sessionLevel.first)
            let space = challenge.protectionSpace
            #expect(space.authenticationMethod == .serverTrust)
            #expect(space.host == "localhost")
            #expect(space.port == origin.port)
            #expect(space.scheme == "https")
            let trust = try #require(space.serverTrust)
            #expect(trust.host == "localhost")
            #expect(trust.certificateChain == [try der(certificates.selfSignedServerCertificatePath)])
            #expect(trust.defaultEvaluationFailure?.contains("self-signed") == true, "\(String(describing: trust.defaultEvaluationFailure))")
            #expect(challenge.error?.code == .serverCertificateUntrusted)
        }
    }

    @Test("TLS-03, TLS-07, TLS-04: the session-level method accepts a self-signed server and wins over the task-level one")
    func sessionLevelAcceptsAndWins() async throws {
        try await withOrigin { origin, _ in
            let delegate = ChallengeAnsweringDelegate(session: ChallengeAnsweringDelegate.trustServer, task: { _ in .cancel })
            let session = try Fixture.session(delegate: delegate)
            let (data, response) = try await session.data(for: Fixture.request(origin.url("/bytes/100")))
            #expect(response.statusCode == 200)
            #expect(data == Fixture.pattern(100))
            #expect(delegate.sessionLevel.count == 1)
            #expect(delegate.taskLevel.isEmpty)
            // The retried handshake is invisible: one request reached the server, one completion the delegate.
            #expect(origin.requests.count == 1)
            try await Fixture.eventually("the completion") { delegate.completions.withLock { $0.count } == 1 }
            #expect(delegate.completions.withLock { $0 }.first! == nil)
        }
    }

    @Test("AU-05: without a session-level answer, the task-level method gets the server-trust challenge")
    func taskLevelWhenSessionPasses() async throws {
        try await withOrigin { origin, _ in
            let delegate = ChallengeAnsweringDelegate(task: { challenge in
                await ChallengeAnsweringDelegate.trustServer(challenge) ?? .cancel
            })
            let session = try Fixture.session(delegate: delegate)
            let (data, _) = try await session.data(for: Fixture.request(origin.url("/bytes/10")))
            #expect(data == Fixture.pattern(10))
            #expect(delegate.sessionLevel.count == 1)
            #expect(delegate.taskLevel.count == 1)
            #expect(delegate.taskLevel.first?.protectionSpace.authenticationMethod == .serverTrust)
        }
    }

    @Test("AU-07: an accepted server stays accepted for the session's next tasks, and only for that session")
    func answerCachedForSession() async throws {
        try await withOrigin { origin, _ in
            // One loop for every session here, so that they share curl's connection cache: another
            // session must not ride on a connection this session's delegate accepted.
            let loops = try CurlLoopGroup(loopCount: 1)
            defer { loops.shutdown() }
            let delegate = ChallengeAnsweringDelegate(session: ChallengeAnsweringDelegate.trustServer)
            // HTTP/1.1, so that "Connection: close" ends a connection (HTTP/2 would multiplex on one).
            let session = try Fixture.session({
                $0.loopGroup = loops
                $0.httpVersion2Enabled = false
            }, delegate: delegate)
            for (size, closes) in [(10, true), (20, true), (30, false)] {
                var request = Fixture.request(origin.url("/bytes/\(size)"))
                if closes { request.headers["Connection"] = "close" }
                let (data, _) = try await session.data(for: request)
                #expect(data == Fixture.pattern(size))
            }
            // At least three connections (each a new handshake), one question.
            #expect(origin.connectionCount >= 3)
            #expect(delegate.sessionLevel.count == 1)

            // Another session's delegate is asked for itself, and a session without one is refused.
            let other = ChallengeAnsweringDelegate(session: { _ in .rejectProtectionSpace })
            let otherSession = try Fixture.session({ $0.loopGroup = loops }, delegate: other)
            #expect(await failure(otherSession, origin.url("/bytes/10"))?.code == .serverCertificateUntrusted)
            #expect(other.sessionLevel.count == 1)
            let plain = try Fixture.session { $0.loopGroup = loops }
            #expect(await failure(plain, origin.url("/bytes/10"))?.code == .serverCertificateUntrusted)
            #expect(origin.requests.count == 3)
        }
    }

    @Test("TLS-07: rejecting fails with server_certificate_untrusted, cancelling with cancelled")
    func rejectAndCancel() async throws {
        try await withOrigin { origin, _ in
            let rejecting = ChallengeAnsweringDelegate(session: { _ in .rejectProtectionSpace })
            let rejected = await failure(try Fixture.session(delegate: rejecting), origin.url("/bytes/10"))
            #expect(rejected?.code == .serverCertificateUntrusted)
            #expect(rejected?.message.contains("rejected the certificate of localhost:\(origin.port)") == true)

            let cancelling = ChallengeAnsweringDelegate(session: { _ in .cancel })
            #expect(await failure(try Fixture.session(delegate: cancelling), origin.url("/bytes/10"))?.code == .cancelled)
            #expect(origin.requests.isEmpty)
        }
    }

    @Test("AU-21: the delegate may take its time; the handshake waits for nothing meanwhile")
    func slowDelegate() async throws {
        try await withOrigin { origin, _ in
            let delegate = ChallengeAnsweringDelegate(session: { challenge in
                try? await Task.sleep(for: .milliseconds(1500))
                return await ChallengeAnsweringDelegate.trustServer(challenge)
            })
            let session = try Fixture.session(delegate: delegate)
            // Another task on the same loops runs while the delegate thinks.
            async let slow = session.data(for: Fixture.request(origin.url("/bytes/10")))
            let plainOrigin = try await OriginServer.start()
            let (quick, _) = try await session.data(for: Fixture.request(plainOrigin.url("/bytes/5")))
            #expect(quick == Fixture.pattern(5))
            #expect(try await slow.0 == Fixture.pattern(10))
            try await plainOrigin.shutdown()
        }
    }

    @Test("TLS-03, TLS-07: a per-host trusted certificate is accepted without a delegate, for that host only, on connections no other session gets")
    func perHostTrust() async throws {
        try await withOrigin { origin, certificates in
            let certificatePEM = try pem(certificates.selfSignedServerCertificatePath)
            let trusting = try Fixture.session {
                $0.trustedServerCertificates = [try! #require(TrustedServerCertificate(host: "localhost", certificatePEM: certificatePEM))]
            }
            let (data, _) = try await trusting.data(for: Fixture.request(origin.url("/bytes/10")))
            #expect(data == Fixture.pattern(10))

            // Another session trusts another certificate for the same host (another tenant's vault): both
            // decide trust themselves, so their TLS options compare equal for curl, whose pool serves
            // every session of the loop. The idle connection must not carry this one's request.
            let trustingAnother = try Fixture.session {
                $0.trustedServerCertificates = [try! #require(TrustedServerCertificate(host: "localhost", certificatePEM: certificates.serverCertificatePEM))]
            }
            #expect(await failure(trustingAnother, origin.url("/bytes/10"))?.code == .serverCertificateUntrusted)

            // And one that asks its delegate gets its own handshake, and so its own question.
            let delegate = ChallengeAnsweringDelegate()
            let defaultHandling = try Fixture.session(delegate: delegate)
            #expect(await failure(defaultHandling, origin.url("/bytes/10"))?.code == .serverCertificateUntrusted)
            #expect(delegate.sessionLevel.count == 1)

            let otherHost = try Fixture.session {
                $0.trustedServerCertificates = [try! #require(TrustedServerCertificate(host: "127.0.0.1", certificatePEM: certificatePEM))]
            }
            #expect(await failure(otherHost, origin.url("/bytes/10"))?.code == .serverCertificateUntrusted)

            let otherPort = try Fixture.session {
                $0.trustedServerCertificates = [TrustedServerCertificate(
                    host: "localhost", port: origin.port + 1, certificate: try! der(certificates.selfSignedServerCertificatePath))]
            }
            #expect(await failure(otherPort, origin.url("/bytes/10"))?.code == .serverCertificateUntrusted)
        }
    }

    @Test("TLS-02: extra CAs are trusted; with a delegate, default handling accepts what they make valid")
    func extraCertificateAuthorities() async throws {
        try await withOrigin(selfSigned: false) { origin, certificates in
            let configure: (inout SessionConfiguration) -> Void = { $0.additionalTrustedCAsPEM = certificates.caCertificatePEM }
            let (data, _) = try await Fixture.session(configure).data(for: Fixture.request(origin.url("/bytes/10")))
            #expect(data == Fixture.pattern(10))

            let delegate = ChallengeAnsweringDelegate()
            let (delegated, _) = try await Fixture.session(configure, delegate: delegate).data(for: Fixture.request(origin.url("/bytes/10")))
            #expect(delegated == Fixture.pattern(10))
            let trust = try #require(delegate.sessionLevel.first?.protectionSpace.serverTrust)
            #expect(trust.defaultEvaluationFailure == nil)
            #expect(trust.certificateChain.first == (try der(certificates.serverCertificatePath)))
        }
    }

    @Test("TLS-08, TLS-09: a matching pin passes, a wrong one fails, and no pin makes an untrusted chain trusted")
    func publicKeyPins() async throws {
        try await withOrigin(selfSigned: false) { origin, certificates in
            let pin = try #require(PublicKeyPin.sha256(ofCertificate: try der(certificates.serverCertificatePath)))
            let otherPin = try #require(PublicKeyPin.sha256(ofCertificate: try der(certificates.clientCertificatePath)))
            #expect(pin != otherPin)
            #expect(pin == (try await certificates.publicKeyPin(ofCertificateAt: certificates.serverCertificatePath)))
            let url = origin.url("/bytes/10")

            let matching = try Fixture.session {
                $0.additionalTrustedCAsPEM = certificates.caCertificatePEM
                $0.pinnedPublicKeys = [otherPin, pin]
            }
            #expect(try await matching.data(for: Fixture.request(url)).0 == Fixture.pattern(10))

            let wrong = try Fixture.session {
                $0.additionalTrustedCAsPEM = certificates.caCertificatePEM
                $0.pinnedPublicKeys = [otherPin]
            }
            #expect(await failure(wrong, url)?.code == .serverCertificateUntrusted)

            // The right pin alone: the chain is not trusted, so the pin does not help.
            let untrusted = try Fixture.session { $0.pinnedPublicKeys = [pin] }
            #expect(await failure(untrusted, url)?.code == .serverCertificateUntrusted)

            // Even a delegate's acceptance does not loosen a pin.
            let delegate = ChallengeAnsweringDelegate(session: ChallengeAnsweringDelegate.trustServer)
            let accepting = try Fixture.session({ $0.pinnedPublicKeys = [otherPin] }, delegate: delegate)
            #expect(await failure(accepting, url)?.code == .serverCertificateUntrusted)
        }
    }

    @Test("TLS-08: a per-host trusted self-signed certificate passes its pin, and fails a wrong one")
    func pinsOnTrustedSelfSigned() async throws {
        try await withOrigin { origin, certificates in
            let certificate = try der(certificates.selfSignedServerCertificatePath)
            let pin = try #require(PublicKeyPin.sha256(ofCertificate: certificate))
            let trusted = TrustedServerCertificate(host: "localhost", certificate: certificate)
            let pinned = try Fixture.session {
                $0.trustedServerCertificates = [trusted]
                $0.pinnedPublicKeys = [pin]
            }
            #expect(try await pinned.data(for: Fixture.request(origin.url("/bytes/10"))).0 == Fixture.pattern(10))

            let wrongPin = try #require(PublicKeyPin.sha256(ofCertificate: try der(certificates.caCertificatePath)))
            let mispinned = try Fixture.session {
                $0.trustedServerCertificates = [trusted]
                $0.pinnedPublicKeys = [wrongPin]
            }
            #expect(await failure(mispinned, origin.url("/bytes/10"))?.code == .serverCertificateUntrusted)
        }
    }

    @Test("TLS-02: a per-host CA makes its host's chain trusted, for that host and port only, hop by hop")
    func perHostCertificateAuthority() async throws {
        try await withOrigin(selfSigned: false) { origin, certificates in
            let byName = origin.url("/bytes/10")
            let byAddress = byName.replacingOccurrences(of: "localhost", with: "127.0.0.1")
            let authority = try #require(HostTrustedCA(host: "LOCALHOST", port: origin.port, certificatesPEM: certificates.caCertificatePEM))
            let trusting = try Fixture.session { $0.hostTrustedCAs = [authority] }
            #expect(try await trusting.data(for: Fixture.request(byName)).0 == Fixture.pattern(10))
            #expect(await failure(trusting, byAddress)?.code == .serverCertificateUntrusted)
            // A redirect to another host does not take the CA along.
            let redirect = origin.url("/redirect-to?url=\(byAddress)")
            #expect(await failure(trusting, redirect)?.code == .serverCertificateUntrusted)
            #expect(origin.requests.map(\.path) == ["/bytes/10", "/redirect-to"])

            let otherPort = try Fixture.session {
                $0.hostTrustedCAs = [try! #require(HostTrustedCA(host: "localhost", port: origin.port + 1, certificatesPEM: certificates.caCertificatePEM))]
            }
            #expect(await failure(otherPort, byName)?.code == .serverCertificateUntrusted)
            #expect(HostTrustedCA(host: "localhost", certificatesPEM: "not a certificate") == nil)
        }
    }

    @Test("TLS-08: per-host pins hold for their host only: a redirect to another host is not pinned, and a mismatch says so")
    func perHostPins() async throws {
        try await withOrigin(selfSigned: false) { origin, certificates in
            let pin = try await certificates.publicKeyPin(ofCertificateAt: certificates.serverCertificatePath)
            let wrongPin = try await certificates.publicKeyPin(ofCertificateAt: certificates.caCertificatePath)
            let byName = origin.url("/bytes/10")
            let byAddress = byName.replacingOccurrences(of: "localhost", with: "127.0.0.1")
            let pinned = { (pins: Set<String>, session: [String]) in
                try Fixture.session {
                    $0.additionalTrustedCAsPEM = certificates.caCertificatePEM
                    $0.pinnedPublicKeys = session
                    $0.hostPinnedPublicKeys = [HostPinnedPublicKeys(host: "127.0.0.1", port: origin.port, pins: pins)]
                }
            }
            let mispinned = try pinned([wrongPin], [])
            #expect(try await mispinned.data(for: Fixture.request(byName)).0 == Fixture.pattern(10))
            let error = await failure(mispinned, byAddress)
            #expect(error?.code == .serverCertificateUntrusted)
            #expect(error?.message.contains("matches none of the pinned public keys") == true, "\(String(describing: error))")
            // Hop by hop: the first hop (localhost) is not pinned, the second (127.0.0.1) is.
            #expect(await failure(mispinned, origin.url("/redirect-to?url=\(byAddress)"))?.code == .serverCertificateUntrusted)

            let rightlyPinned = try pinned([wrongPin, pin], [])
            #expect(try await rightlyPinned.data(for: Fixture.request(origin.url("/redirect-to?url=\(byAddress)"))).0 == Fixture.pattern(10))
            // With session-wide pins as well, the key must satisfy both.
            #expect(try await pinned([pin], [pin, wrongPin]).data(for: Fixture.request(byAddress)).0 == Fixture.pattern(10))
            let disjoint = await failure(try pinned([pin], [wrongPin]), byAddress)
            #expect(disjoint?.message.contains("both the session's pins and the pins for 127.0.0.1:\(origin.port)") == true,
                    "\(String(describing: disjoint))")
            #expect(throws: ConfigurationError.self) { try pinned(["sha256//short"], []) }
        }
    }

    @Test("TLS-08, TLS-02: a connection made without a host's pin or CA is not reused for a session that has them, nor the other way")
    func perHostSettingsAndConnectionReuse() async throws {
        try await withOrigin(selfSigned: false) { origin, certificates in
            let loops = try CurlLoopGroup(loopCount: 1)
            defer { loops.shutdown() }
            let wrongPin = try await certificates.publicKeyPin(ofCertificateAt: certificates.caCertificatePath)
            let url = origin.url("/bytes/10")
            let unpinned = try Fixture.session {
                $0.loopGroup = loops
                $0.additionalTrustedCAsPEM = certificates.caCertificatePEM
            }
            #expect(try await unpinned.data(for: Fixture.request(url)).0 == Fixture.pattern(10))
            // Equal settings do share the connection, so what follows is a real test of reuse.
            #expect(try await Session(configuration: unpinned.configuration).data(for: Fixture.request(url)).0 == Fixture.pattern(10))
            #expect(origin.connectionCount == 1)
            let mispinned = try Fixture.session {
                $0.loopGroup = loops
                $0.additionalTrustedCAsPEM = certificates.caCertificatePEM
                $0.hostPinnedPublicKeys = [HostPinnedPublicKeys(host: "localhost", pins: [wrongPin])]
            }
            #expect(await failure(mispinned, url)?.code == .serverCertificateUntrusted)

            let trusting = try Fixture.session {
                $0.loopGroup = loops
                $0.hostTrustedCAs = [try! #require(HostTrustedCA(host: "localhost", certificatesPEM: certificates.caCertificatePEM))]
            }
            #expect(try await trusting.data(for: Fixture.request(url)).0 == Fixture.pattern(10))
            let plain = try Fixture.session { $0.loopGroup = loops }
            #expect(await failure(plain, url)?.code == .serverCertificateUntrusted)
        }
    }

    @Test("TLS-09: a malformed pin is a configuration error")
    func malformedPin() {
        #expect(throws: ConfigurationError.self) { try Fixture.session { $0.pinnedPublicKeys = ["sha256//not-base64"] } }
        #expect(throws: ConfigurationError.self) { try Fixture.session { $0.pinnedPublicKeys = ["md5//AAAA"] } }
    }

    @Test("TLS-12, SES-20: a minimum of TLS 1.3 against a TLS 1.2-only server fails, naming the versions")
    func versionMismatchMessage() async throws {
        let certificates = try await TestCertificates.generate()
        defer { certificates.remove() }
        let options = OriginServer.TLSOptions(certificates: certificates, maximumTLSVersion: .tls12)
        try await Fixture.withOrigin(tls: options) { origin in
            let session = try Fixture.session {
                $0.additionalTrustedCAsPEM = certificates.caCertificatePEM
                $0.tlsMinimumVersion = .tls13
            }
            let error = await failure(session, origin.url("/tls-info"))
            #expect(error?.code == .secureConnectionFailed)
            #expect(error?.message.contains("TLS 1.3") == true, "\(String(describing: error))")
        }
    }
}
