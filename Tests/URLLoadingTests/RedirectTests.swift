import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

@Suite("Redirects", .timeLimit(.minutes(2)))
struct RedirectTests {
    @Test("a chain is followed hop by hop; the response is the last hop's (RD-04, TT-06)")
    func followsChain() async throws {
        try await Fixture.withOrigin { origin in
            let delegate = RecordingDelegate()
            let session = try Fixture.session(delegate: delegate)
            let (data, response) = try await session.data(for: Fixture.request(origin.url("/redirect/3")))
            #expect(String(decoding: data, as: UTF8.self) == "redirected")
            #expect(response.url.path == "/redirect/0")
            let asked = delegate.entries.filter { $0.hasPrefix("willRedirect") }
            #expect(asked == ["willRedirect 302 GET /redirect/2", "willRedirect 302 GET /redirect/1", "willRedirect 302 GET /redirect/0"])
            #expect(origin.requests.map(\.uri) == ["/redirect/3", "/redirect/2", "/redirect/1", "/redirect/0"])
        }
    }

    @Test("refusing a redirect makes the 3xx the response (RD-02)")
    func refuse() async throws {
        try await Fixture.withOrigin { origin in
            let delegate = RecordingDelegate(redirect: { _, _ in .refuse })
            let session = try Fixture.session(delegate: delegate)
            let (_, response) = try await session.data(for: Fixture.request(origin.url("/redirect/2")))
            #expect(response.statusCode == 302)
            #expect(response.headers["Location"] == "/redirect/1")
            #expect(origin.requests.count == 1)
        }
    }

    @Test("the delegate may substitute another request (RD-02)")
    func substitute() async throws {
        try await Fixture.withOrigin { origin in
            let delegate = RecordingDelegate(redirect: { _, proposed in
                var changed = proposed
                changed.url = URL(string: origin.url("/bytes/7"))!
                return .follow(changed)
            })
            let session = try Fixture.session(delegate: delegate)
            let (data, response) = try await session.data(for: Fixture.request(origin.url("/redirect/1")))
            #expect(data == Fixture.pattern(7))
            #expect(response.url.path == "/bytes/7")
        }
    }

    @Test("the delegate may cancel the task from a redirect (RD-03)")
    func cancelFromRedirect() async throws {
        try await Fixture.withOrigin { origin in
            let delegate = RecordingDelegate(redirect: { _, _ in .cancel })
            let session = try Fixture.session(delegate: delegate)
            let error = await #expect(throws: TransferError.self) {
                _ = try await session.data(for: Fixture.request(origin.url("/redirect/1")))
            }
            #expect(error?.code == .cancelled)
        }
    }

    @Test("Authorization and Cookie never cross to another origin; they stay on the same one")
    func credentialsStayOnOrigin() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            // 127.0.0.1 and localhost are different origins on the same server.
            let crossTarget = "http://localhost:\(origin.port)/echo"
            var request = Fixture.request(origin.url("/redirect-to?url=\(crossTarget)"))
            request.headers["Authorization"] = "Bearer secret-token"
            request.headers["Cookie"] = "session=abc"
            request.headers["X-Kept"] = "yes"
            let (crossData, _) = try await session.data(for: request)
            let cross = try Fixture.echo(crossData)
            #expect(cross.header("Authorization") == nil)
            #expect(cross.header("Cookie") == nil)
            #expect(cross.header("X-Kept") == "yes")

            request.url = Fixture.url(origin.url("/redirect-to?url=/echo"))
            let (sameData, _) = try await session.data(for: request)
            let same = try Fixture.echo(sameData)
            #expect(same.header("Authorization") == "Bearer secret-token")
            #expect(same.header("Cookie") == "session=abc")
        }
    }

    @Test("301, 302 and 303 turn POST into GET without a body; 307 and 308 keep both")
    func methodRewriting() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            for (status, method, hasBody) in [(301, "GET", false), (302, "GET", false), (303, "GET", false),
                                              (307, "POST", true), (308, "POST", true)] {
                var request = Fixture.request(origin.url("/redirect-to?url=/echo&status=\(status)"), method: "POST")
                request.body = Data("form=1".utf8)
                request.headers["Content-Type"] = "application/x-www-form-urlencoded"
                let (data, _) = try await session.data(for: request)
                let echo = try Fixture.echo(data)
                #expect(echo.method == method, "status \(status)")
                #expect((echo.body_length > 0) == hasBody, "status \(status)")
                #expect((echo.header("Content-Type") != nil) == hasBody, "status \(status)")
            }
            var put = Fixture.request(origin.url("/redirect-to?url=/echo&status=303"), method: "PUT")
            put.body = Data("x".utf8)
            let (data, _) = try await session.data(for: put)
            #expect(try Fixture.echo(data).method == "GET")
        }
    }

    @Test("a redirect loop ends with a clear too_many_redirects error")
    func loop() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let error = await #expect(throws: TransferError.self) {
                _ = try await session.data(for: Fixture.request(origin.url("/loop/a")))
            }
            #expect(error?.code == .tooManyRedirects)
            #expect(error?.message.contains("loop") == true)
            #expect(origin.requests.count == 2)
        }
    }

    @Test("a redirect to a non-HTTP scheme is refused with a clear error")
    func unsupportedScheme() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let error = await #expect(throws: TransferError.self) {
                _ = try await session.data(for: Fixture.request(origin.url("/redirect-to?url=file:///etc/passwd")))
            }
            #expect(error?.code == .redirectToUnsupportedURL)
        }
    }

    @Test("the proposed request keeps the fragment and resolves relative locations")
    func policyDetails() throws {
        let original = TransferRequest(url: Fixture.url("http://a.test/x/y?q=1#part"))
        guard case .redirect(let next) = RedirectPolicy.proposedRequest(after: original, statusCode: 302, location: "../z") else {
            Issue.record("expected a redirect")
            return
        }
        #expect(next.url.absoluteString == "http://a.test/z#part")
        #expect(RedirectPolicy.proposedRequest(after: original, statusCode: 200, location: "/z") == .notARedirect)
        #expect(RedirectPolicy.proposedRequest(after: original, statusCode: 302, location: nil) == .notARedirect)
        #expect(RedirectPolicy.isSameOrigin(Fixture.url("http://a.test/"), Fixture.url("http://A.test:80/b")))
        #expect(!RedirectPolicy.isSameOrigin(Fixture.url("http://a.test/"), Fixture.url("https://a.test/")))
    }
}
