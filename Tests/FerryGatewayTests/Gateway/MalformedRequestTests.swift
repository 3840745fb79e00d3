#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// A request the HTTP parser refuses gets the API's problem document like every other error, not a
/// bare 400, and the connection is closed.
@Suite("Malformed requests", .timeLimit(.minutes(2)))
struct MalformedRequestTests {
    /// Sends `bytes` on a new connection to 127.0.0.1:`port` and reads until the server closes it.
    static func exchange(_ bytes: String, port: Int) throws -> String {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)
        let request = Array(bytes.utf8)
        try #require(send(descriptor, request, request.count, 0) == request.count)
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            reply += buffer[..<count]
        }
        return String(decoding: reply, as: UTF8.self)
    }

    @Test("a broken header line, a broken request line and a head too long: 400 malformed_request as a problem document, then the connection closes")
    func parserErrorsAreProblems() async throws {
        try await GatewayFixture.with { fixture in
            let port = try #require(URL(string: fixture.admin.baseURL)?.port)
            for request in [
                "GET /v1/jobs HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n",
                "GET /v1/jobs HTTP/9\r\nHost: x\r\n\r\n",
                "GET /v1/jobs HTTP/1.1\r\nHost: x\r\nX-Long: " + String(repeating: "a", count: 200_000) + "\r\n\r\n",
            ] {
                let reply = try Self.exchange(request, port: port)
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
