import Tracing

/// W3C Trace Context headers in and out of a plain dictionary, for a context kept with a job.
public enum TraceCarrier {
    /// The context a job's stored `traceparent` names (its caller's, or its submission's span), on
    /// top of `base`; `base` unchanged when the job has none.
    public static func context(_ trace: TraceContext?, tracer: any Tracer, base: ServiceContext = .topLevel) -> ServiceContext {
        var context = base
        guard let trace else { return context }
        var carrier = ["traceparent": trace.traceparent]
        carrier["tracestate"] = trace.tracestate
        tracer.extract(carrier, into: &context, using: DictionaryExtractor())
        return context
    }

    /// The trace context that continues `context`'s trace, as `instrument` writes it; nil when it
    /// writes none (no span in `context`, or no tracer behind the instrument).
    public static func traceContext(of context: ServiceContext, instrument: any Instrument) -> TraceContext? {
        var carrier: [String: String] = [:]
        instrument.inject(context, into: &carrier, using: DictionaryInjector())
        return TraceContext(traceparent: carrier["traceparent"], tracestate: carrier["tracestate"])
    }
}

private struct DictionaryExtractor: Extractor {
    func extract(key: String, from carrier: [String: String]) -> String? { carrier[key] }
}

private struct DictionaryInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) { carrier[key] = value }
}
