/// A W3C Trace Context (https://www.w3.org/TR/trace-context/): the `traceparent` and `tracestate`
/// header values a caller sent with `POST /v1/jobs`, kept with the job (`policies.trace_context`) so
/// that its attempts, on any ferryd and however much later, continue the caller's trace, and its
/// webhooks carry it on.
public struct TraceContext: Sendable, Equatable, Codable {
    public var traceparent: String
    public var tracestate: String?

    /// Nil unless `traceparent` is one the recommendation lets a receiver use (§3.2, checked on its
    /// bytes): a malformed one is ignored, as the recommendation says, not refused. A `tracestate`
    /// goes with a valid `traceparent` only, and only when it is short printable ASCII (§3.3).
    public init?(traceparent: String?, tracestate: String? = nil) {
        guard let traceparent, Self.isValidTraceparent(Array(traceparent.utf8)) else { return nil }
        self.traceparent = traceparent
        self.tracestate = tracestate.flatMap { Self.isUsableTracestate(Array($0.utf8)) ? $0 : nil }
    }

    /// The 32 hex digits of the trace id.
    public var traceID: Substring { traceparent.dropFirst(3).prefix(32) }

    /// `version-traceid-parentid-flags`: two lower-case hex digits each side, ids not all zero,
    /// version `ff` forbidden. A later version may add fields after a `-`; version 00 may not.
    static func isValidTraceparent(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 55, bytes[2] == UInt8(ascii: "-"), bytes[35] == UInt8(ascii: "-"), bytes[52] == UInt8(ascii: "-") else {
            return false
        }
        let version = bytes[0..<2], traceID = bytes[3..<35], parentID = bytes[36..<52], flags = bytes[53..<55]
        guard [version, traceID, parentID, flags].allSatisfy({ $0.allSatisfy(isLowerHex) }) else { return false }
        guard !(version.elementsEqual("ff".utf8)) else { return false }
        guard traceID.contains(where: { $0 != UInt8(ascii: "0") }), parentID.contains(where: { $0 != UInt8(ascii: "0") }) else { return false }
        if version.elementsEqual("00".utf8) { return bytes.count == 55 }
        return bytes.count == 55 || bytes[55] == UInt8(ascii: "-")
    }

    /// At most 512 bytes (what the recommendation asks a vendor to propagate at least) of printable
    /// ASCII: anything else is dropped, not forwarded into another system's headers.
    static func isUsableTracestate(_ bytes: [UInt8]) -> Bool {
        !bytes.isEmpty && bytes.count <= 512 && bytes.allSatisfy { $0 >= 0x20 && $0 <= 0x7E }
    }

    private static func isLowerHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
}
