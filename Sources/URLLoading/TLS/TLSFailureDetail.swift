/// Recognizes TLS failures in curl's error detail that deserve a clearer message than curl's result
/// code gives: a refused client certificate (TLS-11) and no TLS version both sides allow (TLS-12).
///
/// A server that refuses a certificate (or misses a required one) ends the handshake with a TLS alert;
/// with TLS 1.3 the client only reads it after its side of the handshake is done, so curl reports a
/// receive error. OpenSSL names the alert in the detail either way, e.g. "tlsv13 alert certificate required".
enum TLSFailureDetail {
    private static let certificateRefusals = [
        "alert bad certificate", "alert unknown ca", "alert certificate unknown", "alert unsupported certificate",
        "alert certificate revoked", "alert certificate expired", "alert access denied",
    ]
    private static let versionMismatches = [
        "alert protocol version", "unsupported protocol", "wrong version number", "no protocols available",
        "version too low", "tlsv1 alert protocol",
    ]

    static func classify(_ detail: String, configuration: SessionConfiguration?) -> (TransferError.Code, String)? {
        let text = detail.lowercased()
        if text.contains("alert certificate required") {
            return (.clientCertificateRejected, "the server requires a client certificate and none was presented")
        }
        if certificateRefusals.contains(where: text.contains) {
            return (.clientCertificateRejected, "the server rejected the client certificate")
        }
        if versionMismatches.contains(where: text.contains) {
            return (.secureConnectionFailed, "the server accepts no TLS version in the allowed range (\(allowedVersions(configuration)))")
        }
        return nil
    }

    private static func allowedVersions(_ configuration: SessionConfiguration?) -> String {
        let low = configuration?.tlsMinimumVersion.map { "TLS \($0.rawValue)" } ?? "curl's default minimum"
        let high = configuration?.tlsMaximumVersion.map { "TLS \($0.rawValue)" } ?? "the newest"
        return "\(low) to \(high)"
    }
}
