import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

@Suite("Cookies: Set-Cookie parsing and storage rules")
struct CookieParsingTests {
    private let site = URL(string: "https://www.example.co.uk/shop/cart/view")!

    @Test("every RFC 6265 attribute is read; no Domain means host-only, no Path the request's directory (CK-01)")
    func attributes() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let cookie = try #require(SetCookieParser.parse(
            "id=a3fWa; Domain=.Example.co.uk; Path=/shop; Max-Age=60; Secure; HttpOnly; SameSite=Lax", from: site, now: now))
        #expect(cookie.name == "id" && cookie.value == "a3fWa")
        #expect(cookie.domain == "example.co.uk" && !cookie.isHostOnly)
        #expect(cookie.path == "/shop")
        #expect(cookie.expiresDate == now.addingTimeInterval(60))
        #expect(cookie.isSecure && cookie.isHTTPOnly && cookie.sameSite == .lax)

        let plain = try #require(SetCookieParser.parse("theme=dark", from: site, now: now))
        #expect(plain.domain == "www.example.co.uk" && plain.isHostOnly)
        #expect(plain.path == "/shop/cart")
        #expect(plain.isSessionOnly)
        #expect(SetCookieParser.parse("no-equals-sign", from: site) == nil)
        #expect(SetCookieParser.parse("=value", from: site) == nil)
    }

    @Test("Expires takes every date format of RFC 6265 §5.1.1; Max-Age wins over it (CK-01)")
    func expiresFormats() throws {
        let expected = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        for text in [
            "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
            "Sun, 06-Nov-1994 08:49:37 GMT", "6 Nov 1994 08:49:37", "Sun, 06 Nov 1994 08:49:37 +0000",
        ] {
            #expect(CookieDateParser.parse(text) == expected, "\(text)")
        }
        for bad in ["", "tomorrow", "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT", "06 Nov 1600 08:49:37"] {
            #expect(CookieDateParser.parse(bad) == nil, "\(bad)")
        }
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let both = try #require(SetCookieParser.parse(
            "a=1; Expires=Sun, 06 Nov 1994 08:49:37 GMT; Max-Age=10", from: site, now: now))
        #expect(both.expiresDate == now.addingTimeInterval(10))
        let expired = try #require(SetCookieParser.parse("a=1; Max-Age=0", from: site, now: now))
        #expect(expired.isExpired(at: now))
    }

    @Test("a Domain that is a public suffix, or not the host's own, is refused (CK-03)")
    func publicSuffixes() {
        #expect(SetCookieParser.parse("a=1; Domain=co.uk", from: site) == nil)
        #expect(SetCookieParser.parse("a=1; Domain=uk", from: site) == nil)
        #expect(SetCookieParser.parse("a=1; Domain=other.co.uk", from: site) == nil)
        #expect(SetCookieParser.parse("a=1; Domain=com", from: URL(string: "http://example.com/")!) == nil)
        #expect(SetCookieParser.parse("a=1; Domain=example.co.uk", from: site)?.domain == "example.co.uk")
        #expect(SetCookieParser.parse("a=1; Domain=127.0.0.1", from: URL(string: "http://127.0.0.1/")!)?.domain == "127.0.0.1")
        #expect(SetCookieParser.parse("a=1; Domain=0.0.1", from: URL(string: "http://127.0.0.1/")!) == nil)
    }

    @Test("RFC 6265 §5.2.3: exactly one leading dot of Domain is removed; a second one matches no host (CK-03)")
    func doubleDotDomain() {
        let host = URL(string: "https://www.example.org/")!
        #expect(SetCookieParser.parse("foo=bar; domain=..example.org", from: host) == nil)
        #expect(SetCookieParser.parse("foo=bar; domain=..www.example.org", from: host) == nil)
        #expect(SetCookieParser.parse("foo=bar; domain=.example.org", from: host)?.domain == "example.org")
        // The last Domain attribute is the one that counts (§5.3 step 4).
        #expect(SetCookieParser.parse("foo=bar; domain=..example.org; domain=example.org", from: host)?.domain == "example.org")
    }

    @Test("Secure cookies are refused from http and never sent over it; SameSite=None needs Secure (CK-01, CK-02)")
    func secure() throws {
        #expect(SetCookieParser.parse("a=1; Secure", from: URL(string: "http://example.com/")!) == nil)
        #expect(SetCookieParser.parse("a=1; SameSite=None", from: URL(string: "https://example.com/")!) == nil)
        let cookie = try #require(SetCookieParser.parse("a=1; Secure", from: URL(string: "https://example.com/")!))
        #expect(cookie.matches(URL(string: "https://example.com/x")!))
        #expect(!cookie.matches(URL(string: "http://example.com/x")!))
    }

    @Test("domain and path matching, and Cookie header order: longer paths first, then older (CK-02)")
    func matchingAndOrder() {
        let storage = InMemoryCookieStorage()
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        storage.setCookie(Cookie(name: "root", value: "1", domain: "example.com", path: "/", isHostOnly: false, creationDate: start))
        storage.setCookie(Cookie(name: "deep", value: "2", domain: "example.com", path: "/a/b", creationDate: start.addingTimeInterval(2)))
        storage.setCookie(Cookie(name: "mid", value: "3", domain: "example.com", path: "/a", creationDate: start.addingTimeInterval(3)))
        storage.setCookie(Cookie(name: "early", value: "4", domain: "example.com", path: "/a", creationDate: start.addingTimeInterval(1)))
        #expect(storage.cookieHeader(for: URL(string: "http://example.com/a/b/c")!) == "deep=2; early=4; mid=3; root=1")
        #expect(storage.cookieHeader(for: URL(string: "http://example.com/ab")!) == "root=1")
        // Only the domain cookie reaches a subdomain; the host-only ones stay with their host.
        #expect(storage.cookieHeader(for: URL(string: "http://www.example.com/a/b")!) == "root=1")
        #expect(storage.cookieHeader(for: URL(string: "http://notexample.com/")!) == nil)
        #expect(storage.cookieHeader(for: URL(string: "ftp://example.com/")!) == nil)
    }

    @Test("a cross-site main document keeps SameSite=Strict cookies home, and Lax ones off unsafe methods (CK-02)")
    func sameSite() {
        let storage = InMemoryCookieStorage()
        storage.setCookie(Cookie(name: "s", value: "1", domain: "shop.example", sameSite: .strict))
        storage.setCookie(Cookie(name: "l", value: "2", domain: "shop.example", sameSite: .lax))
        storage.setCookie(Cookie(name: "n", value: "3", domain: "shop.example"))
        let url = URL(string: "http://shop.example/")!
        let elsewhere = URL(string: "http://news.example/")!
        #expect(storage.cookies(for: url, mainDocumentURL: elsewhere).map(\.name).sorted() == ["l", "n"])
        #expect(storage.cookies(for: url, mainDocumentURL: elsewhere, method: "POST").map(\.name) == ["n"])
        #expect(storage.cookies(for: url, mainDocumentURL: url, method: "POST").count == 3)
    }

    @Test("storage replaces by name, domain and path, deletes on expiry, and reports every change (CK-07, CK-08)")
    func changes() async throws {
        let storage = InMemoryCookieStorage()
        let stream = storage.changes()
        let a = Cookie(name: "a", value: "1", domain: "example.com")
        storage.setCookie(a)
        var replacement = a
        replacement.value = "2"
        storage.setCookie(replacement)
        #expect(storage.cookies.map(\.value) == ["2"])
        var expired = a
        expired.expiresDate = .distantPast
        storage.setCookie(expired)
        #expect(storage.cookies.isEmpty)
        storage.acceptPolicy = .never
        storage.setCookie(Cookie(name: "b", value: "1", domain: "example.com"))
        storage.deleteCookie(Cookie(name: "b", value: "", domain: "example.com"))

        var seen: [String] = []
        for await change in stream {
            switch change {
            case .stored(let cookie): seen.append("stored \(cookie.name)=\(cookie.value)")
            case .deleted(let cookie): seen.append("deleted \(cookie.name)")
            case .acceptPolicyChanged(let policy): seen.append("policy \(policy.rawValue)")
            }
            if seen.count == 6 { break }
        }
        #expect(seen == ["stored a=1", "stored a=2", "deleted a", "policy never", "stored b=1", "deleted b"])
    }

    @Test("Netscape jars: curl's format, #HttpOnly_ prefix, session cookies as 0, read back the same (CK-08)")
    func netscapeJar() {
        let cookies = [
            Cookie(name: "host", value: "1", domain: "127.0.0.1", path: "/", isHostOnly: true),
            Cookie(name: "dom", value: "a b", domain: "example.com", path: "/x", expiresDate: Date(timeIntervalSince1970: 2_000_000_000),
                   isSecure: true, isHTTPOnly: true, isHostOnly: false),
        ]
        let text = NetscapeCookieJar.render(cookies)
        #expect(text.hasPrefix("# Netscape HTTP Cookie File\n"))
        #expect(text.contains("127.0.0.1\tFALSE\t/\tFALSE\t0\thost\t1\n"))
        #expect(text.contains("#HttpOnly_.example.com\tTRUE\t/x\tTRUE\t2000000000\tdom\ta b\n"))
        let read = NetscapeCookieJar.parse(text)
        #expect(read.map(\.name) == ["host", "dom"])
        #expect(read[0].isHostOnly && read[0].isSessionOnly && !read[0].isHTTPOnly)
        #expect(!read[1].isHostOnly && read[1].isHTTPOnly && read[1].isSecure && read[1].domain == "example.com")
        #expect(read[1].expiresDate == Date(timeIntervalSince1970: 2_000_000_000))
        #expect(NetscapeCookieJar.parse("# comment\n\nbroken line\n").isEmpty)
    }
}

@Suite("Cookies: sent and stored by transfers", .timeLimit(.minutes(2)))
struct CookieTransferTests {
    /// An ephemeral session: its own cookie storage, so tests running in parallel never share one.
    private func session(_ configure: (inout SessionConfiguration) -> Void = { _ in }) throws -> Session {
        var configuration = SessionConfiguration.ephemeral
        configure(&configuration)
        return try Session(configuration: configuration)
    }

    private func text(_ session: Session, _ url: String, configure: (inout TransferRequest) -> Void = { _ in }) async throws -> String {
        var request = Fixture.request(url)
        configure(&request)
        let (data, _) = try await session.data(for: request)
        return String(decoding: data, as: UTF8.self)
    }

    @Test("cookies a response sets go with later requests; an expiring Set-Cookie removes them (CK-02, CK-03)")
    func setAndExpire() async throws {
        try await Fixture.withOrigin { origin in
            let session = try self.session()
            _ = try await text(session, origin.url("/cookies/set?a=1&b=2"))
            #expect(try await text(session, origin.url("/cookies/show")) == "a=1; b=2")
            _ = try await text(session, origin.url("/cookies/expire?name=a"))
            #expect(try await text(session, origin.url("/cookies/show")) == "b=2")
            #expect(session.configuration.httpCookieStorage?.cookies.map(\.name) == ["b"])
        }
    }

    @Test("Path: the default is the setting URL's directory; only paths below it get the cookie (CK-02)")
    func path() async throws {
        try await Fixture.withOrigin { origin in
            let session = try self.session()
            _ = try await text(session, origin.url("/cookies/p/q/raw?a=d%3D1&b=e%3D2%3B%20Path%3D%2Fcookies%2Fother"))
            #expect(try await text(session, origin.url("/cookies/p/q/show")) == "d=1")
            #expect(try await text(session, origin.url("/cookies/p/q/deeper/show")) == "d=1")
            #expect(try await text(session, origin.url("/cookies/p/qq/show")) == "")
            #expect(try await text(session, origin.url("/cookies/other/show")) == "e=2")
        }
    }

    @Test("Domain: a foreign domain is refused; a host-only cookie stays with its host (CK-03)")
    func domain() async throws {
        try await Fixture.withOrigin { origin in
            let session = try self.session()
            _ = try await text(session, origin.url("/cookies/raw?a=x%3D1%3B%20Domain%3Dexample.com&b=h%3D2%3B%20Path%3D%2F"))
            #expect(try await text(session, origin.url("/cookies/show")) == "h=2")
            let byName = "http://localhost:\(origin.port)/cookies/show"
            #expect(try await text(session, byName) == "")
        }
    }

    @Test("RFC 6265 §5.2.3 through a transfer: Domain=..host matches no host and is ignored; Domain=.host is kept (CK-03)")
    func doubleDotDomainFromAResponse() async throws {
        try await Fixture.withOrigin { origin in
            let session = try self.session()
            let base = "http://localhost:\(origin.port)/cookies"
            _ = try await text(session, base + "/raw?a=x%3D1%3B%20Domain%3D..localhost%3B%20Path%3D%2F&b=y%3D2%3B%20Domain%3D.localhost%3B%20Path%3D%2F")
            #expect(try await text(session, base + "/show") == "y=2")
            #expect(session.configuration.httpCookieStorage?.cookies.map(\.name) == ["y"])
        }
    }

    @Test("a Secure cookie set over https goes to https only, never to http on the same host (CK-02)")
    func secureOnlyOverHTTPS() async throws {
        let certificates = try await TestCertificates.generate()
        defer { certificates.remove() }
        try await Fixture.withOrigin(tls: OriginServer.TLSOptions(certificates: certificates)) { secure in
            try await Fixture.withOrigin { plain in
                let session = try session { $0.additionalTrustedCAsPEM = certificates.caCertificatePEM }
                _ = try await text(session, secure.url("/cookies/raw?a=s%3D1%3B%20Secure%3B%20Path%3D%2F&b=p%3D2%3B%20Path%3D%2F"))
                #expect(try await text(session, secure.url("/cookies/show")) == "s=1; p=2")
                #expect(try await text(session, "http://localhost:\(plain.port)/cookies/show") == "p=2")
            }
        }
    }

    @Test("a redirect that sets a cookie sends it on the next hop (CK-02, CK-03)")
    func redirectSetsCookie() async throws {
        try await Fixture.withOrigin { origin in
            let session = try self.session()
            let body = try await text(session, origin.url("/cookies/redirect?to=%2Fcookies%2Fshow&r=1"))
            #expect(body == "r=1")
            let hops = origin.requests.map { "\($0.path) \($0.header("Cookie") ?? "-")" }
            #expect(hops == ["/cookies/redirect -", "/cookies/show r=1"])
        }
    }

    @Test("a request that opts out neither sends nor stores cookies; so does a session that turns them off (CK-02)")
    func optOut() async throws {
        try await Fixture.withOrigin { origin in
            let session = try self.session()
            _ = try await text(session, origin.url("/cookies/set?kept=1"))
            let optOut: (inout TransferRequest) -> Void = { $0.httpShouldHandleCookies = false }
            #expect(try await text(session, origin.url("/cookies/show"), configure: optOut) == "")
            _ = try await text(session, origin.url("/cookies/set?ignored=1"), configure: optOut)
            #expect(try await text(session, origin.url("/cookies/show")) == "kept=1")

            let storage = InMemoryCookieStorage()
            let off = try self.session {
                $0.httpCookieStorage = storage
                $0.httpShouldSetCookies = false
            }
            _ = try await text(off, origin.url("/cookies/set?x=1"))
            #expect(storage.cookies.isEmpty)
            storage.setCookie(Cookie(name: "y", value: "1", domain: "127.0.0.1"))
            #expect(try await text(off, origin.url("/cookies/show")) == "")
        }
    }

    @Test("accept policies: never, and only from the main document's site (CK-05, CK-09, SES-22)")
    func acceptPolicies() async throws {
        try await Fixture.withOrigin { origin in
            let never = try session { $0.httpCookieAcceptPolicy = .never }
            _ = try await text(never, origin.url("/cookies/set?a=1"))
            #expect(never.configuration.httpCookieStorage?.cookies.isEmpty == true)

            let storage = InMemoryCookieStorage(acceptPolicy: .onlyFromMainDocumentDomain)
            let mainOnly = try session { $0.httpCookieStorage = storage }
            _ = try await text(mainOnly, origin.url("/cookies/set?third=1")) { $0.mainDocumentURL = URL(string: "http://example.com/") }
            #expect(storage.cookies.isEmpty)
            _ = try await text(mainOnly, origin.url("/cookies/set?first=1")) { $0.mainDocumentURL = URL(string: "http://127.0.0.1/page") }
            _ = try await text(mainOnly, origin.url("/cookies/set?own=1"))
            #expect(storage.cookies.map(\.name) == ["first", "own"])
        }
    }

    @Test("ephemeral sessions keep private storages; default sessions share one, with its policy (CK-04, CK-06, SES-03)")
    func storageScopes() async throws {
        try await Fixture.withOrigin { origin in
            let first = try self.session()
            let second = try self.session()
            _ = try await text(first, origin.url("/cookies/set?private=1"))
            #expect(try await text(second, origin.url("/cookies/show")) == "")
            #expect(first.configuration.httpCookieStorage !== second.configuration.httpCookieStorage)

            let a = try Session(configuration: .default)
            let b = try Session(configuration: .default)
            #expect(a.configuration.httpCookieStorage === InMemoryCookieStorage.shared)
            #expect(b.configuration.httpCookieStorage === InMemoryCookieStorage.shared)
            // A path of its own, so other tests' use of the shared storage cannot interfere.
            let path = "/cookies/shared-\(UUID().uuidString)"
            _ = try await text(a, origin.url("\(path)/raw?a=shared%3D1"))
            #expect(try await text(b, origin.url("\(path)/show")) == "shared=1")
            for cookie in InMemoryCookieStorage.shared.cookies where cookie.path == path {
                InMemoryCookieStorage.shared.deleteCookie(cookie)
            }
        }
    }

    @Test("sessions sharing a storage share its accept policy: changing it changes both (CK-05, CK-06, CK-07)")
    func sharedPolicy() async throws {
        try await Fixture.withOrigin { origin in
            let storage = InMemoryCookieStorage()
            let changes = storage.changes()
            let first = try self.session { $0.httpCookieStorage = storage }
            let second = try self.session { $0.httpCookieStorage = storage }
            storage.acceptPolicy = .never
            _ = try await text(first, origin.url("/cookies/set?a=1"))
            _ = try await text(second, origin.url("/cookies/set?b=1"))
            #expect(storage.cookies.isEmpty)
            storage.acceptPolicy = .always
            _ = try await text(second, origin.url("/cookies/set?c=1"))
            #expect(try await text(first, origin.url("/cookies/show")) == "c=1")
            var seen: [CookieChange] = []
            for await change in changes {
                seen.append(change)
                if seen.count == 3 { break }
            }
            #expect(seen.prefix(2) == [.acceptPolicyChanged(.never), .acceptPolicyChanged(.always)])
            if case .stored(let cookie) = seen.last { #expect(cookie.name == "c") } else { Issue.record("no stored change: \(seen)") }
        }
    }

    @Test("a request's own Cookie header is sent as is; libcurl adds nothing of its own (CK-02)")
    func ownCookieHeader() async throws {
        try await Fixture.withOrigin { origin in
            let session = try self.session()
            _ = try await text(session, origin.url("/cookies/set?stored=1"))
            #expect(try await text(session, origin.url("/cookies/show")) { $0.headers["Cookie"] = "mine=2" } == "mine=2")
        }
    }
}
