import Foundation
import Testing

/// A request the HTTP parser refuses gets the API's problem document like every other error, not a
/// bare 400, and the connection is closed.
@Suite("Malformed requests", .timeLimit(.minutes(2)))
struct MalformedRequestTests {
    @Test("a broken header line, a broken request line and a head too long: 400 malformed_request as a problem document, then the connection closes")
    func parserErrorsAreProblems() async throws {
        try await GatewayFixture.with { fixture in
            let port = try #require(URL(string: fixture.admin.baseURL)?.port)
            for request in [
                "GET /v1/jobs HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n",
                "GET /v1/jobs HTTP/9\r\nHost: x\r\n\r\n",
                "GET /v1/jobs HTTP/1.1\r\nHost: x\r\nX-Long: " + String(repeating: "a", count: 200_000) + "\r\n\r\n",
            ] {
                let connection = try RawConnection(port: port)
                try connection.send(request)
                let (reply, closed) = connection.readUntilClosed(within: 20)
                #expect(closed)
                let (head, body) = try #require(reply.range(of: "\r\n\r\n").map { (reply[..<$0.lowerBound], reply[$0.upperBound...]) })
                #expect(head.hasPrefix("HTTP/1.1 400"), "\(head)")
                #expect(head.lowercased().contains("content-type: application/problem+json"), "\(head)")
                #expect(head.lowercased().contains("connection: close"), "\(head)")
                let problem = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
                #expect(problem["code"] as? String == "malformed_request", "\(problem)")
                #expect(problem["status"] as? Int == 400)
            }
            // The server is fine afterwards.
            #expect(try await fixture.admin.get("/healthz").status == 200)
        }
    }
}
