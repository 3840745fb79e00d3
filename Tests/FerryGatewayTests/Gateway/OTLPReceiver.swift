import Foundation
import Hummingbird
import Synchronization

/// An OpenTelemetry collector's trace endpoint on loopback, as far as a test needs one: OTLP/HTTP
/// with the protobuf encoding (`POST /v1/traces`, `application/x-protobuf`), the spans of every
/// export taken apart (opentelemetry/proto/trace/v1/trace.proto) and kept.
final class OTLPReceiver: Sendable {
    struct ReceivedSpan: Sendable, CustomStringConvertible {
        var traceID: String
        var spanID: String
        /// Empty for a root span.
        var parentSpanID: String
        var name: String
        /// 1 internal, 2 server, 3 client, 4 producer, 5 consumer.
        var kind: Int
        var startNanoseconds: UInt64
        var endNanoseconds: UInt64
        var attributes: [String: String]
        /// 0 unset, 1 ok, 2 error.
        var statusCode: Int
        var serviceName: String?

        var description: String { "\(name) [\(spanID) <- \(parentSpanID.isEmpty ? "root" : parentSpanID)] \(attributes)" }
    }

    /// What the route and the test share.
    private final class SpanLog: Sendable {
        let spans = Mutex<[ReceivedSpan]>([])
    }

    let baseURL: String
    private let log: SpanLog

    private init(baseURL: String, log: SpanLog) {
        self.baseURL = baseURL
        self.log = log
    }

    var received: [ReceivedSpan] { log.spans.withLock { $0 } }

    /// Waits until `condition` holds for the spans received so far (at most `timeout`), and returns them.
    func waitFor(timeout: Duration = .seconds(60), _ condition: ([ReceivedSpan]) -> Bool) async throws -> [ReceivedSpan] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let now = received
            if condition(now) { return now }
            try await Task.sleep(for: .milliseconds(100))
        }
        return received
    }

    /// The spans of one `ExportTraceServiceRequest`.
    static func spans(inExport bytes: [UInt8]) throws -> [ReceivedSpan] {
        var spans: [ReceivedSpan] = []
        for resourceSpans in try ProtobufWire.fields(of: bytes) where resourceSpans.number == 1 {
            let fields = resourceSpans.message
            let resource = fields.first { $0.number == 1 }?.message ?? []
            let serviceName = attributes(resource, field: 1)["service.name"]
            for scopeSpans in fields where scopeSpans.number == 2 {
                for span in scopeSpans.message where span.number == 2 {
                    let f = span.message
                    func field(_ number: Int) -> ProtobufWire.Field? { f.first { $0.number == number } }
                    let status = field(15)?.message ?? []
                    spans.append(ReceivedSpan(
                        traceID: hex(field(1)?.bytes ?? []), spanID: hex(field(2)?.bytes ?? []), parentSpanID: hex(field(4)?.bytes ?? []),
                        name: field(5)?.string ?? "", kind: Int(field(6)?.integer ?? 0),
                        startNanoseconds: field(7)?.integer ?? 0, endNanoseconds: field(8)?.integer ?? 0,
                        attributes: attributes(f, field: 9), statusCode: Int(status.first { $0.number == 3 }?.integer ?? 0), serviceName: serviceName))
                }
            }
        }
        return spans
    }

    /// A message's `repeated KeyValue attributes` (field 9 of a Span, 1 of a Resource), values as text.
    private static func attributes(_ fields: [ProtobufWire.Field], field: Int) -> [String: String] {
        var attributes: [String: String] = [:]
        for keyValue in fields where keyValue.number == field {
            let pair = keyValue.message
            guard let key = pair.first(where: { $0.number == 1 })?.string, let value = pair.first(where: { $0.number == 2 })?.message.first else {
                continue
            }
            switch value.number {
            case 1: attributes[key] = value.string
            case 2: attributes[key] = value.integer != 0 ? "true" : "false"
            case 3: attributes[key] = String(Int64(bitPattern: value.integer))
            case 4: attributes[key] = String(Double(bitPattern: value.integer))
            default: attributes[key] = "(\(value.number))"
            }
        }
        return attributes
    }

    private static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    static func withRunning<T>(_ body: (OTLPReceiver) async throws -> T) async throws -> T {
        let log = SpanLog()
        let router = Router()
        router.post("/v1/traces") { request, _ -> Response in
            guard request.headers[.contentType] == "application/x-protobuf" else { return Response(status: .unsupportedMediaType) }
            let bytes = try await request.body.collect(upTo: 16 << 20)
            guard let received = try? Self.spans(inExport: Array(bytes.readableBytesView)) else { return Response(status: .badRequest) }
            log.spans.withLock { $0.append(contentsOf: received) }
            // An empty ExportTraceServiceResponse: everything accepted.
            return Response(status: .ok, headers: [.contentType: "application/x-protobuf"])
        }
        return try await LoopbackTestServer.withRunning(router, label: "OTLP receiver") { baseURL in
            try await body(OTLPReceiver(baseURL: baseURL, log: log))
        }
    }
}
