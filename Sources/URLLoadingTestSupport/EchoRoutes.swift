import Foundation
import NIOHTTP1

/// `/echo` and `/slow-upload-sink`: report back what the request looked like, so tests can
/// check what the engine sent without a packet capture.
///
/// The document, keys in this order:
/// `{"method", "uri", "http_version", "headers": [[name, value], ...], "body_length",
///   "body_base64" (only for bodies under 1 MiB), "body_fnv1a64" (16 hex digits)}`
enum EchoRoutes {
    @Sendable
    static func echo(_ request: OriginRequest, _ response: OriginResponder) async throws {
        try await send(report(of: request, includingBody: true), to: response)
    }

    /// `/slow-upload-sink?bytes_per_pause=16384&pause_ms=50`: the body was read slowly (see
    /// `BodyThrottle`) before this runs; the report leaves out `body_base64`.
    @Sendable
    static func slowUploadSink(_ request: OriginRequest, _ response: OriginResponder) async throws {
        try await send(report(of: request, includingBody: false), to: response)
    }

    static func report(of request: OriginRequest, includingBody: Bool) -> JSONText {
        var members: [(String, JSONText)] = [
            ("method", .string(request.method)),
            ("uri", .string(request.head.uri)),
            ("http_version", .string(request.httpVersion)),
            ("headers", .array(request.headerFields.map { .array([.string($0.name), .string($0.value)]) })),
            ("body_length", .number(request.body.length)),
        ]
        if includingBody, let bytes = request.body.keptBytes {
            members.append(("body_base64", .string(Data(bytes).base64EncodedString())))
        }
        members.append(("body_fnv1a64", .string(request.body.fingerprint.hexDigest)))
        return .object(members)
    }

    private static func send(_ report: JSONText, to response: OriginResponder) async throws {
        try await response.send(.ok, contentType: "application/json", text: report.rendered + "\n")
    }
}
