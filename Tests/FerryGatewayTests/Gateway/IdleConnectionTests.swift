import FerrydTestSupport
import Foundation
import Testing

/// `FERRY_IDLE_CONNECTION_SECONDS`: connections with no request being answered are closed, so that
/// idle or trickling clients cannot hold descriptors for ever; streams being answered are left alone.
@Suite("Idle API connections", .timeLimit(.minutes(2)))
struct IdleConnectionTests {
    @Test("a silent connection, a request head cut short and a keep-alive connection after its answer are closed after the idle time; an event stream is not")
    func idleConnectionsAreClosed() async throws {
        var options = FerrydServer.Options()
        options.environment["FERRY_IDLE_CONNECTION_SECONDS"] = "2"
        try await GatewayFixture.with(options: options) { fixture in
            let port = try #require(URL(string: fixture.admin.baseURL)?.port)
            let (_, key) = try await fixture.admin.createTenant("idle")

            let silent = try RawConnection(port: port)
            let trickling = try RawConnection(port: port)
            try trickling.send("GET /healthz HTTP/1.1\r\nHost: x\r\n")
            let answered = try RawConnection(port: port)
            try answered.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            let stream = try RawConnection(port: port)
            try stream.send("GET /v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(key)\r\nAccept: text/event-stream\r\n\r\n")

            // Twice the idle time plus the check's own period is enough; 20 s is the failure.
            let started = ContinuousClock.now
            #expect(silent.readUntilClosed(within: 20).closed, "a connection that sent nothing")
            #expect(trickling.readUntilClosed(within: 20).closed, "a request head never finished")
            let afterAnswer = answered.readUntilClosed(within: 20)
            #expect(afterAnswer.closed, "a keep-alive connection after its answer")
            #expect(afterAnswer.reply.hasPrefix("HTTP/1.1 200"), "\(afterAnswer.reply)")
            #expect(ContinuousClock.now - started < .seconds(15))

            let open = stream.readUntilClosed(within: 5)
            #expect(!open.closed, "an event stream being answered is not idle: \(open.reply)")
            #expect(open.reply.hasPrefix("HTTP/1.1 200"), "\(open.reply)")
        }
    }
}
