import Crypto
import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// Credentials the origin's `/protected/` route accepts, and ones it does not.
enum Credentials {
    static let good = Credential(user: AuthRoutes.user, password: AuthRoutes.password, persistence: .none)
    static let wrong = Credential(user: AuthRoutes.user, password: "not the password", persistence: .none)
    static let token = Credential(.bearer(token: AuthRoutes.token), persistence: .none)

    /// A session with a credential storage of its own, so no test sees another's credentials.
    static func session(
        delegate: (any SessionDelegate)? = nil, _ configure: (inout SessionConfiguration) -> Void = { _ in }
    ) throws -> Session {
        try Fixture.session({
            $0.credentialStorage = InMemoryCredentialStorage()
            configure(&$0)
        }, delegate: delegate)
    }

    static func space(_ origin: OriginServer, realm: String = AuthRoutes.basicRealm,
                      method: AuthenticationMethod = .httpBasic) -> ProtectionSpace {
        ProtectionSpace(host: "127.0.0.1", port: origin.port, scheme: "http", realm: realm, authenticationMethod: method)
    }
}

@Suite("Authentication challenges", .timeLimit(.minutes(2)))
struct AuthenticationTests {
    // MARK: parsing and computing

    @Test("several challenges in one field and over several fields, with quoted commas and a token68 (AU-04)")
    func parsesChallenges() {
        let parsed = ParsedChallenge.parse(fieldValues: [
            #"Newauth realm="apps", type=1, title="Login to \"apps\", please", Basic realm="simple""#,
            "Negotiate YWJjZA==, Digest realm=\"d\", nonce=\"n,1\", qop=\"auth, auth-int\", algorithm=SHA-256",
            "Bearer",
        ])
        #expect(parsed.map(\.scheme) == ["newauth", "basic", "negotiate", "digest", "bearer"])
        #expect(parsed[0].parameters == ["realm": "apps", "type": "1", "title": #"Login to "apps", please"#])
        #expect(parsed[1].realm == "simple")
        #expect(parsed[2].token68 == "YWJjZA==")
        #expect(parsed[3].parameters["nonce"] == "n,1")
        #expect(parsed[3].parameters["qop"] == "auth, auth-int")
        #expect(parsed[4].parameters.isEmpty && parsed[4].token68 == nil)
    }

    @Test("MD5 matches RFC 1321's test suite and swift-crypto")
    func md5() {
        #expect(MD5.hex("") == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(MD5.hex("abc") == "900150983cd24fb0d6963f7d28e17f72")
        #expect(MD5.hex("message digest") == "f96b697d7cb7938d525a2f31aaf161d0")
        for length in [55, 56, 63, 64, 65, 1000] {
            let text = String(repeating: "ferry", count: length).prefix(length)
            let independent = Insecure.MD5.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
            #expect(MD5.hex(String(text)) == independent, "length \(length)")
        }
    }

    @Test("Digest answers match RFC 7616's examples for MD5 and SHA-256")
    func digestExamples() throws {
        for (algorithm, expected) in [("MD5", "8ca523f5e9506fed4657c9700eebdbec"),
                                      ("SHA-256", "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1")] {
            let parsed = ParsedChallenge.parse(fieldValue: """
                Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=\(algorithm), \
                nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"
                """)
            let first = try #require(parsed.first)
            let challenge = try #require(DigestChallenge(first))
            let value = challenge.authorization(
                user: "Mufasa", password: "Circle of Life", method: "GET", uri: "/dir/index.html", nonceCount: 1,
                clientNonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ")
            #expect(value.contains("response=\"\(expected)\""), "\(algorithm)")
            #expect(value.contains("nc=00000001") && value.contains("qop=auth,") && value.contains("opaque=\"FQhe"))
        }
    }

    // MARK: dispositions

    @Test("Basic: the challenge names its space and the 401; use credential retries with it (AU-04, AU-10, AU-12, AU-18)")
    func basicUseCredential() async throws {
        try await Fixture.withOrigin { origin in
            let delegate = ChallengeDelegate(always: Credentials.good)
            let session = try Credentials.session(delegate: delegate)
            let (data, response) = try await session.data(for: Fixture.request(origin.url("/protected/basic")))
            #expect(response.statusCode == 200)
            let expected = "Basic " + Data("\(AuthRoutes.user):\(AuthRoutes.password)".utf8).base64EncodedString()
            #expect(try Fixture.echo(data).header("Authorization") == expected)
            let challenge = try #require(delegate.challenges.first)
            #expect(delegate.challenges.count == 1)
            #expect(challenge.protectionSpace == Credentials.space(origin))
            #expect(challenge.protectionSpace.isProxy == false)
            #expect(challenge.previousFailureCount == 0)
            #expect(challenge.proposedCredential == nil)
            #expect(challenge.failureResponse?.statusCode == 401)
        }
    }

    @Test("the session-level method is never asked about Basic, Digest or Bearer (AU-06)")
    func sessionLevelNotAsked() async throws {
        try await Fixture.withOrigin { origin in
            let delegate = ChallengeDelegate { challenge in
                challenge.protectionSpace.authenticationMethod == .httpBasic ? .useCredential(Credentials.good) : .rejectProtectionSpace
            }
            let session = try Credentials.session(delegate: delegate)
            let (_, response) = try await session.data(for: Fixture.request(origin.url("/protected/x?schemes=basic,bearer,digest")))
            #expect(response.statusCode == 200)
            // Strongest first, whatever the server's order: Digest, Bearer, then Basic.
            #expect(delegate.challenges.map(\.protectionSpace.authenticationMethod) == [.httpDigest, .bearer, .httpBasic])
            #expect(delegate.sessionLevelCalls == 0)
        }
    }

    @Test("continue without credential: the 401 and its body are the task's response (AU-13, AU-09)")
    func continueWithout() async throws {
        try await Fixture.withOrigin { origin in
            let delegate = ChallengeDelegate { _ in .continueWithoutCredential }
            let session = try Credentials.session(delegate: delegate)
            let (data, response) = try await session.data(for: Fixture.request(origin.url("/protected/x")))
            #expect(response.statusCode == 401)
            #expect(String(decoding: data, as: UTF8.self) == "authentication required")
            #expect(origin.requests.count == 1)
        }
    }

    @Test("cancel: the task fails with cancelled (AU-16)")
    func cancelChallenge() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Credentials.session(delegate: ChallengeDelegate { _ in .cancel })
            let error = await #expect(throws: TransferError.self) {
                _ = try await session.data(for: Fixture.request(origin.url("/protected/x")))
            }
            #expect(error?.code == .cancelled)
        }
    }

    @Test("reject protection space: the next space offered is asked, the last one rejected gives the 401 (AU-15)")
    func rejectProtectionSpace() async throws {
        try await Fixture.withOrigin { origin in
            let delegate = ChallengeDelegate { challenge in
                challenge.protectionSpace.authenticationMethod == .httpBasic ? .useCredential(Credentials.good) : .rejectProtectionSpace
            }
            let session = try Credentials.session(delegate: delegate)
            let (_, response) = try await session.data(for: Fixture.request(origin.url("/protected/x?schemes=bearer,basic&combined=1")))
            #expect(response.statusCode == 200)
            #expect(delegate.challenges.map(\.protectionSpace.authenticationMethod) == [.bearer, .httpBasic])
            #expect(delegate.challenges.first?.protectionSpace.realm == AuthRoutes.bearerRealm)

            let refusing = try Credentials.session(delegate: ChallengeDelegate { _ in .rejectProtectionSpace })
            let (_, refused) = try await refusing.data(for: Fixture.request(origin.url("/protected/x?schemes=bearer,basic")))
            #expect(refused.statusCode == 401)
        }
    }

    @Test("a rejected credential is asked about again, proposed, with the failure count increased (AU-19)")
    func rejectedCredentialAskedAgain() async throws {
        try await Fixture.withOrigin { origin in
            let delegate = ChallengeDelegate { challenge in
                .useCredential(challenge.previousFailureCount < 2 ? Credentials.wrong : Credentials.good)
            }
            let session = try Credentials.session(delegate: delegate)
            let (_, response) = try await session.data(for: Fixture.request(origin.url("/protected/x")))
            #expect(response.statusCode == 200)
            #expect(delegate.challenges.map(\.previousFailureCount) == [0, 1, 2])
            #expect(delegate.challenges.map(\.proposedCredential) == [nil, Credentials.wrong, Credentials.wrong])
        }
    }

    @Test("the cap on rejected credentials ends the loop with user_authentication_required, no secret shown (AU-20)")
    func failureCap() async throws {
        try await Fixture.withOrigin { origin in
            let delegate = ChallengeDelegate(always: Credentials.wrong)
            let session = try Credentials.session(delegate: delegate) { $0.maximumAuthenticationFailures = 3 }
            let error = await #expect(throws: TransferError.self) {
                _ = try await session.data(for: Fixture.request(origin.url("/protected/x")))
            }
            #expect(error?.code == .userAuthenticationRequired)
            #expect(error?.message.contains("127.0.0.1:\(origin.port)") == true)
            #expect(error?.message.contains(AuthRoutes.basicRealm) == true)
            #expect(error?.description.contains("not the password") == false)
            #expect(delegate.challenges.map(\.previousFailureCount) == [0, 1, 2])
            #expect(origin.requests.count == 4)
        }
    }

    @Test("an answer may come late: the transfer waits, and the idle timeout does not run meanwhile (AU-21)")
    func lateAnswer() async throws {
        try await Fixture.withOrigin { origin in
            let delegate = ChallengeDelegate { _ in
                try? await Task.sleep(for: .seconds(24))
                return .useCredential(Credentials.good)
            }
            // The answer takes longer than the idle timeout, which is still long enough for the
            // retried request on a loaded two-core machine running the whole suite (under the Thread
            // Sanitizer, 4 s was not).
            let session = try Credentials.session(delegate: delegate) { $0.requestTimeout = 20 }
            let (_, response) = try await session.data(for: Fixture.request(origin.url("/protected/late")))
            #expect(response.statusCode == 200)
        }
    }

    // MARK: default handling

    @Test("default handling: the storage's default credential, else the URL's user:password, else the 401 (AU-14, AU-22, ER-11)")
    func defaultHandling() async throws {
        try await Fixture.withOrigin { origin in
            // No delegate: default handling.
            let storage = InMemoryCredentialStorage()
            await storage.setDefaultCredential(
                Credential(user: AuthRoutes.user, password: AuthRoutes.password, persistence: .forSession), for: Credentials.space(origin))
            let stored = try Fixture.session { $0.credentialStorage = storage }
            let (_, fromStorage) = try await stored.data(for: Fixture.request(origin.url("/protected/x")))
            #expect(fromStorage.statusCode == 200)

            let plain = try Credentials.session()
            let user = AuthRoutes.user
            let password = try #require(AuthRoutes.password.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            let inURL = "http://\(user):\(password)@127.0.0.1:\(origin.port)/protected/x"
            let (data, fromURL) = try await plain.data(for: Fixture.request(inURL))
            #expect(fromURL.statusCode == 200)
            #expect(try Fixture.echo(data).header("Authorization")?.hasPrefix("Basic ") == true)
            // Not sent before the challenge asked for it.
            #expect(origin.requests.suffix(2).first?.headers.contains { $0.name.lowercased() == "authorization" } == false)

            let (_, without) = try await plain.data(for: Fixture.request(origin.url("/protected/x")))
            #expect(without.statusCode == 401)
        }
    }

    @Test("default handling proposes the stored credential and does not retry it once rejected (AU-14, AU-19)")
    func defaultHandlingStopsAfterRejection() async throws {
        try await Fixture.withOrigin { origin in
            let storage = InMemoryCredentialStorage()
            let stale = Credential(user: AuthRoutes.user, password: "old password", persistence: .forSession)
            await storage.set(stale, for: Credentials.space(origin))
            let delegate = ChallengeDelegate { _ in .performDefaultHandling }
            let session = try Fixture.session({ $0.credentialStorage = storage }, delegate: delegate)
            let (_, response) = try await session.data(for: Fixture.request(origin.url("/protected/x")))
            #expect(response.statusCode == 401)
            #expect(delegate.challenges.map(\.proposedCredential) == [stale, stale])
            #expect(delegate.challenges.map(\.previousFailureCount) == [0, 1])
        }
    }

    // MARK: Digest and Bearer

    @Test("Digest with SHA-256, MD5, and SHA-256 chosen when both are offered (AU-18)", arguments: ["SHA-256", "MD5", "both"])
    func digest(algorithm: String) async throws {
        try await Fixture.withOrigin { origin in
            let delegate = ChallengeDelegate(always: Credentials.good)
            let session = try Credentials.session(delegate: delegate)
            let (data, response) = try await session.data(
                for: Fixture.request(origin.url("/protected/d?schemes=digest&algorithm=\(algorithm)")))
            #expect(response.statusCode == 200)
            let authorization = try #require(try Fixture.echo(data).header("Authorization"))
            #expect(authorization.contains("algorithm=\(algorithm == "MD5" ? "MD5" : "SHA-256")"))
            #expect(delegate.challenges.count == 1)
            #expect(delegate.challenges.first?.protectionSpace ==
                    Credentials.space(origin, realm: AuthRoutes.digestRealm, method: .httpDigest))
        }
    }

    @Test("a stale Digest nonce is answered again without asking and without a failure (AU-19)")
    func digestStaleNonce() async throws {
        try await Fixture.withOrigin { origin in
            let delegate = ChallengeDelegate(always: Credentials.good)
            let session = try Credentials.session(delegate: delegate)
            let (_, response) = try await session.data(for: Fixture.request(origin.url("/protected/d?schemes=digest&stale=1")))
            #expect(response.statusCode == 200)
            #expect(delegate.challenges.count == 1)
            #expect(origin.requests.count == 3)
        }
    }

    @Test("a wrong Digest password counts as a failure (AU-19, AU-20)")
    func digestWrongPassword() async throws {
        try await Fixture.withOrigin { origin in
            let delegate = ChallengeDelegate(always: Credentials.wrong)
            let session = try Credentials.session(delegate: delegate) { $0.maximumAuthenticationFailures = 2 }
            let error = await #expect(throws: TransferError.self) {
                _ = try await session.data(for: Fixture.request(origin.url("/protected/d?schemes=digest")))
            }
            #expect(error?.code == .userAuthenticationRequired)
            #expect(delegate.challenges.map(\.previousFailureCount) == [0, 1])
        }
    }

    @Test("Bearer tokens: our own credential kind, sent as Authorization: Bearer (AU-17)")
    func bearer() async throws {
        try await Fixture.withOrigin { origin in
            let delegate = ChallengeDelegate(always: Credentials.token)
            let session = try Credentials.session(delegate: delegate)
            let (data, response) = try await session.data(for: Fixture.request(origin.url("/protected/b?schemes=bearer")))
            #expect(response.statusCode == 200)
            #expect(try Fixture.echo(data).header("Authorization") == "Bearer \(AuthRoutes.token)")
            #expect(delegate.challenges.first?.protectionSpace.realm == AuthRoutes.bearerRealm)

            // A password cannot answer a Bearer challenge: a clear error, not a silent 401.
            let mismatched = try Credentials.session(delegate: ChallengeDelegate(always: Credentials.good))
            let error = await #expect(throws: TransferError.self) {
                _ = try await mismatched.data(for: Fixture.request(origin.url("/protected/b?schemes=bearer")))
            }
            #expect(error?.code == .userAuthenticationRequired)
        }
    }
}
