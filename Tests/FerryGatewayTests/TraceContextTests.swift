import FerryModel
import Foundation
@testable import FerryRuntime
import Testing
import URLLoading

/// W3C Trace Context as a job keeps it, and the phases an engine hop's span is cut into (issue 22).
@Suite("Trace context")
struct TraceContextTests {
    static let valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    @Test("a traceparent is used only when it is what Trace Context §3.2 allows, byte for byte")
    func traceparentValidation() {
        #expect(TraceContext(traceparent: Self.valid)?.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
        // A later version may carry more fields after a dash.
        #expect(TraceContext(traceparent: "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra") != nil)
        let refused = [
            nil, "", "garbage",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",  // upper case
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",  // zero trace id
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",  // zero parent id
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // forbidden version
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",  // version 00 has four fields
            "00-4bf92f3577b34da6a3ce929d0e0e473-600f067aa0ba902b7-01",  // dashes misplaced
            "00-4bf92f3577b34da6a3ce929d0e0e47３6-00f067aa0ba902b7-01",  // a non-ASCII digit
        ]
        for text in refused { #expect(TraceContext(traceparent: text) == nil, "\(text ?? "nil")") }
    }

    @Test("a tracestate goes along only when printable ASCII of at most 512 bytes")
    func tracestateValidation() {
        #expect(TraceContext(traceparent: Self.valid, tracestate: "congo=t61rcWkgMzE")?.tracestate == "congo=t61rcWkgMzE")
        #expect(TraceContext(traceparent: Self.valid, tracestate: "a=\u{1}b")?.tracestate == nil)
        #expect(TraceContext(traceparent: Self.valid, tracestate: String(repeating: "a", count: 513))?.tracestate == nil)
        #expect(TraceContext(traceparent: nil, tracestate: "congo=t61rcWkgMzE") == nil)
    }

    @Test("a job's policies keep the trace context in JSON and read it back")
    func policiesRoundTrip() throws {
        var policies = JobSpecification.Policies(followRedirects: true, maxRedirects: 5)
        policies.traceContext = TraceContext(traceparent: Self.valid, tracestate: "k=v")
        let json = JobSpecification.json(policies)
        #expect(json.contains("\"trace_context\""))
        #expect(try JobSpecification.decode(JobSpecification.Policies.self, json: json) == policies)
    }

    static func hop(reused: Bool, lookup: Int?, connect: Int?, tls: Int?, request: Int?, firstByte: Int?, end: Int) -> TransactionMetrics {
        TransactionMetrics(
            request: URL(string: "https://example.test/")!, statusCode: 200, outcome: .completed, fetchStart: Date(),
            nameLookupEnd: lookup.map { .milliseconds($0) }, connectEnd: connect.map { .milliseconds($0) },
            secureConnectionEnd: tls.map { .milliseconds($0) }, requestStart: request.map { .milliseconds($0) },
            responseStart: firstByte.map { .milliseconds($0) }, responseEnd: .milliseconds(end), isReusedConnection: reused)
    }

    @Test("a new connection's hop: lookup, connect, TLS, the wait for the first byte and the body, each from where the one before ended")
    func phasesOfANewConnection() {
        let phases = EngineHopSpans.phases(of: Self.hop(reused: false, lookup: 2, connect: 5, tls: 20, request: 21, firstByte: 40, end: 90))
        #expect(phases == [
            .init(name: "dns", start: .zero, end: .milliseconds(2)),
            .init(name: "connect", start: .milliseconds(2), end: .milliseconds(5)),
            .init(name: "tls", start: .milliseconds(5), end: .milliseconds(20)),
            .init(name: "first byte", start: .milliseconds(21), end: .milliseconds(40)),
            .init(name: "body", start: .milliseconds(40), end: .milliseconds(90)),
        ])
    }

    @Test("a reused connection's hop has no lookup, connect or TLS; a hop that failed before any byte has no body")
    func phasesOfAReusedOrFailedHop() {
        let reused = EngineHopSpans.phases(of: Self.hop(reused: true, lookup: 0, connect: 0, tls: nil, request: 1, firstByte: 8, end: 9))
        #expect(reused.map(\.name) == ["first byte", "body"])
        let failed = EngineHopSpans.phases(of: Self.hop(reused: false, lookup: 3, connect: nil, tls: nil, request: nil, firstByte: nil, end: 3000))
        #expect(failed.map(\.name) == ["dns"])
    }
}
