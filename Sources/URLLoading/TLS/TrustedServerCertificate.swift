import Foundation

/// A certificate trusted for one server whatever the trust store says, typically a self-signed
/// development server's (TLS-03). Only this exact certificate is trusted, and only for this host (and
/// port, when given); host names are not checked against it, the certificate itself is the identity.
/// Public-key pins still apply on top (TLS-08).
public struct TrustedServerCertificate: Sendable, Hashable, HostScoped {
    public var host: String
    /// Nil: any port of the host.
    public var port: Int?
    /// The certificate, DER encoded.
    public var certificate: Data

    public init(host: String, port: Int? = nil, certificate: Data) {
        self.host = host.lowercased()
        self.port = port
        self.certificate = certificate
    }

    /// The first certificate of PEM text; nil when there is none.
    public init?(host: String, port: Int? = nil, certificatePEM: String) {
        guard let certificate = PEMCertificates.decode(certificatePEM).first else { return nil }
        self.init(host: host, port: port, certificate: certificate)
    }
}
