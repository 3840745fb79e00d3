import FerryModel
import FerryStore
import Foundation
import Tracing

extension JobRunner {
    /// The attempt's span, a child of the trace the job was submitted in (`policies.trace_context`)
    /// or, without one, a trace of its own; nil when nothing is traced.
    func startAttemptSpan() -> (any Span)? {
        guard let tracer else { return nil }
        let job = claim.job
        let parent = TraceCarrier.context(job.policies.traceContext, tracer: tracer)
        let span = tracer.startSpan("job.attempt", context: parent, ofKind: .consumer, function: #function, file: #fileID, line: #line)
        let url = URL(string: job.request.url)
        span.updateAttributes { attributes in
            attributes["ferry.job.id"] = job.id.lowercasedString
            attributes["ferry.job.kind"] = job.kind.rawValue
            attributes["ferry.job.attempt"] = job.attempt
            attributes["ferry.tenant.id"] = job.tenantID.lowercasedString
            attributes["url.scheme"] = url?.scheme
            attributes["server.address"] = url?.host
        }
        return span
    }

    /// Ends the span with how the attempt ended; an attempt that failed is an error span.
    func endAttemptSpan(_ span: any Span, completion: JobQueue.Completion?) {
        span.updateAttributes { attributes in
            attributes["ferry.attempt.outcome"] = completion?.attemptOutcome ?? "lease_lost"
            attributes["error.type"] = completion?.errorCode
            attributes["ferry.job.state"] = completion?.state.rawValue
        }
        if let code = completion?.errorCode {
            span.setStatus(SpanStatus(code: .error, message: completion?.errorMessage ?? code))
        }
        span.end()
    }
}
