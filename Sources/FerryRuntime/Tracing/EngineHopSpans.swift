import Foundation
import Tracing
import URLLoading

/// The engine's hops of a finished task as spans: one client span per request that left the process
/// (the first, each redirect, each authentication round), each with its phases as children (name
/// lookup, connect, TLS, the wait for the first byte, the body), at the times curl measured.
enum EngineHopSpans {
    static func record(_ metrics: TaskMetrics, method: String, under parent: ServiceContext, tracer: any Tracer) {
        for hop in metrics.transactions {
            let start = WallClockInstant(hop.fetchStart)
            let span = tracer.startSpan(method, context: parent, ofKind: .client, at: start, function: #function, file: #fileID, line: #line)
            span.updateAttributes { attributes in
                attributes["url.scheme"] = hop.request.scheme
                attributes["server.address"] = hop.request.host
                attributes["server.port"] = hop.request.port
                attributes["http.request.method"] = method
                attributes["http.response.status_code"] = hop.statusCode
                attributes["network.protocol.name"] = hop.networkProtocolName
                attributes["network.peer.address"] = hop.remoteAddress
                attributes["network.peer.port"] = hop.remotePort
                attributes["ferry.connection.reused"] = hop.isReusedConnection
                attributes["http.response.body.size"] = Int(hop.responseBodyBytes)
                attributes["ferry.hop.outcome"] = hop.outcome.rawValue
            }
            if hop.outcome == .failed { span.setStatus(SpanStatus(code: .error, message: "the request failed")) }
            for phase in phases(of: hop) {
                let child = tracer.startSpan(
                    phase.name, context: span.context, ofKind: .internal, at: WallClockInstant(hop.fetchStart, plus: phase.start),
                    function: #function, file: #fileID, line: #line)
                child.end(at: WallClockInstant(hop.fetchStart, plus: phase.end))
            }
            span.end(at: WallClockInstant(hop.fetchStart, plus: hop.responseEnd))
        }
    }

    struct Phase: Equatable {
        var name: String
        var start: Duration
        var end: Duration
    }

    /// The phases a hop went through, as offsets from its start; curl's times are cumulative, so
    /// each phase starts where the one before ended. A phase the hop skipped (no lookup for a reused
    /// connection, no TLS for http) is left out.
    static func phases(of hop: TransactionMetrics) -> [Phase] {
        var phases: [Phase] = []
        var reached = Duration.zero
        func add(_ name: String, until end: Duration?) {
            guard let end, end >= reached else { return }
            phases.append(Phase(name: name, start: reached, end: end))
            reached = end
        }
        if !hop.isReusedConnection {
            add("dns", until: hop.nameLookupEnd)
            add("connect", until: hop.connectEnd)
            add("tls", until: hop.secureConnectionEnd)
        }
        if let requestStart = hop.requestStart, requestStart > reached { reached = requestStart }
        add("first byte", until: hop.responseStart)
        add("body", until: hop.responseStart == nil ? nil : hop.responseEnd)
        return phases
    }
}
