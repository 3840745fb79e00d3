import FerryModel
import FerryStore
import Tracing

extension WebhookDispatcher {
    /// The delivery attempt's span, in the trace of the job the event is about; nil when nothing is traced.
    func deliverySpan(_ due: WebhookDeliveryQueue.Due) -> (any Span)? {
        guard let tracer else { return nil }
        let parent = TraceCarrier.context(due.job.policies.traceContext, tracer: tracer)
        let span = tracer.startSpan("webhook.deliver", context: parent, ofKind: .client, function: #function, file: #fileID, line: #line)
        span.updateAttributes { attributes in
            attributes["ferry.webhook.delivery.id"] = due.id.lowercasedString
            attributes["ferry.webhook.event.type"] = due.eventType
            attributes["ferry.webhook.attempt"] = due.attempt
            attributes["ferry.job.id"] = due.job.id.lowercasedString
            attributes["http.request.method"] = "POST"
        }
        return span
    }

    func endDeliverySpan(_ span: any Span, status: Int?, failure: String?) {
        span.updateAttributes { attributes in
            attributes["http.response.status_code"] = status
        }
        if let failure {
            span.setStatus(SpanStatus(code: .error, message: failure))
        } else if let status, status >= 400 {
            span.setStatus(SpanStatus(code: .error))
        }
        span.end()
    }

    /// What the delivery's `traceparent` says: its own span when traced (a child in the job's trace),
    /// else the job's stored trace context as the caller sent it.
    func traceContext(for due: WebhookDeliveryQueue.Due, span: (any Span)?) -> TraceContext? {
        if let span, let tracer, let own = TraceCarrier.traceContext(of: span.context, instrument: tracer) { return own }
        return due.job.policies.traceContext
    }
}
