import FerryModel
import HTTPTypes
import Hummingbird
import Tracing

/// The trace a submitted job continues (W3C Trace Context, issue 22).
enum RequestTraceContext {
    /// When ferryd traces, the request's own span (`TracingMiddleware`), itself a child of the
    /// caller's `traceparent`: the job's attempts then hang under the submission. Otherwise the
    /// caller's `traceparent` and `tracestate` as sent, when valid, so the webhook still carries them.
    static func of(_ request: Request) -> TraceContext? {
        if let current = ServiceContext.current, let context = TraceCarrier.traceContext(of: current, instrument: InstrumentationSystem.instrument) {
            return context
        }
        // More than one traceparent field is invalid (Trace Context §3.2): the trace is not continued.
        let parents = request.headers[values: traceparent]
        guard parents.count == 1 else { return nil }
        let states = request.headers[values: tracestate]
        // Several tracestate fields are one list (§3.3, as RFC 9110 combines field lines).
        return TraceContext(traceparent: parents[0], tracestate: states.isEmpty ? nil : states.joined(separator: ","))
    }

    private static let traceparent = HTTPField.Name("traceparent")!
    private static let tracestate = HTTPField.Name("tracestate")!
}
