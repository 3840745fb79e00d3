import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// Mutual TLS: a configured identity (PEM or PKCS#12), or one a client-certificate challenge supplies;
/// a server that refuses the certificate (TLS-11, AU-05, AU-07, AU-17).
@Suite("Client certificates", .timeLimit(.minutes(3)))
struct ClientCertificateTests {
    /// Runs `body` against an https origin that requires a client certificate signed by the test CA.
    private func withMutualTLSOrigin(
        maximum: TLSProtocolVersion? = nil, _ body: (OriginServer, TestCertificates) async throws -> Void
    ) async throws {
        let certificates = try await TestCertificates.generate()
        defer { certificates.remove() }
        let options = OriginServer.TLSOptions(certificates: certificates, maximumTLSVersion: maximum, requireClientCertificate: true)
        try await Fixture.withOrigin(tls: options) { origin in try await body(origin, certificates) }
    }

    private func file(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    private func pemIdentity(_ certificates: TestCertificates) throws -> ClientIdentity {
        .pem(certificate: try file(certificates.clientCertificatePath), privateKey: try file(certificates.clientKeyPath), passphrase: nil)
    }

    private func session(
        _ certificates: TestCertificates, identity: ClientIdentity? = nil, delegate: (any SessionDelegate)? = nil
    ) throws -> Session {
        try Fixture.session({
            $0.additionalTrustedCAsPEM = certificates.caCertificatePEM
            $0.clientIdentity = identity
        }, delegate: delegate)
    }

    /// `identity` for a client-certificate challenge; nil (pass it on) for any other.
    private static func answer(_ challenge: AuthenticationChallenge, with identity: ClientIdentity) -> ChallengeDisposition? {
        challenge.protectionSpace.authenticationMethod == .clientCertificate ? .useCredential(Credential(.identity(identity))) : nil
    }

    private func failure(_ session: Session, _ url: String) async -> TransferError? {
        await #expect(throws: TransferError.self) { _ = try await session.data(for: Fixture.request(url)) }
    }

    @Test("TLS-11, AU-17: a configured PEM identity passes a server that requires a client certificate; none fails clearly")
    func pemIdentity() async throws {
        try await withMutualTLSOrigin { origin, certificates in
            let session = try session(certificates, identity: try pemIdentity(certificates))
            let (data, response) = try await session.data(for: Fixture.request(origin.url("/bytes/100")))
            #expect(response.statusCode == 200)
            #expect(data == Fixture.pattern(100))

            // Without a certificate (and no delegate to ask) the server's "certificate required" is reported.
            let none = await failure(try self.session(certificates), origin.url("/bytes/10"))
            #expect(none?.code == .clientCertificateRejected, "\(String(describing: none))")
            #expect(none?.message == "the server requires a client certificate and none was presented")
        }
    }

    @Test("TLS-11, AU-17: a configured PKCS#12 identity with its passphrase passes too")
    func pkcs12Identity() async throws {
        try await withMutualTLSOrigin { origin, certificates in
            let identity = ClientIdentity.pkcs12(
                try file(certificates.clientPKCS12Path), passphrase: TestCertificates.clientPKCS12Password)
            let (data, _) = try await session(certificates, identity: identity).data(for: Fixture.request(origin.url("/bytes/10")))
            #expect(data == Fixture.pattern(10))

            // Its own loop: curl would reuse the connection the right passphrase opened, because it
            // compares the certificate but not the passphrase when matching connections.
            let loops = try CurlLoopGroup(loopCount: 1)
            defer { loops.shutdown() }
            let wrongPassphrase = ClientIdentity.pkcs12(try file(certificates.clientPKCS12Path), passphrase: "not-the-passphrase-7341")
            let wrongSession = try Fixture.session {
                $0.additionalTrustedCAsPEM = certificates.caCertificatePEM
                $0.clientIdentity = wrongPassphrase
                $0.loopGroup = loops
            }
            let error = await failure(wrongSession, origin.url("/bytes/10"))
            #expect(error?.code == .clientCertificateRejected)
            #expect(error?.description.contains("not-the-passphrase-7341") == false)
        }
    }

    @Test("TLS-11: a certificate the server's CA did not sign is refused with client_certificate_rejected")
    func refusedCertificates() async throws {
        // TLS 1.2: the server refuses the certificate inside the handshake, so curl reports its alert.
        // (With TLS 1.3 the refusal comes after the client finished; curl may see only a closed connection.)
        try await withMutualTLSOrigin(maximum: .tls12) { origin, certificates in
            let stranger = ClientIdentity.pem(
                certificate: try file(certificates.strangerClientCertificatePath),
                privateKey: try file(certificates.strangerClientKeyPath), passphrase: nil)
            let refused = await failure(try session(certificates, identity: stranger), origin.url("/bytes/10"))
            #expect(refused?.code == .clientCertificateRejected, "\(String(describing: refused))")
            #expect(refused?.message == "the server rejected the client certificate")
            #expect(origin.requests.isEmpty)
        }
    }

    @Test("TLS-11, AU-05, AU-07: a client-certificate challenge goes to the session level first; its identity serves the session's next tasks")
    func challengeSuppliesIdentity() async throws {
        try await withMutualTLSOrigin { origin, certificates in
            let identity = try pemIdentity(certificates)
            let delegate = ChallengeAnsweringDelegate(session: { Self.answer($0, with: identity) })
            // HTTP/1.1 and "Connection: close": the second task needs a new handshake, answered from the session's cache.
            let session = try Fixture.session({
                $0.additionalTrustedCAsPEM = certificates.caCertificatePEM
                $0.httpVersion2Enabled = false
            }, delegate: delegate)
            for size in [10, 20] {
                var request = Fixture.request(origin.url("/bytes/\(size)"))
                request.headers["Connection"] = "close"
                let (data, _) = try await session.data(for: request)
                #expect(data == Fixture.pattern(size))
            }
            let methods = delegate.sessionLevel.map(\.protectionSpace.authenticationMethod)
            #expect(methods == [.serverTrust, .clientCertificate])
            let space = try #require(delegate.sessionLevel.last?.protectionSpace)
            #expect(space.host == "localhost" && space.port == origin.port)
            // The server-trust challenge passed on by the session level went to the task level; the
            // client-certificate one was answered at the session level.
            #expect(delegate.taskLevel.map(\.protectionSpace.authenticationMethod) == [.serverTrust])
            #expect(origin.requests.count == 2)
        }
    }

    @Test("AU-05: the task level answers a client-certificate challenge the session level passed on; default handling goes on without one")
    func taskLevelIdentity() async throws {
        try await withMutualTLSOrigin { origin, certificates in
            let identity = try pemIdentity(certificates)
            let delegate = ChallengeAnsweringDelegate(task: { Self.answer($0, with: identity) ?? .performDefaultHandling })
            let (data, _) = try await session(certificates, delegate: delegate).data(for: Fixture.request(origin.url("/bytes/10")))
            #expect(data == Fixture.pattern(10))

            let declining = ChallengeAnsweringDelegate()
            let error = await failure(try session(certificates, delegate: declining), origin.url("/bytes/10"))
            #expect(error?.code == .clientCertificateRejected)
            #expect(declining.taskLevel.map(\.protectionSpace.authenticationMethod) == [.serverTrust, .clientCertificate])
        }
    }
}
