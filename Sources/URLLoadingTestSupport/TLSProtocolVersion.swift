import NIOSSL

/// The TLS versions the test servers can be pinned to.
///
/// Our own enum rather than NIOSSL's `TLSVersion`, so tests need not import NIOSSL.
public enum TLSProtocolVersion: String, Sendable, Hashable, CaseIterable {
    case tls12 = "TLSv1.2"
    case tls13 = "TLSv1.3"

    /// The name OpenSSL and curl use, e.g. "TLSv1.3".
    public var name: String { rawValue }

    var nioVersion: TLSVersion {
        switch self {
        case .tls12: .tlsv12
        case .tls13: .tlsv13
        }
    }

    /// How a negotiated NIOSSL version is reported in `RecordedRequest.tlsVersion` and `/tls-info`.
    static func name(of version: TLSVersion) -> String {
        switch version {
        case .tlsv1: "TLSv1"
        case .tlsv11: "TLSv1.1"
        case .tlsv12: "TLSv1.2"
        case .tlsv13: "TLSv1.3"
        }
    }
}
