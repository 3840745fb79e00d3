/// Certificate authorities trusted for one host (and port) only, e.g. a private CA that issued an
/// internal server's certificate (TLS-02): trusting it for the whole session would let it vouch for
/// every other host too.
///
/// The CA is trusted in addition to what the session trusts anyway, not instead of it: only trust in
/// this host's certificates widens, and pins are the way to narrow it. The chain is verified up to one
/// of these certificates and the host name checked as usual (unlike `TrustedServerCertificate`, which
/// trusts one exact certificate).
public struct HostTrustedCA: Sendable, Hashable, HostScoped {
    public var host: String
    /// Nil: any port of the host.
    public var port: Int?
    /// One or more PEM certificates, each `-----BEGIN CERTIFICATE-----` ... `-----END CERTIFICATE-----`.
    public var certificatesPEM: String

    /// Nil when `certificatesPEM` holds no certificate: curl would refuse such a CA file, failing every
    /// transfer to the host.
    public init?(host: String, port: Int? = nil, certificatesPEM: String) {
        guard !PEMCertificates.decode(certificatesPEM).isEmpty else { return nil }
        self.host = host.lowercased()
        self.port = port
        self.certificatesPEM = certificatesPEM
    }
}
