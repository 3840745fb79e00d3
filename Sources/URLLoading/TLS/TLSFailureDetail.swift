/// Recognizes TLS failures in curl's error detail that deserve a clearer message than curl's result
/// code gives: a refused client certificate (TLS-11) and no TLS version both sides allow (TLS-12).
///
/// A server that refuses a certificate (or misses a required one) ends the handshake with a TLS alert;
/// with TLS 1.3 the client only reads it after its side of the handshake is done, so curl reports a
/// receive error. OpenSSL names the alert in the detail either way, e.g. "tlsv13 alert certificate required".
enum TLSFailureDetail {
    private static let certificateRefusals: [StaticString] = [
        "alert bad certificate", "alert unknown ca", "alert certificate unknown", "alert unsupported certificate",
        "alert certificate revoked", "alert certificate expired", "alert access denied",
    ]
    private static let versionMismatches: [StaticString] = [
        "alert protocol version", "unsupported protocol", "wrong version number", "no protocols available",
        "version too low", "tlsv1 alert protocol",
    ]

    /// Every failed transfer's detail passes through here, TLS or not, so it is searched as ASCII
    /// bytes: `String.contains` went through Foundation's `range(of:)`, a fifth of ferry's CPU when
    /// 2,000 transfers found their server refusing connections.
    static func classify(_ detail: String, configuration: SessionConfiguration?) -> (TransferError.Code, String)? {
        let text = detail.utf8.map(lowercasedASCII)
        if mentions("alert certificate required", in: text) {
            return (.clientCertificateRejected, "the server requires a client certificate and none was presented")
        }
        if certificateRefusals.contains(where: { mentions($0, in: text) }) {
            return (.clientCertificateRejected, "the server rejected the client certificate")
        }
        if versionMismatches.contains(where: { mentions($0, in: text) }) {
            return (.secureConnectionFailed, "the server accepts no TLS version in the allowed range (\(allowedVersions(configuration)))")
        }
        return nil
    }

    /// Whether `text` (lower-cased) holds the lower-case ASCII `phrase`.
    private static func mentions(_ phrase: StaticString, in text: [UInt8]) -> Bool {
        let wanted = UnsafeBufferPointer(start: phrase.utf8Start, count: phrase.utf8CodeUnitCount)
        guard wanted.count <= text.count else { return false }
        return (0...(text.count - wanted.count)).contains { start in
            wanted.indices.allSatisfy { text[start + $0] == wanted[$0] }
        }
    }

    private static func lowercasedASCII(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    private static func allowedVersions(_ configuration: SessionConfiguration?) -> String {
        let low = configuration?.tlsMinimumVersion.map { "TLS \($0.rawValue)" } ?? "curl's default minimum"
        let high = configuration?.tlsMaximumVersion.map { "TLS \($0.rawValue)" } ?? "the newest"
        return "\(low) to \(high)"
    }
}
