import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing
@testable import URLLoading
import URLLoadingOpenAPI
import URLLoadingTestSupport

/// The swift-openapi-runtime transport on the engine, against the in-process origin: what a
/// generated client sends arrives as it was meant, and what the origin answers comes back streamed.
@Suite("OpenAPI transport", .timeLimit(.minutes(2)))
struct URLLoadingTransportTests {
    private func base(_ origin: OriginServer, _ path: String = "") -> URL {
        Fixture.url(origin.url(path))
    }

    @Test("a GET: base path, path and query joined; header fields sent; the response head and body back")
    func get() async throws {
        try await Fixture.withOrigin { origin in
            let transport = URLLoadingTransport(session: try Fixture.session())
            var request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/echo?limit=5&q=a%20b")
            request.headerFields[HTTPField.Name("X-Trace")!] = "abc"
            // The base's own path ends in a slash: it is not doubled.
            let (response, body) = try await transport.send(request, body: nil, baseURL: base(origin, "/"), operationID: "echo")
            #expect(response.status == .ok)
            #expect(response.headerFields[.contentType] == "application/json")
            let data = try await Data(collecting: try #require(body), upTo: 1 << 20)
            let report = try Fixture.echo(data)
            #expect(report.method == "GET")
            #expect(report.uri == "/echo?limit=5&q=a%20b")
            #expect(report.header("X-Trace") == "abc")
        }
    }

    @Test("a streamed request body of known length goes with its Content-Length (UP-04)")
    func postStreamedBody() async throws {
        try await Fixture.withOrigin { origin in
            let transport = URLLoadingTransport(session: try Fixture.session())
            let payload = Fixture.pattern(300_000)
            let chunks = stride(from: 0, to: payload.count, by: 65_536).map { ArraySlice(payload[$0..<min($0 + 65_536, payload.count)]) }
            let body = HTTPBody(chunks.async, length: .known(Int64(payload.count)), iterationBehavior: .single)
            var request = HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/echo")
            request.headerFields[.contentType] = "application/octet-stream"
            let (response, answer) = try await transport.send(request, body: body, baseURL: base(origin), operationID: "upload")
            #expect(response.status == .ok)
            let report = try Fixture.echo(try await Data(collecting: try #require(answer), upTo: 4 << 20))
            #expect(report.method == "POST")
            #expect(report.header("Content-Length") == String(payload.count))
            #expect(report.header("Transfer-Encoding") == nil)
            #expect(report.body == payload)
        }
    }

    @Test("a large response body streams through in order; an error status is a response; HEAD has no body")
    func responses() async throws {
        try await Fixture.withOrigin { origin in
            let transport = URLLoadingTransport(session: try Fixture.session())
            let big = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/bytes/3000000")
            let (ok, body) = try await transport.send(big, body: nil, baseURL: base(origin), operationID: "bytes")
            #expect(ok.status == .ok)
            let stream = try #require(body)
            #expect(stream.length == .known(3_000_000))
            var received = Data()
            for try await chunk in stream { received.append(contentsOf: chunk) }
            #expect(received == Fixture.pattern(3_000_000))

            let missing = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/status/404")
            let (notFound, _) = try await transport.send(missing, body: nil, baseURL: base(origin), operationID: "missing")
            #expect(notFound.status == .notFound)

            let head = HTTPRequest(method: .head, scheme: nil, authority: nil, path: "/bytes/10")
            let (headResponse, headBody) = try await transport.send(head, body: nil, baseURL: base(origin), operationID: "head")
            #expect(headResponse.status == .ok)
            #expect(headBody == nil)
        }
    }

    @Test("a transfer that fails throws the engine's error")
    func failure() async throws {
        let transport = URLLoadingTransport(session: try Fixture.session())
        let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/")
        let error = await #expect(throws: TransferError.self) {
            _ = try await transport.send(request, body: nil, baseURL: Fixture.url("http://127.0.0.1:1"), operationID: "refused")
        }
        #expect(error?.code == .cannotConnectToHost)
    }
}

/// A sequence as an `AsyncSequence`, for request bodies made of chunks.
private struct AsyncChunks<Base: Sequence & Sendable>: AsyncSequence, Sendable where Base.Element: Sendable {
    typealias Element = Base.Element
    let base: Base

    struct AsyncIterator: AsyncIteratorProtocol {
        var iterator: Base.Iterator
        mutating func next() async -> Element? { iterator.next() }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(iterator: base.makeIterator()) }
}

extension Array where Element: Sendable {
    fileprivate var async: AsyncChunks<Self> { AsyncChunks(base: self) }
}
